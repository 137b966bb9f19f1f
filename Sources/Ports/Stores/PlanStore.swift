public import BotCore
public import Foundation

/// The stored day plans and their slots (tables `day_plans`, `plan_slots`): the poster's memory across restarts.
public protocol PlanStore: Sendable {
    /// The slots of `day` (`YYYY-MM-DD`), ascending; nil when no plan was stored for it.
    func slots(of day: String) async throws -> [PlanSlot]?
    /// When the plan of `day` was drawn, on the bot's clock (when the poster began that day); nil when none is stored.
    func drawnAt(of day: String) async throws -> Date?
    /// Stores the plan of `day` unless one is stored already (another process may have been first), and returns the
    /// plan that is stored.
    func storePlan(day: String, timeZone: String, minutes: [Int], drawnAt: Date) async throws -> [PlanSlot]
    /// Claims a planned slot for posting; false when it is not planned any more (posted, skipped or claimed).
    func claim(day: String, minute: Int) async throws -> Bool
    /// Records a claimed slot as posted, and the post in the record of posts, in one transaction. `unchecked`: posted
    /// without its original's existence check (it could not be answered, or made in time), to be looked up later.
    func markPosted(
        day: String, minute: Int, sourcePostID: PostID, botPostID: PostID?, postedAt: Date, reason: String,
        unchecked: Bool) async throws
    /// Records a slot as skipped `at` (the bot's clock), with the reason.
    func markSkipped(day: String, minute: Int, at: Date, reason: String) async throws
    /// Notes the person's post a claimed slot is about to send, so that after a crash the bot can read back whether
    /// it was made.
    func noteSending(day: String, minute: Int, sourcePostID: PostID) async throws
    /// The slots of `day` left `posting` by a process that stopped mid-post, with what each was sending.
    func interrupted(day: String) async throws -> [InterruptedSlot]
    /// The slots posted unchecked whose original has not been looked up since, oldest first.
    func uncheckedPosts() async throws -> [UncheckedPost]
    /// Records that the original of the slot `day` `minute`, posted unchecked, was looked up `at` (found, or its copy
    /// deleted).
    func markChecked(day: String, minute: Int, at date: Date) async throws
}

extension PlanStore {
    /// Records a claimed slot as posted after its original was checked (or with no check asked for).
    public func markPosted(day: String, minute: Int, sourcePostID: PostID, botPostID: PostID?, postedAt: Date, reason: String) async throws {
        try await markPosted(
            day: day, minute: minute, sourcePostID: sourcePostID, botPostID: botPostID, postedAt: postedAt, reason: reason,
            unchecked: false)
    }
}

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
    /// The person's post it posted, once posted.
    public var sourcePostID: PostID?
    /// The bot's post, once posted.
    public var botPostID: PostID?
    /// Why it was skipped, or what was posted.
    public var reason: String?
    /// When it was posted, on the bot's clock.
    public var postedAt: Date?
    /// Whether it was posted without its original's existence check.
    public var postedUnchecked: Bool
    /// When its original was looked up after it was posted unchecked.
    public var originalCheckedAt: Date?

    /// A slot from its parts.
    public init(
        minute: Int, state: State, sourcePostID: PostID? = nil, botPostID: PostID? = nil, reason: String? = nil, postedAt: Date? = nil,
        postedUnchecked: Bool = false, originalCheckedAt: Date? = nil
    ) {
        self.minute = minute
        self.state = state
        self.sourcePostID = sourcePostID
        self.botPostID = botPostID
        self.reason = reason
        self.postedAt = postedAt
        self.postedUnchecked = postedUnchecked
        self.originalCheckedAt = originalCheckedAt
    }

    /// Why an interrupted slot is skipped.
    public static let interruptedReason = "interrupted while posting; the post may or may not exist, so it is not sent again"
}

/// A slot left `posting` by a process that stopped mid-post, with the post it was sending when that was noted.
public struct InterruptedSlot: Sendable, Equatable {
    /// The slot's minute.
    public var minute: Int
    /// The person's post it was sending; nil when the process stopped before picking one.
    public var sourcePostID: PostID?
    /// That post's text, when it is still in the archive.
    public var text: String?

    /// A slot from its parts.
    public init(minute: Int, sourcePostID: PostID?, text: String?) {
        self.minute = minute
        self.sourcePostID = sourcePostID
        self.text = text
    }
}

/// A slot posted without its original's existence check, waiting for the check.
public struct UncheckedPost: Sendable, Equatable {
    /// The slot's day.
    public var day: String
    /// The slot's minute.
    public var minute: Int
    /// The person's original.
    public var sourcePostID: PostID
    /// The bot's copy, when known.
    public var botPostID: PostID?
    /// When it was posted, on the bot's clock.
    public var postedAt: Date

    /// A post from its parts.
    public init(day: String, minute: Int, sourcePostID: PostID, botPostID: PostID?, postedAt: Date) {
        self.day = day
        self.minute = minute
        self.sourcePostID = sourcePostID
        self.botPostID = botPostID
        self.postedAt = postedAt
    }
}
