public import Foundation

/// One slot of a stored day plan.
public struct PlanSlot: Sendable, Equatable {
    /// Where a slot stands.
    public enum State: String, Sendable {
        /// Waiting for its minute.
        case planned
        /// Claimed: its post is being sent (or was, when the process stopped before recording the outcome).
        case posting
        /// Posted.
        case posted
        /// Not posted, for `reason`.
        case skipped
    }

    /// The minute of the day (0–1439) in the plan's zone.
    public var minute: Int
    /// Where it stands.
    public var state: State
    /// The human's tweet it posted, once posted.
    public var sourceTweetID: Int64?
    /// The bot's tweet, once posted.
    public var botTweetID: Int64?
    /// Why it was skipped, or what was posted.
    public var reason: String?
    /// When it was posted, on the bot's clock.
    public var postedAt: Date?

    /// A slot from its parts.
    public init(minute: Int, state: State, sourceTweetID: Int64? = nil, botTweetID: Int64? = nil, reason: String? = nil, postedAt: Date? = nil) {
        self.minute = minute; self.state = state; self.sourceTweetID = sourceTweetID; self.botTweetID = botTweetID; self.reason = reason
        self.postedAt = postedAt
    }
}

/// A slot left `posting` by a process that stopped mid-post, with the tweet it was sending when that was noted.
public struct InterruptedSlot: Sendable, Equatable {
    /// The slot's minute.
    public var minute: Int
    /// The human's tweet it was sending; nil when the process stopped before picking one.
    public var sourceTweetID: Int64?
    /// That tweet's text, when it is still in the archive.
    public var text: String?

    /// A slot from its parts.
    public init(minute: Int, sourceTweetID: Int64?, text: String?) { self.minute = minute; self.sourceTweetID = sourceTweetID; self.text = text }
}

/// The stored day plans and their slots (tables `day_plans`, `plan_slots`): the Poster's memory across restarts.
/// The statements live apart by dialect (`PlanStore+Postgres.swift`, `PlanStore+SQLite.swift`).
public struct PlanStore: Sendable {
    /// The database.
    public let database: ArchiveDatabase

    /// A store in `database`.
    public init(database: ArchiveDatabase) { self.database = database }

    private var statements: any PlanStatements {
        switch database.backend {
        case .postgres: PostgresPlanStore(database: database)
        case .sqlite: SQLitePlanStore(database: database)
        }
    }

    /// The slots of `day` (`YYYY-MM-DD`), ascending; nil when no plan was stored for it.
    public func slots(of day: String) async throws -> [PlanSlot]? { try await statements.slots(of: day) }

    /// When the plan of `day` was drawn, on the bot's clock (when the poster began that day); nil when none is stored.
    public func drawnAt(of day: String) async throws -> Date? { try await statements.drawnAt(of: day) }

    /// Stores the plan of `day` unless one is stored already (another process may have been first), and returns
    /// the plan that is stored.
    public func storePlan(day: String, timeZone: String, minutes: [Int], drawnAt: Date) async throws -> [PlanSlot] {
        try await statements.storePlan(day: day, timeZone: timeZone, minutes: minutes, drawnAt: drawnAt)
        return try await slots(of: day) ?? []
    }

    /// Claims a planned slot for posting; false when it is not planned any more (posted, skipped or claimed).
    public func claim(day: String, minute: Int) async throws -> Bool { try await statements.claim(day: day, minute: minute) }

    /// Records a claimed slot as posted, and the post in `bot_posts`, in one transaction.
    public func markPosted(day: String, minute: Int, sourceTweetID: Int64, botTweetID: Int64?, postedAt: Date, reason: String) async throws {
        try await statements.markPosted(day: day, minute: minute, sourceTweetID: sourceTweetID, botTweetID: botTweetID, postedAt: postedAt,
                                        reason: reason)
    }

    /// Records a slot as skipped `at` (the bot's clock), with the reason.
    public func markSkipped(day: String, minute: Int, at: Date, reason: String) async throws {
        try await statements.markSkipped(day: day, minute: minute, at: at, reason: reason)
    }

    /// Notes the human's tweet a claimed slot is about to send, so that after a crash the bot can read back whether it
    /// was made.
    public func noteSending(day: String, minute: Int, sourceTweetID: Int64) async throws {
        try await statements.noteSending(day: day, minute: minute, sourceTweetID: sourceTweetID)
    }

    /// The slots of `day` left `posting` by a process that stopped mid-post, with what each was sending.
    public func interrupted(day: String) async throws -> [InterruptedSlot] { try await statements.interrupted(day: day) }

    /// Why an interrupted slot is skipped.
    public static let interruptedReason = "interrupted while posting; the post may or may not exist, so it is not sent again"
}

/// The plan store's statements in one dialect.
protocol PlanStatements: Sendable {
    func slots(of day: String) async throws -> [PlanSlot]?
    func drawnAt(of day: String) async throws -> Date?
    func storePlan(day: String, timeZone: String, minutes: [Int], drawnAt: Date) async throws
    func claim(day: String, minute: Int) async throws -> Bool
    func markPosted(day: String, minute: Int, sourceTweetID: Int64, botTweetID: Int64?, postedAt: Date, reason: String) async throws
    func markSkipped(day: String, minute: Int, at: Date, reason: String) async throws
    func noteSending(day: String, minute: Int, sourceTweetID: Int64) async throws
    func interrupted(day: String) async throws -> [InterruptedSlot]
}
