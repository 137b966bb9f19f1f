import Foundation
import PostgresNIO
import Stores

/// The likes made, in Postgres (`bot_likes`).
struct PostgresLikeLog: LikeLog {
    let database: PostgresStoreSet

    func likedAmong(_ tweetIDs: [Int64]) async throws -> Set<Int64> {
        Set(try await database.rows("reading likes", "SELECT tweet_id FROM bot_likes WHERE tweet_id = ANY(\(tweetIDs)::bigint[])", as: Int64.self))
    }

    func recordLike(tweetID: Int64, authorID: Int64?, logRatio: Double, reason: String, at date: Date) async throws -> Bool {
        try await !database.rows("recording the like of \(tweetID)", """
            INSERT INTO bot_likes (tweet_id, author_id, log_ratio, reason, liked_at)
            VALUES (\(tweetID), \(authorID), \(RecordedLike.storable(logRatio)), \(reason), \(date)) ON CONFLICT (tweet_id) DO NOTHING RETURNING 1
            """, as: Int.self).isEmpty
    }

    func count() async throws -> Int {
        try await database.rows("counting likes", "SELECT count(*)::bigint FROM bot_likes", as: Int64.self).first.map(Int.init) ?? 0
    }

    func likes() async throws -> [RecordedLike] {
        try await database.rows("reading the likes", """
            SELECT tweet_id, author_id, log_ratio, reason, liked_at FROM bot_likes ORDER BY liked_at, tweet_id
            """, as: (Int64, Int64?, Double?, String, Date).self).map {
            RecordedLike(tweetID: $0.0, authorID: $0.1, logRatio: $0.2 ?? 0, reason: $0.3, likedAt: $0.4)
        }
    }
}
