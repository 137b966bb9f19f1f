public import BotClock
import BotCore
public import Foundation
public import Logging
public import Stores
import Synchronization
public import WordCounts

/// Every store of the bot in memory, for tests: the same rules as the databases' (a slot claimed once, a mention
/// handled once, the random picks drawn over the same rows in the same order), with nothing to connect to and nothing
/// that waits. One value holds one bot's data; copies share it, as handles to one database do.
public final class InMemoryStoreSet: StoreSet, Sendable {
    /// The tables, shared by every process's view of them.
    final class Database: Sendable {
        let tables = Mutex(Tables())
        let wordCounts = InMemoryWordCounts()
        let failure = Mutex<String?>(nil)
    }

    let database: Database
    /// What the stores count with.
    public let settings: StoreSettings
    /// Where the stores are: "memory".
    public let location: String
    /// Memory needs no migration.
    public var migratesWhenOpened: Bool { true }
    /// This view's process was killed: nothing it does has an effect any more.
    private let killed = Mutex(false)
    /// The lease this view's process holds, if any.
    private let heldLease = Mutex<LeaseHolder?>(nil)
    /// The fleet's hold this view works under, if any: every operation checks it first, as a fleet's fenced statements do.
    private let fleetHold: InMemoryFleetLease?

    /// Empty stores counting with `settings`, named `location` in log lines.
    public init(settings: StoreSettings = StoreSettings(), location: String = "memory") {
        self.settings = settings
        self.location = location
        database = Database()
        fleetHold = nil
    }

    private init(database: Database, settings: StoreSettings, location: String, fleetHold: InMemoryFleetLease? = nil) {
        self.database = database
        self.settings = settings
        self.location = location
        self.fleetHold = fleetHold
    }

    /// The same stores as another process sees them (a restart of the daemon): the same tables and word counts.
    public func process() -> InMemoryStoreSet { InMemoryStoreSet(database: database, settings: settings, location: location) }

    /// This view's process is killed (SIGKILL): nothing it writes from now on lands, every call throws `CancellationError`,
    /// and its lease is let go, as the kernel lets go of a dead process's lock.
    public func kill() {
        killed.withLock { $0 = true }
        if let holder = heldLease.withLock({ $0 }) { database.tables.withLock { if $0.leaseHolder == holder { $0.leaseHolder = nil } } }
    }

    /// Makes every store operation fail with `reason` (nil: work again), as a database that went away does.
    public func setFailure(_ reason: String?) { database.failure.withLock { $0 = reason } }

    /// Runs `body` on the tables, or throws the failure that is set; under a fleet's hold, only while it is the bot's
    /// current, unexpired one (checked and run in one step, as a fenced statement's transaction holds the lease's row).
    func withTables<Result: Sendable>(_ operation: String, _ body: (inout Tables) throws -> Result) throws -> Result {
        if killed.withLock({ $0 }) { throw CancellationError() }
        if let reason = database.failure.withLock({ $0 }) { throw ArchiveError(operation: operation, reason: reason) }
        return try database.tables.withLock { tables in
            if let fleetHold, !fleetHold.isCurrent(fence: tables.fleetFence) { throw FleetError.leaseLost(botID: 1, fence: fleetHold.fence) }
            return try body(&tables)
        }
    }

    /// A fleet process claims the bot on `clock`: a hold with the next fencing number, renewed every `round` while its
    /// process runs and lapsing `length` after its last renewal, and the stores as seen under it. Throws `LeaseHeld`
    /// while another hold is current.
    public func claim(clock: any BotClock, length: TimeInterval, round: TimeInterval) throws -> (stores: InMemoryStoreSet, lease: InMemoryFleetLease)
    {
        let lease = try database.tables.withLock { tables in
            if let current = tables.fleetHold, current.isCurrent(fence: tables.fleetFence) {
                throw LeaseHeld(holder: current.holder, store: location)
            }
            tables.fleetFence += 1
            let lease = InMemoryFleetLease(fence: tables.fleetFence, claimedAt: clock.now(), length: length, round: round, clock: clock) {
                [weak database] in
                database?.tables.withLock { $0.fleetFence } ?? 0
            }
            tables.fleetHold = lease
            return lease
        }
        return (InMemoryStoreSet(database: database, settings: settings, location: location, fleetHold: lease), lease)
    }

    public var archive: any PostArchive { archive(timeZone: settings.timeZone, rowLimit: settings.archiveRowLimit) }
    public func archive(timeZone: TimeZone, rowLimit: Int) -> any PostArchive {
        InMemoryPostArchive(set: self, timeZone: timeZone, rowLimit: rowLimit)
    }
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
    public func sharedWordCounts(now: @escaping @Sendable () -> Date) throws -> (any WordCountBackend)? { database.wordCounts.with(now: now) }

