public import Foundation
import GRDB
import Logging
import PostgresNIO

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

/// The stored day plans and their slots (tables `day_plans`, `plan_slots`): the Poster's memory across restarts.
public struct PlanStore: Sendable {
    /// The database.
    public let database: ArchiveDatabase
    private var logger: Logger { database.logger }

    /// A store in `database`.
    public init(database: ArchiveDatabase) { self.database = database }

    /// The slots of `day` (`YYYY-MM-DD`), ascending; nil when no plan was stored for it.
    public func slots(of day: String) async throws -> [PlanSlot]? {
        if case .sqlite = database.backend {
            return try await database.read("reading the plan of \(day)") { db in
                let rows = try Row.fetchAll(db, sql: """
                    SELECT s.minute, s.state, s.source_tweet_id, s.bot_tweet_id, s.reason, s.posted_at
                    FROM day_plans p LEFT JOIN plan_slots s ON s.day = p.day WHERE p.day = ? ORDER BY s.minute
                    """, arguments: [day])
                guard !rows.isEmpty else { return nil }
                return rows.compactMap { row in
                    (row[0] as Int?).map { PlanSlot(minute: $0, state: (row[1] as String?).flatMap(PlanSlot.State.init(rawValue:)) ?? .skipped,
                                                    sourceTweetID: row[2], botTweetID: row[3], reason: row[4], postedAt: row[5]) }
                }
            }
        }
        // One query: the plan's row, joined with its slots (none for a day planned with no posts).
        let rows = try await database.rows("reading the plan of \(day)", """
            SELECT s.minute, s.state, s.source_tweet_id, s.bot_tweet_id, s.reason, s.posted_at
            FROM day_plans p LEFT JOIN plan_slots s ON s.day = p.day
            WHERE p.day = \(day)::date ORDER BY s.minute
            """, as: (Int?, String?, Int64?, Int64?, String?, Date?).self)
        guard !rows.isEmpty else { return nil }
        return rows.compactMap { minute, state, source, bot, reason, postedAt in
            minute.map { PlanSlot(minute: $0, state: state.flatMap(PlanSlot.State.init(rawValue:)) ?? .skipped,
                                  sourceTweetID: source, botTweetID: bot, reason: reason, postedAt: postedAt) }
        }
    }

