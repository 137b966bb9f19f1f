import PostgresNIO
import Stores

/// The bot's small named values in Postgres (`bot_state`).
struct PostgresBotState: BotState {
    let database: PostgresStoreSet

    func value(of name: String) async throws -> String? {
        try await database.rows("reading \(name)", "SELECT value FROM bot_state WHERE name = \(name)", as: String.self).first
    }

    func values() async throws -> [String: String] {
        Dictionary(
            try await database.rows("reading the bot's state", "SELECT name, value FROM bot_state", as: (String, String).self)
                .map { ($0.0, $0.1) }, uniquingKeysWith: { $1 })
    }

    func setValue(_ value: String, of name: String) async throws {
        _ = try await database.rows(
            "storing \(name)",
            """
            INSERT INTO bot_state (name, value) VALUES (\(name), \(value))
            ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = now() RETURNING 1
            """, as: Int.self)
    }

    func removeValue(of name: String) async throws {
        _ = try await database.rows("forgetting \(name)", "DELETE FROM bot_state WHERE name = \(name) RETURNING 1", as: Int.self)
    }

    func replaceValue(of name: String, expecting expected: String?, with new: String?) async throws -> Bool {
        // Each case is one statement, whose row lock (or the primary key, for an insert) orders it against another.
        switch (expected, new) {
        case (nil, nil):
            return try await value(of: name) == nil
        case (nil, let new?):
            return try await !database.rows(
                "replacing \(name)",
                """
                INSERT INTO bot_state (name, value) VALUES (\(name), \(new)) ON CONFLICT (name) DO NOTHING RETURNING 1
                """, as: Int.self
            ).isEmpty
        case (let expected?, let new?):
            return try await !database.rows(
                "replacing \(name)",
                """
                UPDATE bot_state SET value = \(new), updated_at = now() WHERE name = \(name) AND value = \(expected) RETURNING 1
                """, as: Int.self
            ).isEmpty
        case (let expected?, nil):
            return try await !database.rows(
                "replacing \(name)",
                """
                DELETE FROM bot_state WHERE name = \(name) AND value = \(expected) RETURNING 1
                """, as: Int.self
            ).isEmpty
        }
    }
}