    public func takeLease(logger: Logger) async throws -> any DaemonLease {
        var holder = LeaseHolder.thisProcess()
        holder.pid = Int32.random(in: 1...Int32.max)  // each view is a process of its own
        try withTables("taking the daemon's lease") { [holder] tables in
            if let held = tables.leaseHolder { throw LeaseHeld(holder: held, store: location) }
            tables.leaseHolder = holder
        }
        heldLease.withLock { $0 = holder }
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
    struct Post {
        var post: ArchivedPost
        var hasLink: Bool
        /// Minute of the day and day, in the zone `zone`.
        var zone: String
        var minute: Int
        var day: String
    }
    struct BotPost {
        var sourcePostID: PostID
        var botPostID: PostID?
        var postedAt: Date
    }
    struct Slot {
        var state: PlanSlot.State = .planned
        var sourcePostID: PostID?
        var botPostID: PostID?
        var reason: String?
        var postedAt: Date?
        var updatedAt: Date
        var postedUnchecked = false
        var originalCheckedAt: Date?
    }
    struct DayPlan {
        var timeZone: String
        var drawnAt: Date
        var slots: [Int: Slot]
    }
    struct Mention {
        var authorID: AccountID
        var conversationID: PostID?
        var state: MentionState
        var replyPostID: PostID?
        var sourcePostID: PostID?
        var reason: String?
        var handledAt: Date
    }
    struct Usage {
        var entry: UsageEntry
        var order: Int
    }

    var posts: [PostID: Post] = [:]
    var botPosts: [BotPost] = []
    var plans: [String: DayPlan] = [:]
    var mentions: [PostID: Mention] = [:]
    var likes: [PostID: RecordedLike] = [:]
    var personLikes: [PostID: PersonLike] = [:]
    var likePlans: [String: [Int: LikeSlot]] = [:]
    var likeCandidates: [PostID: LikeCandidate] = [:]
    var state: [String: String] = [:]
    var examples: [TrainingExample] = []
    var nextExampleSequence: Int64 = 1
    var usage: [String: Usage] = [:]
    var usageOrder = 0
    var leaseHolder: LeaseHolder?
    /// The fencing number of the fleet's latest hold on the bot, and that hold.
    var fleetFence: Int64 = 0
    var fleetHold: InMemoryFleetLease?
}

/// The lease of an in-memory set: one holder at a time, let go on release.
final class InMemoryLease: DaemonLease {
    let holder: LeaseHolder
    private let set: InMemoryStoreSet
    private let held = Mutex(true)

    init(set: InMemoryStoreSet, holder: LeaseHolder) {
        self.set = set
        self.holder = holder
    }

    func isHeld(logger: Logger) async -> Bool { held.withLock { $0 } && set.database.tables.withLock { $0.leaseHolder == holder } }

    func release() async {
        guard
            held.withLock({ state in
                defer { state = false }
                return state
            })
        else { return }
        let holder = holder
        set.database.tables.withLock { if $0.leaseHolder == holder { $0.leaseHolder = nil } }
    }
}

/// A fleet's hold on the bot in memory, on a clock: renewed every `round` from its claim while its process runs, it lapses
/// `length` after the last renewal once the process stops renewing it (stalls, or loses its database); a later claim
/// carries a larger fencing number. Its network writes end before it lapses (`writeDeadline`).
public final class InMemoryFleetLease: DaemonLease {
    /// The hold's fencing number.
    public let fence: Int64
    /// When it was claimed.
    public let claimedAt: Date
    /// How long it lasts after a renewal.
    public let length: TimeInterval
    /// How often its process renews it.
    public let round: TimeInterval
    let clock: any BotClock
    private let renewalsStopped = Mutex<Date?>(nil)
    /// The fencing number of the bot's latest hold, read from the stores.
    private let latestFence: @Sendable () -> Int64
    public let holder: LeaseHolder

    init(fence: Int64, claimedAt: Date, length: TimeInterval, round: TimeInterval, clock: any BotClock, latestFence: @escaping @Sendable () -> Int64)
    {
        self.fence = fence
        self.claimedAt = claimedAt
        self.length = length
        self.round = round
        self.clock = clock
        self.latestFence = latestFence
        holder = LeaseHolder(host: "fleet", pid: Int32(truncatingIfNeeded: fence), since: claimedAt)
    }

    /// Its process renews it no more from `date` on.
    public func stopRenewing(at date: Date) { renewalsStopped.withLock { $0 = $0 ?? date } }

    /// When it lapses, as it stands now: its last renewal (a round's, up to now or to when renewals stopped) plus its length.
    public var lapsesAt: Date {
        let last = min(clock.now(), renewalsStopped.withLock { $0 } ?? .distantFuture)
        let rounds = max(0, (last.timeIntervalSince(claimedAt) / round).rounded(.down))
        return claimedAt.addingTimeInterval(rounds * round + length)
    }

    /// Whether it is the bot's latest hold (`latest` its fencing number) and has not lapsed.
    func isCurrent(fence latest: Int64) -> Bool { latest == fence && clock.now() < lapsesAt }

    /// Whether it still holds.
    public func isHeld(logger: Logger) async -> Bool { isCurrent(fence: latestFence()) }
    /// A fleet's hold lapses, unrenewed.
    public func release() async {}
    /// The fleet's rounds renew it.
    public var isKeptByTheDaemon: Bool { false }
    /// Writes end before it lapses.
    public var writeDeadline: WriteDeadline? { WriteDeadline(clock: clock, leaseLength: length) { [self] in lapsesAt } }
}

/// Memory has no schema.
struct InMemoryMigrations: SchemaMigrations {
    var all: [Migration] { [] }
    func appliedVersions() async throws -> [Int] { [] }
    func migrate() async throws -> [Migration] { [] }
}
