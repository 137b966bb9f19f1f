import BotCore
import Foundation
import GRDB
import Stores

/// The likes made, in SQLite (`bot_likes`), and what they are planned from and with (`person_likes`, `like_plans`,
/// `like_slots`, `like_candidates`).
struct SQLiteLikeLog: LikeLog {
    let database: SQLiteStoreSet

    func likedAmong(_ postIDs: [PostID]) async throws -> Set<PostID> {
        Set(
            try await database.read("reading likes") { db in
                try PostID.fetchAll(
                    db, sql: "SELECT tweet_id FROM bot_likes WHERE tweet_id IN (SELECT value FROM json_each(?))",
                    arguments: [ArchiveRules.jsonArray(postIDs)])
            })
    }

    func recordLike(postID: PostID, authorID: AccountID?, logRatio: Double, reason: String, at date: Date) async throws -> Bool {
        try await database.write("recording the like of \(postID)") { db in
            try db.execute(
                sql: """
                    INSERT INTO bot_likes (tweet_id, author_id, log_ratio, reason, liked_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (tweet_id) DO NOTHING
                    """, arguments: [postID, authorID, RecordedLike.storable(logRatio), reason, date])
            return db.changesCount > 0
        }
    }

    func count() async throws -> Int {
        try await database.read("counting likes") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM bot_likes") ?? 0 }
    }

    func likes() async throws -> [RecordedLike] {
        try await database.read("reading the likes") { db in
            try Row.fetchAll(
                db, sql: "SELECT tweet_id, author_id, log_ratio, reason, liked_at FROM bot_likes ORDER BY liked_at, length(tweet_id), tweet_id"
            ).map {
                RecordedLike(
                    postID: try $0.decode(atIndex: 0), authorID: try $0.decode(atIndex: 1), logRatio: try $0.decode(atIndex: 2) ?? 0,
                    reason: try $0.decode(atIndex: 3), likedAt: try $0.decode(atIndex: 4))
            }
        }
    }

    func recordPersonLikes(_ likes: [PersonLike]) async throws -> Int {
        guard !likes.isEmpty else { return 0 }
        return try await database.write("recording \(likes.count) of the person's likes") { db in
            let insert = try db.cachedStatement(
                sql: "INSERT INTO person_likes (post_id, liked_at, exact) VALUES (?, ?, ?) ON CONFLICT (post_id) DO NOTHING")
            // An exact time replaces an estimated one; nothing else changes a stored like.
            let exact = try db.cachedStatement(sql: "UPDATE person_likes SET liked_at = ?, exact = 1 WHERE post_id = ? AND exact = 0")
            var inserted = 0
            for like in likes {
                try insert.execute(arguments: [like.postID, like.likedAt, like.isExact])
                if db.changesCount > 0 { inserted += 1 } else if like.isExact { try exact.execute(arguments: [like.likedAt, like.postID]) }
            }
            return inserted
        }
    }

    func personLikes() async throws -> [PersonLike] {
        try await database.read("reading the person's likes") { db in
            try Row.fetchAll(db, sql: "SELECT post_id, liked_at, exact FROM person_likes ORDER BY liked_at, length(post_id), post_id").map {
                PersonLike(postID: try $0.decode(atIndex: 0), likedAt: try $0.decode(atIndex: 1), isExact: try $0.decode(atIndex: 2))
            }
        }
    }

