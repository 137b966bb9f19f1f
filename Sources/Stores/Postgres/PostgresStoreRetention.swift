import Foundation
import PostgresNIO
import Stores

/// The pruning of old records in Postgres: each table in its own statement, all in one transaction.
struct PostgresStoreRetention: StoreRetention {
    let database: PostgresStoreSet

    func prune(at now: Date, policy: RetentionPolicy) async throws -> RemovedRecords {
        let (logsBefore, postsBefore, planDay, keep) = (
            policy.logsBefore(now), policy.postsBefore(now), policy.plansBefore(now), policy.trainingExamples
        )
        let logger = database.logger
        return try await database.transaction("pruning old records") { connection in
            func deleted(_ query: PostgresQuery) async throws -> Int {
                var count = 0
                for try await value in try await connection.query(query, logger: logger).decode(Int64.self) { count = Int(value) }
                return count
            }
            var removed = RemovedRecords()
            removed.mentions = try await deleted(
                "WITH d AS (DELETE FROM mention_replies WHERE handled_at < \(logsBefore) AND state <> 'replying' RETURNING 1) SELECT count(*)::bigint FROM d"
            )
            removed.likes = try await deleted(
                "WITH d AS (DELETE FROM bot_likes WHERE liked_at < \(logsBefore) RETURNING 1) SELECT count(*)::bigint FROM d")
            removed.plans = try await deleted(
                "WITH d AS (DELETE FROM day_plans WHERE day < \(planDay)::date RETURNING 1) SELECT count(*)::bigint FROM d")
            // The like plans go with the day plans (counted with them); posts kept to like, long past liking, with the logs.
            removed.plans += try await deleted(
                "WITH d AS (DELETE FROM like_plans WHERE day < \(planDay)::date RETURNING 1) SELECT count(*)::bigint FROM d")
            _ = try await deleted(
                "WITH d AS (DELETE FROM like_candidates WHERE posted_at < \(logsBefore) RETURNING 1) SELECT count(*)::bigint FROM d")
            removed.posts = try await deleted(
                "WITH d AS (DELETE FROM bot_posts WHERE posted_at < \(postsBefore) RETURNING 1) SELECT count(*)::bigint FROM d")
            removed.trainingExamples = try await deleted(
                """
                WITH d AS (DELETE FROM training_examples WHERE seq <= (SELECT seq FROM training_examples ORDER BY seq DESC OFFSET \(keep) LIMIT 1)
                           RETURNING 1)
                SELECT count(*)::bigint FROM d
                """)
            return removed
        }
    }
}

extension PostgresStoreRetention {
    func personRecords() async throws -> [String: Int] { try await personQueries(deleting: false, "counting what was learned from the person") }

    func forgetPerson() async throws -> [String: Int] { try await personQueries(deleting: true, "forgetting the person") }

    /// A count (or a delete that counts) per table of `PersonRecords`, in one transaction; the names are constants of
    /// the schema.
    private func personQueries(deleting: Bool, _ operation: String) async throws -> [String: Int] {
        let logger = database.logger
        let targets = PersonRecords.tables.map { ($0, "") } + [(PersonRecords.stateTable, " WHERE NOT \(PersonRecords.keptCondition)")]
        return try await database.transaction(operation) { connection in
            var counts: [String: Int] = [:]
            for (table, condition) in targets {
                let sql =
                    deleting
                    ? "WITH d AS (DELETE FROM \(table)\(condition) RETURNING 1) SELECT count(*)::bigint FROM d"
                    : "SELECT count(*)::bigint FROM \(table)\(condition)"
                for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int64.self) {
                    counts[table] = Int(value)
                }
            }
            return counts
        }
    }
}
