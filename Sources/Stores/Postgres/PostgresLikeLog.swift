import BotCore
import Foundation
import PostgresNIO
import Stores

/// The likes made, in Postgres (`bot_likes`), and what they are planned from and with (`person_likes`, `like_plans`,
/// `like_slots`, `like_candidates`).
struct PostgresLikeLog: LikeLog {
    let database: PostgresStoreSet

    func likedAmong(_ postIDs: [PostID]) async throws -> Set<PostID> {
        Set(try await database.rows("reading likes", "SELECT tweet_id FROM bot_likes WHERE tweet_id = ANY(\(postIDs)::text[])", as: PostID.self))
    }

    func recordLike(postID: PostID, authorID: AccountID?, logRatio: Double, reason: String, at date: Date) async throws -> Bool {
        try await !database.rows(
            "recording the like of \(postID)",
            """
            INSERT INTO bot_likes (tweet_id, author_id, log_ratio, reason, liked_at)
            VALUES (\(postID), \(authorID), \(RecordedLike.storable(logRatio)), \(reason), \(date)) ON CONFLICT (tweet_id) DO NOTHING RETURNING 1
            """, as: Int.self
        ).isEmpty
    }

    func count() async throws -> Int {
        try await database.rows("counting likes", "SELECT count(*)::bigint FROM bot_likes", as: Int64.self).first.map(Int.init) ?? 0
    }

    func likes() async throws -> [RecordedLike] {
        try await database.rows(
            "reading the likes",
            """
            SELECT tweet_id, author_id, log_ratio, reason, liked_at FROM bot_likes ORDER BY liked_at, length(tweet_id), tweet_id COLLATE "C"
            """, as: (PostID, AccountID?, Double?, String, Date).self
        ).map {
            RecordedLike(postID: $0.0, authorID: $0.1, logRatio: $0.2 ?? 0, reason: $0.3, likedAt: $0.4)
        }
    }

    func recordPersonLikes(_ likes: [PersonLike]) async throws -> Int {
        guard !likes.isEmpty else { return 0 }
        // An exact time replaces an estimated one; nothing else changes a stored like.
        return try await database.rows(
            "recording \(likes.count) of the person's likes",
            """
            WITH stored AS (
                INSERT INTO person_likes (post_id, liked_at, exact)
                SELECT p, a, e FROM unnest(\(likes.map(\.postID))::text[], \(likes.map(\.likedAt))::timestamptz[], \(likes.map(\.isExact))::boolean[]) AS l(p, a, e)
                ON CONFLICT (post_id) DO UPDATE SET liked_at = excluded.liked_at, exact = true
                    WHERE excluded.exact AND NOT person_likes.exact
                RETURNING (xmax = 0) AS inserted
            )
            SELECT count(*) FILTER (WHERE inserted)::bigint FROM stored
            """, as: Int64.self
        ).first.map(Int.init) ?? 0
    }

    func personLikes() async throws -> [PersonLike] {
        try await database.rows(
            "reading the person's likes",
            "SELECT post_id, liked_at, exact FROM person_likes ORDER BY liked_at, length(post_id), post_id COLLATE \"C\"",
            as: (PostID, Date, Bool).self
        ).map { PersonLike(postID: $0.0, likedAt: $0.1, isExact: $0.2) }
    }

    func likeSlots(of day: String) async throws -> [LikeSlot]? {
        let rows = try await database.rows(
            "reading the like plan of \(day)",
            """
            SELECT s.minute, s.state, s.post_id, s.log_ratio, s.reason, s.done_at
            FROM like_plans p LEFT JOIN like_slots s ON s.day = p.day WHERE p.day = \(day)::date ORDER BY s.minute
            """, as: (Int?, String?, PostID?, Double?, String?, Date?).self)
        guard !rows.isEmpty else { return nil }
        return rows.compactMap { minute, state, post, ratio, reason, doneAt in
            minute.map {
                LikeSlot(
                    minute: $0, state: state.flatMap(LikeSlot.State.init(rawValue:)) ?? .skipped, postID: post, logRatio: ratio,
                    reason: reason, doneAt: doneAt)
            }
        }
    }

