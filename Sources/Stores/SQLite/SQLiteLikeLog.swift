import Foundation
import GRDB
import Stores

/// The likes made, in SQLite (`bot_likes`).
struct SQLiteLikeLog: LikeLog {
    let database: SQLiteStoreSet

    func likedAmong(_ tweetIDs: [Int64]) async throws -> Set<Int64> {
        Set(try await database.read("reading likes") { db in
            try Int64.fetchAll(db, sql: "SELECT tweet_id FROM bot_likes WHERE tweet_id IN (SELECT value FROM json_each(?))",
                               arguments: [ArchiveRules.jsonArray(tweetIDs)])
        })
    }

    func recordLike(tweetID: Int64, authorID: Int64?, logRatio: Double, reason: String, at date: Date) async throws -> Bool {
        try await database.write("recording the like of \(tweetID)") { db in
            try db.execute(sql: """
                INSERT INTO bot_likes (tweet_id, author_id, log_ratio, reason, liked_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (tweet_id) DO NOTHING
                """, arguments: [tweetID, authorID, RecordedLike.storable(logRatio), reason, date])
            return db.changesCount > 0
        }
    }

    func count() async throws -> Int {
        try await database.read("counting likes") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM bot_likes") ?? 0 }
    }

    func likes() async throws -> [RecordedLike] {
        try await database.read("reading the likes") { db in
            try Row.fetchAll(db, sql: "SELECT tweet_id, author_id, log_ratio, reason, liked_at FROM bot_likes ORDER BY liked_at, tweet_id").map {
                RecordedLike(tweetID: $0[0], authorID: $0[1], logRatio: $0[2] ?? 0, reason: $0[3], likedAt: $0[4])
            }
        }
    }
}
