public import Foundation
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

    /// A slot from its parts.
    public init(minute: Int, state: State, sourceTweetID: Int64? = nil, botTweetID: Int64? = nil, reason: String? = nil) {
        self.minute = minute; self.state = state; self.sourceTweetID = sourceTweetID; self.botTweetID = botTweetID; self.reason = reason
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
        do {
            let plans = try await database.client.query("SELECT 1 FROM day_plans WHERE day = \(day)::date", logger: logger)
            var exists = false
            for try await _ in plans { exists = true }
            guard exists else { return nil }
            let rows = try await database.client.query("""
                SELECT minute, state, source_tweet_id, bot_tweet_id, reason FROM plan_slots
                WHERE day = \(day)::date ORDER BY minute
                """, logger: logger)
            var slots: [PlanSlot] = []
            for try await (minute, state, source, bot, reason) in rows.decode((Int, String, Int64?, Int64?, String?).self) {
                slots.append(PlanSlot(minute: minute, state: PlanSlot.State(rawValue: state) ?? .skipped,
                                      sourceTweetID: source, botTweetID: bot, reason: reason))
            }
            return slots
        } catch {
            throw ArchiveError(operation: "reading the plan of \(day)", underlying: error)
        }
    }

    /// Stores the plan of `day` unless one is stored already (another process may have been first), and returns
    /// the plan that is stored.
    public func storePlan(day: String, timeZone: String, minutes: [Int], drawnAt: Date) async throws -> [PlanSlot] {
        do {
            try await database.client.withTransaction(logger: logger) { connection in
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
        } catch {
            throw ArchiveError(operation: "storing the plan of \(day)", underlying: (error as? PostgresTransactionError)?.closureError ?? error)
        }
        return try await slots(of: day) ?? []
    }

    /// Claims a planned slot for posting; false when it is not planned any more (posted, skipped or claimed).
    public func claim(day: String, minute: Int) async throws -> Bool {
        try await update(day, minute, "claiming slot \(minute) of \(day)", """
            UPDATE plan_slots SET state = 'posting', updated_at = now()
            WHERE day = \(day)::date AND minute = \(minute) AND state = 'planned' RETURNING 1
            """)
    }

    /// Records a claimed slot as posted, and the post in `bot_posts`, in one transaction.
    public func markPosted(day: String, minute: Int, sourceTweetID: Int64, botTweetID: Int64?, postedAt: Date, reason: String) async throws {
        do {
            try await database.client.withTransaction(logger: logger) { connection in
                try await connection.query("""
                    UPDATE plan_slots SET state = 'posted', source_tweet_id = \(sourceTweetID), bot_tweet_id = \(botTweetID),
                                          reason = \(reason), updated_at = now()
                    WHERE day = \(day)::date AND minute = \(minute)
                    """, logger: logger)
                try await connection.query("""
                    INSERT INTO bot_posts (source_tweet_id, bot_tweet_id, posted_at) VALUES (\(sourceTweetID), \(botTweetID), \(postedAt))
                    """, logger: logger)
            }
        } catch {
            throw ArchiveError(operation: "recording slot \(minute) of \(day) as posted",
                               underlying: (error as? PostgresTransactionError)?.closureError ?? error)
        }
    }

    /// Records a slot as skipped, with the reason.
    public func markSkipped(day: String, minute: Int, reason: String) async throws {
        _ = try await update(day, minute, "recording slot \(minute) of \(day) as skipped", """
            UPDATE plan_slots SET state = 'skipped', reason = \(reason), updated_at = now()
            WHERE day = \(day)::date AND minute = \(minute) AND state IN ('planned', 'posting') RETURNING 1
            """)
    }

    /// Slots of `day` left `posting` by a process that stopped mid-post: their outcome is unknown, so they are
    /// skipped (never posted again). Returns their minutes.
    public func skipInterrupted(day: String) async throws -> [Int] {
        do {
            let rows = try await database.client.query("""
                UPDATE plan_slots SET state = 'skipped', updated_at = now(),
                       reason = 'interrupted while posting; the post may or may not exist, so it is not sent again'
                WHERE day = \(day)::date AND state = 'posting' RETURNING minute
                """, logger: logger)
            var minutes: [Int] = []
            for try await minute in rows.decode(Int.self) { minutes.append(minute) }
            return minutes.sorted()
        } catch {
            throw ArchiveError(operation: "recovering interrupted slots of \(day)", underlying: error)
        }
    }

    private func update(_ day: String, _ minute: Int, _ operation: String, _ query: PostgresQuery) async throws -> Bool {
        do {
            let rows = try await database.client.query(query, logger: logger)
            var changed = false
            for try await _ in rows { changed = true }
            return changed
        } catch {
            throw ArchiveError(operation: operation, underlying: error)
        }
    }
}
