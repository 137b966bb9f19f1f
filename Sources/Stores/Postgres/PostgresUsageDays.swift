import Foundation
import PostgresNIO
import Stores

/// A paid network's bill per day and run, in Postgres (`api_usage_days`).
struct PostgresUsageDays: UsageDays {
    let database: PostgresStoreSet

    func record(_ entry: UsageEntry) async throws {
        _ = try await database.rows(
            "recording the API usage of \(entry.day)",
            """
            INSERT INTO api_usage_days (day, run_id, command, bill, cost)
            VALUES (\(entry.day)::date, \(entry.runID), \(entry.command), \(entry.bill), \(entry.cost))
            ON CONFLICT (day, run_id) DO UPDATE SET bill = excluded.bill, cost = excluded.cost, updated_at = now()
            RETURNING 1
            """, as: Int.self)
    }

    func spent(on day: String, excludingRun runID: String) async throws -> Double {
        try await database.rows(
            "reading the API usage of \(day)",
            """
            SELECT coalesce(sum(cost), 0)::double precision FROM api_usage_days WHERE day = \(day)::date AND run_id <> \(runID)
            """, as: Double.self
        ).first ?? 0
    }

    func entries(since day: String) async throws -> [UsageEntry] {
        try await database.rows(
            "reading the API usage since \(day)",
            """
            SELECT to_char(day, 'YYYY-MM-DD'), run_id, command, bill, cost FROM api_usage_days
            WHERE day >= \(day)::date ORDER BY day, updated_at
            """, as: (String, String, String, String, Double).self
        ).map { UsageEntry(day: $0.0, runID: $0.1, command: $0.2, bill: $0.3, cost: $0.4) }
    }

    func removeDays(before day: String) async throws {
        _ = try await database.rows("pruning the API usage", "DELETE FROM api_usage_days WHERE day < \(day)::date RETURNING 1", as: Int.self)
    }
}
