public import BotCore
public import Foundation

/// Every like the bot made, with its reason (table `bot_likes`): a post is never liked twice. Beside them, what the
/// likes are planned from and with: the person's own likes with when they gave them (`person_likes`), each day's
/// like slots (`like_plans`, `like_slots`) and the posts kept for them (`like_candidates`).
public protocol LikeLog: Sendable {
    /// The ids among `postIDs` the bot has already liked.
    func likedAmong(_ postIDs: [PostID]) async throws -> Set<PostID>
    /// Records a like and its reason; false when the post was liked before.
    @discardableResult func recordLike(postID: PostID, authorID: AccountID?, logRatio: Double, reason: String, at date: Date) async throws -> Bool
    /// How many likes were recorded.
    func count() async throws -> Int
    /// Every like the bot made, oldest first.
    func likes() async throws -> [RecordedLike]

    /// Stores the person's likes (each post once: a later sighting of a like with an exact time replaces an
    /// estimated one); how many were new.
    @discardableResult func recordPersonLikes(_ likes: [PersonLike]) async throws -> Int
    /// The person's likes, oldest first.
    func personLikes() async throws -> [PersonLike]

    /// The like slots of `day` (`YYYY-MM-DD`), ascending; nil when no like plan was stored for it.
    func likeSlots(of day: String) async throws -> [LikeSlot]?
    /// Stores the like plan of `day` unless one is stored already, and returns the slots that are stored.
    func storeLikePlan(day: String, minutes: [Int], drawnAt: Date) async throws -> [LikeSlot]
    /// Records a planned slot as liked and the like in `bot_likes`, in one transaction; false when the slot is no
    /// longer planned or the post was liked before (nothing is then written).
    @discardableResult func markLiked(day: String, minute: Int, like: RecordedLike) async throws -> Bool
    /// Records a planned slot as skipped `at` (the bot's clock), with the reason.
    func markLikeSkipped(day: String, minute: Int, at date: Date, reason: String) async throws

    /// Keeps posts that passed the like threshold until a like slot takes one (each post once).
    func keepCandidates(_ candidates: [LikeCandidate]) async throws
    /// The kept posts posted at or after `since` and not liked yet, best first (highest log ratio, then newest).
    func candidates(postedSince since: Date) async throws -> [LikeCandidate]
    /// Forgets the kept posts posted before `date` (too old to like), or the one post `postID`.
    func forgetCandidates(postedBefore date: Date?, postID: PostID?) async throws
}

/// A post the person liked, and when.
public struct PersonLike: Sendable, Equatable {
    /// The liked post.
    public var postID: PostID
    /// When the person liked it; when the network does not say, when the post was made (people like what is new on
    /// their timeline), and `isExact` is false.
    public var likedAt: Date
    /// Whether `likedAt` is the like's own time.
    public var isExact: Bool

    /// A like from its parts.
    public init(postID: PostID, likedAt: Date, isExact: Bool) {
        self.postID = postID
        self.likedAt = likedAt
        self.isExact = isExact
    }
}

/// One like slot of a day's plan.
public struct LikeSlot: Sendable, Equatable {
    /// Where a like slot stands.
    public enum State: String, Sendable, Codable {
        /// Waiting for its minute.
        case planned
        /// Liked a post.
        case liked
        /// Not used, for `reason`.
        case skipped
    }

    /// The minute of the day (0–1439) in the person's zone.
    public var minute: Int
    /// Where it stands.
    public var state: State
    /// The post liked.
    public var postID: PostID?
    /// The filter's log ratio of the post liked.
    public var logRatio: Double?
    /// What was liked and why, or why it was skipped.
    public var reason: String?
    /// When it was liked or skipped, on the bot's clock.
    public var doneAt: Date?

    /// A slot from its parts.
    public init(minute: Int, state: State, postID: PostID? = nil, logRatio: Double? = nil, reason: String? = nil, doneAt: Date? = nil) {
        self.minute = minute
        self.state = state
        self.postID = postID
        self.logRatio = logRatio
        self.reason = reason
        self.doneAt = doneAt
    }
}

/// A post that passed the like threshold, kept for the day's like slots.
public struct LikeCandidate: Sendable, Equatable {
    /// The post.
    public var postID: PostID
    /// Its author, when known.
    public var authorID: AccountID?
    /// Its author's handle, when known.
    public var authorHandle: String?
    /// The filter's log ratio.
    public var logRatio: Double
    /// Why the filter would like it (`log ratio 2.31 > 1.10 (ラーメン, 新宿)`).
    public var reason: String
    /// When it was posted (when it was seen, if the network did not say).
    public var postedAt: Date

    /// A candidate from its parts.
    public init(postID: PostID, authorID: AccountID?, authorHandle: String?, logRatio: Double, reason: String, postedAt: Date) {
        self.postID = postID
        self.authorID = authorID
        self.authorHandle = authorHandle
        self.logRatio = logRatio
        self.reason = reason
        self.postedAt = postedAt
    }

    /// Best first: the highest log ratio, then the newest, then the highest id (a total order).
    public static func isBetter(_ a: LikeCandidate, than b: LikeCandidate) -> Bool {
        (a.logRatio, a.postedAt, a.postID) > (b.logRatio, b.postedAt, b.postID)
    }
}

/// A like the bot made, with its reason.
public struct RecordedLike: Sendable, Equatable {
    /// The liked post.
    public var postID: PostID
    /// Its author, when known.
    public var authorID: AccountID?
    /// The filter's log ratio.
    public var logRatio: Double
    /// The logged reason (`log ratio 2.31 > 1.10 (ラーメン, 新宿)`).
    public var reason: String
    /// When, on the bot's clock.
    public var likedAt: Date

    /// A like from its parts.
    public init(postID: PostID, authorID: AccountID?, logRatio: Double, reason: String, likedAt: Date) {
        self.postID = postID
        self.authorID = authorID
        self.logRatio = logRatio
        self.reason = reason
        self.likedAt = likedAt
    }

    /// A log ratio every database can store: an infinite one becomes ±1e300.
    public static func storable(_ logRatio: Double) -> Double { logRatio.isFinite ? logRatio : (logRatio > 0 ? 1e300 : -1e300) }
}
