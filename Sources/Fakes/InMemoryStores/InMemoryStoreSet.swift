public import Foundation
public import Logging
public import Stores
import Synchronization
public import WordCounts

/// Every store of the bot in memory, for tests: the same rules as the databases' (a slot claimed once, a mention
/// handled once, the random picks drawn over the same rows in the same order), with nothing to connect to and nothing
/// that waits. One value holds one bot's data; copies share it, as handles to one database do.
public final class InMemoryStoreSet: StoreSet, Sendable {
    let tables = Mutex(Tables())
    /// What the stores count with.
    public let settings: StoreSettings
    /// Where the stores are: "memory".
    public let location: String
    /// Memory needs no migration.
    public var migratesWhenOpened: Bool { true }
    /// When set, every store operation throws this (a database that went away), until cleared.
    private let failure = Mutex<String?>(nil)
    private let wordCountStore: InMemoryWordCounts

    /// Empty stores counting with `settings`, named `location` in log lines.
    public init(settings: StoreSettings = StoreSettings(), location: String = "memory") {
        self.settings = settings; self.location = location
        wordCountStore = InMemoryWordCounts()
    }

    /// Makes every store operation fail with `reason` (nil: work again), as a database that went away does.
    public func setFailure(_ reason: String?) { failure.withLock { $0 = reason } }

    /// Runs `body` on the tables, or throws the failure that is set.
    func withTables<Result: Sendable>(_ operation: String, _ body: (inout Tables) throws -> Result) throws -> Result {
        if let reason = failure.withLock({ $0 }) { throw ArchiveError(operation: operation, reason: reason) }
        return try tables.withLock { try body(&$0) }
    }

    public var archive: any TweetArchive { archive(timeZone: settings.timeZone, rowLimit: settings.archiveRowLimit) }
    public func archive(timeZone: TimeZone, rowLimit: Int) -> any TweetArchive { InMemoryTweetArchive(set: self, timeZone: timeZone, rowLimit: rowLimit) }
    public var plans: any PlanStore { InMemoryPlanStore(set: self) }
    public var mentions: any MentionLog { InMemoryMentionLog(set: self) }
    public var likes: any LikeLog { InMemoryLikeLog(set: self) }
    public var state: any BotState { InMemoryBotState(set: self) }
    public var examples: any TrainingExamples { InMemoryTrainingExamples(set: self) }
    public var usageDays: any UsageDays { InMemoryUsageDays(set: self) }
    public var actions: any ActionLog { InMemoryActionLog(set: self) }
    public var retention: any StoreRetention { InMemoryStoreRetention(set: self) }
    public var migrations: any SchemaMigrations { InMemoryMigrations() }

    /// The word counts kept with these stores (one per set, whatever `now` is given).
    public func sharedWordCounts(now: @escaping @Sendable () -> Date) throws -> (any WordCountBackend)? { wordCountStore.with(now: now) }

    public func takeLease(logger: Logger) async throws -> any DaemonLease {
        let holder = LeaseHolder.thisProcess()
        try withTables("taking the daemon's lease") { tables in
            if let held = tables.leaseHolder { throw LeaseHeld(holder: held, store: location) }
            tables.leaseHolder = holder
        }
        return InMemoryLease(set: self, holder: holder)
    }

    public func ping() async throws { try withTables("checking that the stores answer") { _ in } }
    public func checkReachable() async throws { try await ping() }
    /// Nothing runs in the background: waits for cancellation.
    public func run() async {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }
    public func withRunning<Result: Sendable>(isolation: isolated (any Actor)?, _ body: () async throws -> Result) async throws -> Result {
        try await body()
    }
}

/// The tables, as the databases have them.
struct Tables {
    struct Tweet {
        var tweet: ArchivedTweet
        var hasLink: Bool
        /// Minute of the day and day, in the zone `zone`.
        var zone: String
        var minute: Int
        var day: String
    }
    struct BotPost { var sourceTweetID: Int64; var botTweetID: Int64?; var postedAt: Date }
    struct Slot {
        var state: PlanSlot.State = .planned
        var sourceTweetID: Int64?
        var botTweetID: Int64?
        var reason: String?
        var postedAt: Date?
        var updatedAt: Date
        var unchecked = false
    }
    struct DayPlan { var timeZone: String; var drawnAt: Date; var slots: [Int: Slot] }
    struct Mention {
        var authorID: Int64
        var conversationID: Int64?
        var state: MentionState
        var replyTweetID: Int64?
        var sourceTweetID: Int64?
        var reason: String?
        var handledAt: Date
    }
    struct Usage { var entry: UsageEntry; var order: Int }

    var tweets: [Int64: Tweet] = [:]
    var botPosts: [BotPost] = []
    var plans: [String: DayPlan] = [:]
    var mentions: [Int64: Mention] = [:]
    var likes: [Int64: RecordedLike] = [:]
    var state: [String: String] = [:]
    var examples: [TrainingExample] = []
    var nextExampleSequence: Int64 = 1
    var usage: [String: Usage] = [:]
    var usageOrder = 0
    var leaseHolder: LeaseHolder?
}

/// The lease of an in-memory set: one holder at a time, let go on release.
final class InMemoryLease: DaemonLease {
    let holder: LeaseHolder
    private let set: InMemoryStoreSet
    private let held = Mutex(true)

    init(set: InMemoryStoreSet, holder: LeaseHolder) { self.set = set; self.holder = holder }

    func isHeld(logger: Logger) async -> Bool { held.withLock { $0 } }

    func release() async {
        guard held.withLock({ state in defer { state = false }; return state }) else { return }
        set.tables.withLock { $0.leaseHolder = nil }
    }
}

/// Memory has no schema.
struct InMemoryMigrations: SchemaMigrations {
    var all: [Migration] { [] }
    func appliedVersions() async throws -> [Int] { [] }
    func migrate() async throws -> [Migration] { [] }
}