    func likeSlots(of day: String) async throws -> [LikeSlot]? {
        try await database.read("reading the like plan of \(day)") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT s.minute, s.state, s.post_id, s.log_ratio, s.reason, s.done_at
                    FROM like_plans p LEFT JOIN like_slots s ON s.day = p.day WHERE p.day = ? ORDER BY s.minute
                    """, arguments: [day])
            guard !rows.isEmpty else { return nil }
            return try rows.compactMap { row in
                try row.decode(Int?.self, atIndex: 0).map {
                    LikeSlot(
                        minute: $0, state: try row.decode(String?.self, atIndex: 1).flatMap(LikeSlot.State.init(rawValue:)) ?? .skipped,
                        postID: try row.decode(atIndex: 2), logRatio: try row.decode(atIndex: 3), reason: try row.decode(atIndex: 4),
                        doneAt: try row.decode(atIndex: 5))
                }
            }
        }
    }

    func storeLikePlan(day: String, minutes: [Int], drawnAt: Date) async throws -> [LikeSlot] {
        try await database.write("storing the like plan of \(day)") { db in
            try db.execute(sql: "INSERT INTO like_plans (day, drawn_at) VALUES (?, ?) ON CONFLICT (day) DO NOTHING", arguments: [day, drawnAt])
            guard db.changesCount > 0 else { return }
            let insert = try db.cachedStatement(sql: "INSERT INTO like_slots (day, minute) VALUES (?, ?) ON CONFLICT DO NOTHING")
            for minute in minutes { try insert.execute(arguments: [day, minute]) }
        }
        return try await likeSlots(of: day) ?? []
    }

    func markLiked(day: String, minute: Int, like: RecordedLike) async throws -> Bool {
        try await database.write("recording like slot \(minute) of \(day) as liked") { db in
            // Both or neither: a slot planned, and a post not liked before.
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM bot_likes WHERE tweet_id = ?", arguments: [like.postID]) == nil else { return false }
            try db.execute(
                sql: """
                    UPDATE like_slots SET state = 'liked', post_id = ?, log_ratio = ?, reason = ?, done_at = ?
                    WHERE day = ? AND minute = ? AND state = 'planned'
                    """, arguments: [like.postID, RecordedLike.storable(like.logRatio), like.reason, like.likedAt, day, minute])
            guard db.changesCount > 0 else { return false }
            try db.execute(
                sql: "INSERT INTO bot_likes (tweet_id, author_id, log_ratio, reason, liked_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [like.postID, like.authorID, RecordedLike.storable(like.logRatio), like.reason, like.likedAt])
            try db.execute(sql: "DELETE FROM like_candidates WHERE post_id = ?", arguments: [like.postID])
            return true
        }
    }

    func markLikeSkipped(day: String, minute: Int, at date: Date, reason: String) async throws {
        try await database.write("recording like slot \(minute) of \(day) as skipped") { db in
            try db.execute(
                sql: "UPDATE like_slots SET state = 'skipped', reason = ?, done_at = ? WHERE day = ? AND minute = ? AND state = 'planned'",
                arguments: [reason, date, day, minute])
        }
    }

    func keepCandidates(_ candidates: [LikeCandidate]) async throws {
        guard !candidates.isEmpty else { return }
        try await database.write("keeping \(candidates.count) posts to like") { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO like_candidates (post_id, author_id, author_handle, log_ratio, reason, posted_at)
                    SELECT ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM bot_likes WHERE tweet_id = ?) ON CONFLICT (post_id) DO NOTHING
                    """)
            for candidate in candidates {
                try insert.execute(arguments: [
                    candidate.postID, candidate.authorID, candidate.authorHandle, RecordedLike.storable(candidate.logRatio),
                    candidate.reason, candidate.postedAt, candidate.postID,
                ])
            }
        }
    }

    func candidates(postedSince since: Date) async throws -> [LikeCandidate] {
        try await database.read("reading the posts kept to like") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT c.post_id, c.author_id, c.author_handle, c.log_ratio, c.reason, c.posted_at FROM like_candidates c
                    WHERE c.posted_at >= ? AND NOT EXISTS (SELECT 1 FROM bot_likes l WHERE l.tweet_id = c.post_id)
                    ORDER BY c.log_ratio DESC, c.posted_at DESC, length(c.post_id) DESC, c.post_id DESC
                    """, arguments: [since])
            return database.decodedRows(rows, of: "the posts kept to like") {
                LikeCandidate(
                    postID: try $0.decode(atIndex: 0), authorID: try $0.decode(atIndex: 1), authorHandle: try $0.decode(atIndex: 2),
                    logRatio: try $0.decode(atIndex: 3), reason: try $0.decode(atIndex: 4), postedAt: try $0.decode(atIndex: 5))
            }
        }
    }

    func forgetCandidates(postedBefore date: Date?, postID: PostID?) async throws {
        try await database.write("forgetting posts kept to like") { db in
            try db.execute(
                sql: "DELETE FROM like_candidates WHERE posted_at < ? OR post_id = ?", arguments: [date ?? .distantPast, postID?.text ?? ""])
        }
    }
}
