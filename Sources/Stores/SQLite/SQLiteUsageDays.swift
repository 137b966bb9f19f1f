import GRDB
import Stores

/// A paid network's bill per day and run, in SQLite (`api_usage_days`).
struct SQLiteUsageDays: UsageDays {
    let database: SQLiteStoreSet

    func record(_ entry: UsageEntry) async throws {
        try await database.write("recording the API usage of \(entry.day)") { db in
            try db.execute(
                sql: """
                    INSERT INTO api_usage_days (day, run_id, command, bill, cost) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (day, run_id) DO UPDATE SET bill = excluded.bill, cost = excluded.cost,
                        updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
                    """, arguments: [entry.day, entry.runID, entry.command, entry.bill, entry.cost])
        }
    }

    func spent(on day: String, excludingRun runID: String) async throws -> Double {
        try await database.read("reading the API usage of \(day)") { db in
            try Double.fetchOne(db, sql: "SELECT coalesce(sum(cost), 0) FROM api_usage_days WHERE day = ? AND run_id <> ?", arguments: [day, runID])
                ?? 0
        }
    }

    func entries(since day: String) async throws -> [UsageEntry] {
        try await database.read("reading the API usage since \(day)") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT day, run_id, command, bill, cost FROM api_usage_days WHERE day >= ? ORDER BY day, updated_at
                    """, arguments: [day]
            ).map {
                UsageEntry(
                    day: try $0.decode(atIndex: 0), runID: try $0.decode(atIndex: 1), command: try $0.decode(atIndex: 2),
                    bill: try $0.decode(atIndex: 3), cost: try $0.decode(atIndex: 4))
            }
        }
    }

    func removeDays(before day: String) async throws {
        try await database.write("pruning the API usage") { db in try db.execute(sql: "DELETE FROM api_usage_days WHERE day < ?", arguments: [day]) }
    }
}
