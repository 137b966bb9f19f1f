import Foundation
import GRDB
import Logging
import PostgresNIO

/// X's bill by mirror_bot's own count, per UTC day and process run (table `api_usage_days`): what the daily budget
/// holds to across restarts, and what `doctor` and the usage lines report. Each run writes its own row, so a
/// `train` and a running `start` never overwrite each other.
public struct UsageDays: Sendable {
    /// One run's bill on one UTC day.
    public struct Entry: Sendable, Equatable {
        /// The UTC day, `YYYY-MM-DD`.
        public var day: String
        /// The run that wrote it.
        public var runID: String
        /// The command that ran (`start`, `train scheduler`, ...).
        public var command: String
        /// The counts, as the network's client encodes them (JSON).
        public var bill: String
        /// The cost in US dollars.
        public var cost: Double

        /// An entry from its parts.
        public init(day: String, runID: String, command: String, bill: String, cost: Double) {
            self.day = day; self.runID = runID; self.command = command; self.bill = bill; self.cost = cost
        }
    }

    /// The database.
    public let database: ArchiveDatabase
    private var logger: Logger { database.logger }

    /// The usage in `database`.
    public init(database: ArchiveDatabase) { self.database = database }

    /// Stores a run's bill of a day, replacing what that run stored for that day before.
    public func record(_ entry: Entry) async throws {
        switch database.backend {
        case .postgres:
            _ = try await database.rows("recording the API usage of \(entry.day)", """
                INSERT INTO api_usage_days (day, run_id, command, bill, cost)
                VALUES (\(entry.day)::date, \(entry.runID), \(entry.command), \(entry.bill), \(entry.cost))
                ON CONFLICT (day, run_id) DO UPDATE SET bill = excluded.bill, cost = excluded.cost, updated_at = now()
                RETURNING 1
                """, as: Int.self)
        case .sqlite:
            return try await database.write("recording the API usage of \(entry.day)") { db in
                try db.execute(sql: """
                    INSERT INTO api_usage_days (day, run_id, command, bill, cost) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (day, run_id) DO UPDATE SET bill = excluded.bill, cost = excluded.cost,
                        updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
                    """, arguments: [entry.day, entry.runID, entry.command, entry.bill, entry.cost])
            }
        }
    }

    /// What the runs other than `runID` spent on `day`, in US dollars.
    public func spent(on day: String, excludingRun runID: String = "") async throws -> Double {
        switch database.backend {
        case .postgres:
            return try await database.rows("reading the API usage of \(day)", """
                SELECT coalesce(sum(cost), 0)::double precision FROM api_usage_days WHERE day = \(day)::date AND run_id <> \(runID)
                """, as: Double.self).first ?? 0
        case .sqlite:
            return try await database.read("reading the API usage of \(day)") { db in
                try Double.fetchOne(db, sql: "SELECT coalesce(sum(cost), 0) FROM api_usage_days WHERE day = ? AND run_id <> ?",
                                    arguments: [day, runID]) ?? 0
            }
        }
    }

    /// Every entry of `day` and the days after it, oldest first.
    public func entries(since day: String) async throws -> [Entry] {
        switch database.backend {
        case .postgres:
            return try await database.rows("reading the API usage since \(day)", """
                SELECT to_char(day, 'YYYY-MM-DD'), run_id, command, bill, cost FROM api_usage_days
                WHERE day >= \(day)::date ORDER BY day, updated_at
                """, as: (String, String, String, String, Double).self).map { Entry(day: $0.0, runID: $0.1, command: $0.2, bill: $0.3, cost: $0.4) }
        case .sqlite:
            return try await database.read("reading the API usage since \(day)") { db in
                try Row.fetchAll(db, sql: """
                    SELECT day, run_id, command, bill, cost FROM api_usage_days WHERE day >= ? ORDER BY day, updated_at
                    """, arguments: [day]).map { Entry(day: $0[0], runID: $0[1], command: $0[2], bill: $0[3], cost: $0[4]) }
            }
        }
    }

    /// Deletes the entries of days before `day` (the usage is kept for a while, not forever).
    public func removeDays(before day: String) async throws {
        switch database.backend {
        case .postgres:
            _ = try await database.rows("pruning the API usage", "DELETE FROM api_usage_days WHERE day < \(day)::date RETURNING 1", as: Int.self)
        case .sqlite:
            return try await database.write("pruning the API usage") { db in
                try db.execute(sql: "DELETE FROM api_usage_days WHERE day < ?", arguments: [day])
            }
        }
    }
}
