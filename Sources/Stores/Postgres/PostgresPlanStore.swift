import BotCore
import Foundation
import Logging
import PostgresNIO
import Stores

/// The day plans and their slots in Postgres.
struct PostgresPlanStore: PlanStore {
    let database: PostgresStoreSet
    private var logger: Logger { database.logger }

    func slots(of day: String) async throws -> [PlanSlot]? {
        // One query: the plan's row, joined with its slots (none for a day planned with no posts).
        let rows = try await database.rows(
            "reading the plan of \(day)",
            """
            SELECT s.minute, s.state, s.source_tweet_id, s.bot_tweet_id, s.reason, s.posted_at, s.posted_unchecked, s.original_checked_at
            FROM day_plans p LEFT JOIN plan_slots s ON s.day = p.day
            WHERE p.day = \(day)::date ORDER BY s.minute
            """, as: (Int?, String?, PostID?, PostID?, String?, Date?, Bool?, Date?).self)
        guard !rows.isEmpty else { return nil }
        return rows.compactMap { minute, state, source, bot, reason, postedAt, unchecked, checkedAt in
            minute.map {
                PlanSlot(
                    minute: $0, state: state.flatMap(PlanSlot.State.init(rawValue:)) ?? .skipped,
                    sourcePostID: source, botPostID: bot, reason: reason, postedAt: postedAt, postedUnchecked: unchecked ?? false,
                    originalCheckedAt: checkedAt)
            }
        }
    }

    func drawnAt(of day: String) async throws -> Date? {
        try await database.rows(
            "reading when the plan of \(day) was drawn", "SELECT drawn_at FROM day_plans WHERE day = \(day)::date",
            as: Date.self
        ).first
    }

    func storePlan(day: String, timeZone: String, minutes: [Int], drawnAt: Date) async throws -> [PlanSlot] {
        let logger = logger
        try await database.transaction("storing the plan of \(day)") { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO day_plans (day, time_zone, drawn_at) VALUES (\(day)::date, \(timeZone), \(drawnAt))
                ON CONFLICT (day) DO NOTHING RETURNING 1
                """, logger: logger)
            var isNew = false
            for try await _ in inserted { isNew = true }
            if isNew && !minutes.isEmpty {
                try await connection.query(
                    """
                    INSERT INTO plan_slots (day, minute) SELECT \(day)::date, m FROM unnest(\(minutes)::integer[]) AS m
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
        }
        return try await slots(of: day) ?? []
    }

    func claim(day: String, minute: Int) async throws -> Bool {
        try await !database.rows(
            "claiming slot \(minute) of \(day)",
            """
            UPDATE plan_slots SET state = 'posting', updated_at = now()
            WHERE day = \(day)::date AND minute = \(minute) AND state = 'planned' RETURNING 1
            """, as: Int.self
        ).isEmpty
    }

    func markPosted(
        day: String, minute: Int, sourcePostID: PostID, botPostID: PostID?, postedAt: Date, reason: String,
        unchecked: Bool
    ) async throws {
        let logger = logger
        try await database.transaction("recording slot \(minute) of \(day) as posted") { connection in
            try await connection.query(
                """
                UPDATE plan_slots SET state = 'posted', source_tweet_id = \(sourcePostID), bot_tweet_id = \(botPostID),
                                      reason = \(reason), posted_at = \(postedAt), posted_unchecked = \(unchecked),
                                      updated_at = now()
                WHERE day = \(day)::date AND minute = \(minute)
                """, logger: logger)
            try await connection.query(
                """
                INSERT INTO bot_posts (source_tweet_id, bot_tweet_id, posted_at) VALUES (\(sourcePostID), \(botPostID), \(postedAt))
                """, logger: logger)
        }
    }

    func markSkipped(day: String, minute: Int, at: Date, reason: String) async throws {
        _ = try await database.rows(
            "recording slot \(minute) of \(day) as skipped",
            """
            UPDATE plan_slots SET state = 'skipped', reason = \(reason), updated_at = \(at)
            WHERE day = \(day)::date AND minute = \(minute) AND state IN ('planned', 'posting') RETURNING 1
            """, as: Int.self)
    }

    func noteSending(day: String, minute: Int, sourcePostID: PostID) async throws {
        _ = try await database.rows(
            "noting what slot \(minute) of \(day) sends",
            """
            UPDATE plan_slots SET source_tweet_id = \(sourcePostID) WHERE day = \(day)::date AND minute = \(minute) AND state = 'posting'
            RETURNING 1
            """, as: Int.self)
    }

    func interrupted(day: String) async throws -> [InterruptedSlot] {
        try await database.rows(
            "reading the interrupted slots of \(day)",
            """
            SELECT s.minute, s.source_tweet_id, t.text FROM plan_slots s LEFT JOIN tweets t ON t.tweet_id = s.source_tweet_id
            WHERE s.day = \(day)::date AND s.state = 'posting' ORDER BY s.minute
            """, as: (Int, PostID?, String?).self
        ).map { InterruptedSlot(minute: $0.0, sourcePostID: $0.1, text: $0.2) }
    }

    func uncheckedPosts() async throws -> [UncheckedPost] {
        try await database.rows(
            "reading the posts whose original was not checked",
            """
            SELECT to_char(day, 'YYYY-MM-DD'), minute, source_tweet_id, bot_tweet_id, posted_at FROM plan_slots
            WHERE posted_unchecked AND original_checked_at IS NULL AND state = 'posted' AND source_tweet_id IS NOT NULL AND posted_at IS NOT NULL ORDER BY posted_at, day, minute
            """, as: (String, Int, PostID, PostID?, Date).self
        ).map {
            UncheckedPost(day: $0.0, minute: $0.1, sourcePostID: $0.2, botPostID: $0.3, postedAt: $0.4)
        }
    }

    func markChecked(day: String, minute: Int, at date: Date) async throws {
        _ = try await database.rows(
            "recording that the original of slot \(minute) of \(day) was checked",
            """
            UPDATE plan_slots SET original_checked_at = \(date) WHERE day = \(day)::date AND minute = \(minute) RETURNING 1
            """, as: Int.self)
    }
}
