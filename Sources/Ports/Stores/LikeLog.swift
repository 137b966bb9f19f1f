public import Foundation

/// Every like the bot made, with its reason (table `bot_likes`): a post is never liked twice.
public protocol LikeLog: Sendable {
    /// The ids among `tweetIDs` the bot has already liked.
    func likedAmong(_ tweetIDs: [Int64]) async throws -> Set<Int64>
    /// Records a like and its reason; false when the post was liked before.
    @discardableResult func recordLike(tweetID: Int64, authorID: Int64?, logRatio: Double, reason: String, at date: Date) async throws -> Bool
    /// How many likes were recorded.
    func count() async throws -> Int
    /// Every like the bot made, oldest first.
    func likes() async throws -> [RecordedLike]
}

/// A like the bot made, with its reason.
public struct RecordedLike: Sendable, Equatable {
    /// The liked post.
    public var tweetID: Int64
    /// Its author, when known.
    public var authorID: Int64?
    /// The filter's log ratio.
    public var logRatio: Double
    /// The logged reason (`log ratio 2.31 > 1.10 (ラーメン, 新宿)`).
    public var reason: String
    /// When, on the bot's clock.
    public var likedAt: Date

    /// A like from its parts.
    public init(tweetID: Int64, authorID: Int64?, logRatio: Double, reason: String, likedAt: Date) {
        self.tweetID = tweetID; self.authorID = authorID; self.logRatio = logRatio; self.reason = reason; self.likedAt = likedAt
    }

    /// A log ratio every database can store: an infinite one becomes ±1e300.
    public static func storable(_ logRatio: Double) -> Double { logRatio.isFinite ? logRatio : (logRatio > 0 ? 1e300 : -1e300) }
}