    /// Stores the plan of `day` unless one is stored already (another process may have been first), and returns
    /// the plan that is stored.
    public func storePlan(day: String, timeZone: String, minutes: [Int], drawnAt: Date) async throws -> [PlanSlot] {
        if case .sqlite = database.backend {
            try await database.write("storing the plan of \(day)") { db in
                try db.execute(sql: "INSERT INTO day_plans (day, time_zone, drawn_at) VALUES (?, ?, ?) ON CONFLICT (day) DO NOTHING",
                               arguments: [day, timeZone, drawnAt])
                guard db.changesCount > 0 else { return }
                let insert = try db.cachedStatement(sql: "INSERT INTO plan_slots (day, minute) VALUES (?, ?) ON CONFLICT DO NOTHING")
                for minute in minutes { try insert.execute(arguments: [day, minute]) }
            }
            return try await slots(of: day) ?? []
        }
        try await database.transaction("storing the plan of \(day)") { connection in
            let inserted = try await connection.query("""
                INSERT INTO day_plans (day, time_zone, drawn_at) VALUES (\(day)::date, \(timeZone), \(drawnAt))
                ON CONFLICT (day) DO NOTHING RETURNING 1
                """, logger: logger)
            var isNew = false
            for try await _ in inserted { isNew = true }
            if isNew && !minutes.isEmpty {
                try await connection.query("""
                    INSERT INTO plan_slots (day, minute) SELECT \(day)::date, m FROM unnest(\(minutes)::integer[]) AS m
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
        }
        return try await slots(of: day) ?? []
    }

    /// Claims a planned slot for posting; false when it is not planned any more (posted, skipped or claimed).
    public func claim(day: String, minute: Int) async throws -> Bool {
        if case .sqlite = database.backend {
            return try await database.write("claiming slot \(minute) of \(day)") { db in
                try db.execute(sql: """
                    UPDATE plan_slots SET state = 'posting', updated_at = ? WHERE day = ? AND minute = ? AND state = 'planned'
                    """, arguments: [Date(), day, minute])
                return db.changesCount > 0
            }
        }
        return try await !database.rows("claiming slot \(minute) of \(day)", """
            UPDATE plan_slots SET state = 'posting', updated_at = now()
            WHERE day = \(day)::date AND minute = \(minute) AND state = 'planned' RETURNING 1
            """, as: Int.self).isEmpty
    }

    /// Records a claimed slot as posted, and the post in `bot_posts`, in one transaction.
    public func markPosted(day: String, minute: Int, sourceTweetID: Int64, botTweetID: Int64?, postedAt: Date, reason: String) async throws {
        if case .sqlite = database.backend {
            return try await database.write("recording slot \(minute) of \(day) as posted") { db in
                try db.execute(sql: """
                    UPDATE plan_slots SET state = 'posted', source_tweet_id = ?, bot_tweet_id = ?, reason = ?, posted_at = ?, updated_at = ?
                    WHERE day = ? AND minute = ?
                    """, arguments: [sourceTweetID, botTweetID, reason, postedAt, Date(), day, minute])
                try db.execute(sql: "INSERT INTO bot_posts (source_tweet_id, bot_tweet_id, posted_at) VALUES (?, ?, ?)",
                               arguments: [sourceTweetID, botTweetID, postedAt])
            }
        }
        try await database.transaction("recording slot \(minute) of \(day) as posted") { connection in
            try await connection.query("""
                UPDATE plan_slots SET state = 'posted', source_tweet_id = \(sourceTweetID), bot_tweet_id = \(botTweetID),
                                      reason = \(reason), posted_at = \(postedAt), updated_at = now()
                WHERE day = \(day)::date AND minute = \(minute)
                """, logger: logger)
            try await connection.query("""
                INSERT INTO bot_posts (source_tweet_id, bot_tweet_id, posted_at) VALUES (\(sourceTweetID), \(botTweetID), \(postedAt))
                """, logger: logger)
        }
    }

    /// Records a slot as skipped, with the reason.
    public func markSkipped(day: String, minute: Int, reason: String) async throws {
        if case .sqlite = database.backend {
            return try await database.write("recording slot \(minute) of \(day) as skipped") { db in
                try db.execute(sql: """
                    UPDATE plan_slots SET state = 'skipped', reason = ?, updated_at = ?
                    WHERE day = ? AND minute = ? AND state IN ('planned', 'posting')
                    """, arguments: [reason, Date(), day, minute])
            }
        }
        _ = try await database.rows("recording slot \(minute) of \(day) as skipped", """
            UPDATE plan_slots SET state = 'skipped', reason = \(reason), updated_at = now()
            WHERE day = \(day)::date AND minute = \(minute) AND state IN ('planned', 'posting') RETURNING 1
            """, as: Int.self)
    }

    /// Slots of `day` left `posting` by a process that stopped mid-post: their outcome is unknown, so they are
    /// skipped (never posted again). Returns their minutes.
    public func skipInterrupted(day: String) async throws -> [Int] {
        if case .sqlite = database.backend {
            return try await database.write("recovering interrupted slots of \(day)") { db in
                let minutes = try Int.fetchAll(db, sql: "SELECT minute FROM plan_slots WHERE day = ? AND state = 'posting' ORDER BY minute",
                                               arguments: [day])
                try db.execute(sql: """
                    UPDATE plan_slots SET state = 'skipped', updated_at = ?,
                           reason = 'interrupted while posting; the post may or may not exist, so it is not sent again'
                    WHERE day = ? AND state = 'posting'
                    """, arguments: [Date(), day])
                return minutes
            }
        }
        let minutes: [Int] = try await database.rows("recovering interrupted slots of \(day)", """
            UPDATE plan_slots SET state = 'skipped', updated_at = now(),
                   reason = 'interrupted while posting; the post may or may not exist, so it is not sent again'
            WHERE day = \(day)::date AND state = 'posting' RETURNING minute
            """, as: Int.self)
        return minutes.sorted()
    }
}
