public import Foundation
import GRDB
import PostgresNIO

/// Every like the bot made, with its reason (table `bot_likes`): a tweet is never liked twice. The statements of
/// both dialects are short, so they stand side by side here.
public struct LikeLog: Sendable {
    /// A like the bot made, with its reason.
    public struct RecordedLike: Sendable, Equatable {
        /// The liked tweet.
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
    }

    /// The database.
    public let database: ArchiveDatabase

    /// The log in `database`.
    public init(database: ArchiveDatabase) { self.database = database }

    /// The ids among `tweetIDs` the bot has already liked.
    public func likedAmong(_ tweetIDs: [Int64]) async throws -> Set<Int64> {
        switch database.backend {
        case .postgres:
            return Set(try await database.rows("reading likes", "SELECT tweet_id FROM bot_likes WHERE tweet_id = ANY(\(tweetIDs)::bigint[])",
                                               as: Int64.self))
        case .sqlite:
            return Set(try await database.read("reading likes") { db in
                try Int64.fetchAll(db, sql: "SELECT tweet_id FROM bot_likes WHERE tweet_id IN (SELECT value FROM json_each(?))",
                                   arguments: [TweetArchive.jsonArray(tweetIDs)])
            })
        }
    }

    /// Records a like and its reason; false when the tweet was liked before.
    @discardableResult
    public func recordLike(tweetID: Int64, authorID: Int64?, logRatio: Double, reason: String, at date: Date) async throws -> Bool {
        let ratio = logRatio.isFinite ? logRatio : (logRatio > 0 ? 1e300 : -1e300)
        switch database.backend {
        case .postgres:
            return try await !database.rows("recording the like of \(tweetID)", """
                INSERT INTO bot_likes (tweet_id, author_id, log_ratio, reason, liked_at)
                VALUES (\(tweetID), \(authorID), \(ratio), \(reason), \(date)) ON CONFLICT (tweet_id) DO NOTHING RETURNING 1
                """, as: Int.self).isEmpty
        case .sqlite:
            return try await database.write("recording the like of \(tweetID)") { db in
                try db.execute(sql: """
                    INSERT INTO bot_likes (tweet_id, author_id, log_ratio, reason, liked_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (tweet_id) DO NOTHING
                    """, arguments: [tweetID, authorID, ratio, reason, date])
                return db.changesCount > 0
            }
        }
    }

    /// How many likes were recorded.
    public func count() async throws -> Int {
        switch database.backend {
        case .postgres:
            return try await database.rows("counting likes", "SELECT count(*)::bigint FROM bot_likes", as: Int64.self).first.map(Int.init) ?? 0
        case .sqlite:
            return try await database.read("counting likes") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM bot_likes") ?? 0 }
        }
    }

    /// Every like the bot made, oldest first.
    public func likes() async throws -> [RecordedLike] {
        switch database.backend {
        case .postgres:
            return try await database.rows("reading the likes", """
                SELECT tweet_id, author_id, log_ratio, reason, liked_at FROM bot_likes ORDER BY liked_at, tweet_id
                """, as: (Int64, Int64?, Double?, String, Date).self).map {
                RecordedLike(tweetID: $0.0, authorID: $0.1, logRatio: $0.2 ?? 0, reason: $0.3, likedAt: $0.4)
            }
        case .sqlite:
            return try await database.read("reading the likes") { db in
                try Row.fetchAll(db, sql: "SELECT tweet_id, author_id, log_ratio, reason, liked_at FROM bot_likes ORDER BY liked_at, tweet_id").map {
                    RecordedLike(tweetID: $0[0], authorID: $0[1], logRatio: $0[2] ?? 0, reason: $0[3], likedAt: $0[4])
                }
            }
        }
    }
}
