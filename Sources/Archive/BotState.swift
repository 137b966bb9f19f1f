import Foundation
import GRDB
import PostgresNIO

/// The daemon's small persistent state (table `bot_state`): named values such as `mentions.since_id`, the like
/// calibration, what X refused for good. The statements of both dialects are short, so they stand side by side here.
public struct BotState: Sendable {
    /// The database.
    public let database: ArchiveDatabase

    /// The state in `database`.
    public init(database: ArchiveDatabase) { self.database = database }

    /// A stored value, such as `mentions.since_id`.
    public func value(of name: String) async throws -> String? {
        switch database.backend {
        case .postgres:
            return try await database.rows("reading \(name)", "SELECT value FROM bot_state WHERE name = \(name)", as: String.self).first
        case .sqlite:
            return try await database.read("reading \(name)") { db in
                try String.fetchOne(db, sql: "SELECT value FROM bot_state WHERE name = ?", arguments: [name])
            }
        }
    }

    /// Every stored value, by name.
    public func values() async throws -> [String: String] {
        switch database.backend {
        case .postgres:
            return Dictionary(try await database.rows("reading the bot's state", "SELECT name, value FROM bot_state", as: (String, String).self)
                .map { ($0.0, $0.1) }, uniquingKeysWith: { $1 })
        case .sqlite:
            return try await database.read("reading the bot's state") { db in
                Dictionary(try Row.fetchAll(db, sql: "SELECT name, value FROM bot_state").map { ($0[0], $0[1]) }, uniquingKeysWith: { $1 })
            }
        }
    }

    /// Stores a value.
    public func setValue(_ value: String, of name: String) async throws {
        switch database.backend {
        case .postgres:
            _ = try await database.rows("storing \(name)", """
                INSERT INTO bot_state (name, value) VALUES (\(name), \(value))
                ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = now() RETURNING 1
                """, as: Int.self)
        case .sqlite:
            try await database.write("storing \(name)") { db in
                try db.execute(sql: """
                    INSERT INTO bot_state (name, value) VALUES (?, ?)
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                    """, arguments: [name, value])
            }
        }
    }

    /// Forgets a value (such as a `since_id`, so that reading starts afresh).
    public func removeValue(of name: String) async throws {
        switch database.backend {
        case .postgres:
            _ = try await database.rows("forgetting \(name)", "DELETE FROM bot_state WHERE name = \(name) RETURNING 1", as: Int.self)
        case .sqlite:
            try await database.write("forgetting \(name)") { db in
                try db.execute(sql: "DELETE FROM bot_state WHERE name = ?", arguments: [name])
            }
        }
    }
}
