import Foundation
import GRDB
import Stores

/// The pruning of old records in SQLite: each table in its own statement, all in one write transaction.
struct SQLiteStoreRetention: StoreRetention {
    let database: SQLiteStoreSet

    func prune(at now: Date, policy: RetentionPolicy) async throws -> RemovedRecords {
        let (logsBefore, postsBefore, planDay, keep) = (
            policy.logsBefore(now), policy.postsBefore(now), policy.plansBefore(now), policy.trainingExamples
        )
        return try await database.write("pruning old records") { db in
            func deleted(_ sql: String, _ arguments: StatementArguments) throws -> Int {
                try db.execute(sql: sql, arguments: arguments)
                return db.changesCount
            }
            var removed = RemovedRecords()
            removed.mentions = try deleted("DELETE FROM mention_replies WHERE handled_at < ? AND state <> 'replying'", [logsBefore])
            removed.likes = try deleted("DELETE FROM bot_likes WHERE liked_at < ?", [logsBefore])
            // The slots go with their plan (the foreign key's ON DELETE CASCADE needs foreign keys on: said here).
            try db.execute(sql: "DELETE FROM plan_slots WHERE day < ?", arguments: [planDay])
            removed.plans = try deleted("DELETE FROM day_plans WHERE day < ?", [planDay])
            // The like plans go with the day plans (counted with them); posts kept to like, long past liking, with the logs.
            removed.plans += try deleted("DELETE FROM like_plans WHERE day < ?", [planDay])
            _ = try deleted("DELETE FROM like_candidates WHERE posted_at < ?", [logsBefore])
            removed.posts = try deleted("DELETE FROM bot_posts WHERE posted_at < ?", [postsBefore])
            removed.trainingExamples = try deleted(
                """
                DELETE FROM training_examples WHERE seq <= (SELECT seq FROM training_examples ORDER BY seq DESC LIMIT 1 OFFSET ?)
                """, [keep])
            return removed
        }
    }
}

extension SQLiteStoreRetention {
    func personRecords() async throws -> [String: Int] {
        try await database.read("counting what was learned from the person") { db in
            var counts: [String: Int] = [:]
            for (table, condition) in Self.personTargets {
                counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)\(condition)") ?? 0
            }
            return counts
        }
    }

    func forgetPerson() async throws -> [String: Int] {
        try await database.write("forgetting the person") { db in
            var counts: [String: Int] = [:]
            for (table, condition) in Self.personTargets {
                try db.execute(sql: "DELETE FROM \(table)\(condition)")
                counts[table] = db.changesCount
            }
            return counts
        }
    }

    /// Each table of `PersonRecords` and the condition of what goes (constants of the schema: no input reaches them).
    private static var personTargets: [(String, String)] {
        PersonRecords.tables.map { ($0, "") } + [(PersonRecords.stateTable, " WHERE NOT \(PersonRecords.keptCondition)")]
    }
}
