public import Foundation
import GRDB
import PostgresNIO

/// How long the bot keeps what it records, so that its stores stay within small plans (Heroku's essential-0
/// Postgres holds 1 GB): the logs of mentions and likes, the day plans and the record of posts for `logDays`
/// (posts at least `REPOST_AFTER_DAYS`, which the "not again" rule reads), and the newest `trainingExamples`
/// training examples (the calibration reads the newest 50,000; `train rebuild` replays what is kept). The archive of
/// the person's tweets has its own cap (`ARCHIVE_ROW_LIMIT`), and X's usage record its own (40 days, kept by the
/// spend recorder).
public struct StoreRetention: Sendable {
    /// How much is kept.
    public struct Policy: Sendable, Equatable {
        /// Days of mention, like and plan records.
        public var logDays: Int
        /// Days of the record of posts (the no-repeat rule's memory).
        public var postedDays: Int
        /// Training examples kept, newest first.
        public var trainingExamples: Int

        /// A policy; the defaults fit the small plans. `repostAfterDays` (`REPOST_AFTER_DAYS`) is never shortened.
        public init(logDays: Int = 90, repostAfterDays: Int = 30, trainingExamples: Int = 100_000) {
            self.logDays = logDays; self.postedDays = max(logDays, repostAfterDays + 1)
            self.trainingExamples = trainingExamples
        }
    }

    /// What one pruning removed.
    public struct Removed: Sendable, Equatable, CustomStringConvertible {
        /// Mention records.
        public var mentions = 0
        /// Like records.
        public var likes = 0
        /// Day plans (with their slots).
        public var plans = 0
        /// Records of posts.
        public var posts = 0
        /// Training examples.
        public var trainingExamples = 0

        /// Counts from their parts.
        public init(mentions: Int = 0, likes: Int = 0, plans: Int = 0, posts: Int = 0, trainingExamples: Int = 0) {
            self.mentions = mentions; self.likes = likes; self.plans = plans; self.posts = posts; self.trainingExamples = trainingExamples
        }

        /// Records removed in all.
        public var total: Int { mentions + likes + plans + posts + trainingExamples }

        /// "12 mention records, 3 day plans, …" (what was removed), or "nothing".
        public var description: String {
            let parts = [(mentions, "mention records"), (likes, "like records"), (plans, "day plans"), (posts, "records of posts"),
                         (trainingExamples, "training examples")].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
        }
    }

    /// The database.
    public let database: ArchiveDatabase

    /// Pruning of `database`.
    public init(database: ArchiveDatabase) { self.database = database }

    /// Removes what `policy` no longer keeps at `now`; each table in its own statement, all in one transaction.
    public func prune(at now: Date, policy: Policy) async throws -> Removed {
        let logsBefore = now.addingTimeInterval(-Double(policy.logDays) * 86_400)
        let postsBefore = now.addingTimeInterval(-Double(policy.postedDays) * 86_400)
        let planDay = Self.dayString(logsBefore)
        let keep = policy.trainingExamples
        switch database.backend {
        case .postgres:
            let logger = database.logger
            return try await database.transaction("pruning old records") { connection in
                func deleted(_ query: PostgresQuery) async throws -> Int {
                    var count = 0
                    for try await value in try await connection.query(query, logger: logger).decode(Int64.self) { count = Int(value) }
                    return count
                }
                var removed = Removed()
                removed.mentions = try await deleted("WITH d AS (DELETE FROM mention_replies WHERE handled_at < \(logsBefore) AND state <> 'replying' RETURNING 1) SELECT count(*)::bigint FROM d")
                removed.likes = try await deleted("WITH d AS (DELETE FROM bot_likes WHERE liked_at < \(logsBefore) RETURNING 1) SELECT count(*)::bigint FROM d")
                removed.plans = try await deleted("WITH d AS (DELETE FROM day_plans WHERE day < \(planDay)::date RETURNING 1) SELECT count(*)::bigint FROM d")
                removed.posts = try await deleted("WITH d AS (DELETE FROM bot_posts WHERE posted_at < \(postsBefore) RETURNING 1) SELECT count(*)::bigint FROM d")
                removed.trainingExamples = try await deleted("""
                    WITH d AS (DELETE FROM training_examples WHERE seq <= (SELECT seq FROM training_examples ORDER BY seq DESC OFFSET \(keep) LIMIT 1)
                               RETURNING 1)
                    SELECT count(*)::bigint FROM d
                    """)
                return removed
            }
        case .sqlite:
            return try await database.write("pruning old records") { db in
                func deleted(_ sql: String, _ arguments: StatementArguments) throws -> Int {
                    try db.execute(sql: sql, arguments: arguments)
                    return db.changesCount
                }
                var removed = Removed()
                removed.mentions = try deleted("DELETE FROM mention_replies WHERE handled_at < ? AND state <> 'replying'", [logsBefore])
                removed.likes = try deleted("DELETE FROM bot_likes WHERE liked_at < ?", [logsBefore])
                // The slots go with their plan (the foreign key's ON DELETE CASCADE needs foreign keys on: said here).
                try db.execute(sql: "DELETE FROM plan_slots WHERE day < ?", arguments: [planDay])
                removed.plans = try deleted("DELETE FROM day_plans WHERE day < ?", [planDay])
                removed.posts = try deleted("DELETE FROM bot_posts WHERE posted_at < ?", [postsBefore])
                removed.trainingExamples = try deleted("""
                    DELETE FROM training_examples WHERE seq <= (SELECT seq FROM training_examples ORDER BY seq DESC LIMIT 1 OFFSET ?)
                    """, [keep])
                return removed
            }
        }
    }

    /// `YYYY-MM-DD` of `date` in UTC (plans are kept by whole days; a zone's hours do not matter here).
    public static func dayString(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }
}