    func storeLikePlan(day: String, minutes: [Int], drawnAt: Date) async throws -> [LikeSlot] {
        let logger = database.logger
        try await database.transaction("storing the like plan of \(day)") { connection in
            var isNew = false
            for try await _ in try await connection.query(
                """
                INSERT INTO like_plans (day, drawn_at) VALUES (\(day)::date, \(drawnAt)) ON CONFLICT (day) DO NOTHING RETURNING 1
                """, logger: logger)
            { isNew = true }
            if isNew && !minutes.isEmpty {
                try await connection.query(
                    """
                    INSERT INTO like_slots (day, minute) SELECT \(day)::date, m FROM unnest(\(minutes)::integer[]) AS m ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
        }
        return try await likeSlots(of: day) ?? []
    }

    func markLiked(day: String, minute: Int, like: RecordedLike) async throws -> Bool {
        let logger = database.logger
        return try await database.transaction("recording like slot \(minute) of \(day) as liked") { connection in
            // Both or neither: a slot planned, and a post not liked before.
            var done = false
            for try await _ in try await connection.query(
                """
                WITH slot AS (
                    UPDATE like_slots SET state = 'liked', post_id = \(like.postID), log_ratio = \(RecordedLike.storable(like.logRatio)),
                                          reason = \(like.reason), done_at = \(like.likedAt)
                    WHERE day = \(day)::date AND minute = \(minute) AND state = 'planned'
                      AND NOT EXISTS (SELECT 1 FROM bot_likes WHERE tweet_id = \(like.postID))
                    RETURNING 1
                )
                INSERT INTO bot_likes (tweet_id, author_id, log_ratio, reason, liked_at)
                SELECT \(like.postID), \(like.authorID), \(RecordedLike.storable(like.logRatio)), \(like.reason), \(like.likedAt) FROM slot
                RETURNING 1
                """, logger: logger)
            { done = true }
            try await connection.query("DELETE FROM like_candidates WHERE post_id = \(like.postID)", logger: logger)
            return done
        }
    }

    func markLikeSkipped(day: String, minute: Int, at date: Date, reason: String) async throws {
        _ = try await database.rows(
            "recording like slot \(minute) of \(day) as skipped",
            """
            UPDATE like_slots SET state = 'skipped', reason = \(reason), done_at = \(date)
            WHERE day = \(day)::date AND minute = \(minute) AND state = 'planned' RETURNING 1
            """, as: Int.self)
    }

    func keepCandidates(_ candidates: [LikeCandidate]) async throws {
        guard !candidates.isEmpty else { return }
        _ = try await database.rows(
            "keeping \(candidates.count) posts to like",
            """
            INSERT INTO like_candidates (post_id, author_id, author_handle, log_ratio, reason, posted_at)
            SELECT p, NULLIF(a, ''), NULLIF(h, ''), r, w, t
            FROM unnest(\(candidates.map(\.postID))::text[], \(candidates.map { $0.authorID?.text ?? "" })::text[],
                        \(candidates.map { $0.authorHandle ?? "" })::text[], \(candidates.map { RecordedLike.storable($0.logRatio) })::float8[],
                        \(candidates.map(\.reason))::text[], \(candidates.map(\.postedAt))::timestamptz[]) AS c(p, a, h, r, w, t)
            WHERE NOT EXISTS (SELECT 1 FROM bot_likes WHERE tweet_id = p)
            ON CONFLICT (post_id) DO NOTHING RETURNING 1
            """, as: Int.self)
    }

    func candidates(postedSince since: Date) async throws -> [LikeCandidate] {
        try await database.rows(
            "reading the posts kept to like",
            """
            SELECT c.post_id, c.author_id, c.author_handle, c.log_ratio, c.reason, c.posted_at FROM like_candidates c
            WHERE c.posted_at >= \(since) AND NOT EXISTS (SELECT 1 FROM bot_likes l WHERE l.tweet_id = c.post_id)
            ORDER BY c.log_ratio DESC, c.posted_at DESC, length(c.post_id) DESC, c.post_id COLLATE "C" DESC
            """, as: (PostID, AccountID?, String?, Double, String, Date).self
        ).map {
            LikeCandidate(postID: $0.0, authorID: $0.1, authorHandle: $0.2, logRatio: $0.3, reason: $0.4, postedAt: $0.5)
        }
    }

    func forgetCandidates(postedBefore date: Date?, postID: PostID?) async throws {
        _ = try await database.rows(
            "forgetting posts kept to like",
            """
            WITH d AS (DELETE FROM like_candidates WHERE posted_at < \(date ?? .distantPast) OR post_id = \(postID?.text ?? "") RETURNING 1)
            SELECT count(*)::bigint FROM d
            """, as: Int64.self)
    }
}
