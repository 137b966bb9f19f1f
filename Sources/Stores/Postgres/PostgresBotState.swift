import PostgresNIO
import Stores

/// The bot's small named values in Postgres (`bot_state`).
struct PostgresBotState: BotState {
    let database: PostgresStoreSet

    func value(of name: String) async throws -> String? {
        try await database.rows("reading \(name)", "SELECT value FROM bot_state WHERE name = \(name)", as: String.self).first
    }

    func values() async throws -> [String: String] {
        Dictionary(try await database.rows("reading the bot's state", "SELECT name, value FROM bot_state", as: (String, String).self)
            .map { ($0.0, $0.1) }, uniquingKeysWith: { $1 })
    }

    func setValue(_ value: String, of name: String) async throws {
        _ = try await database.rows("storing \(name)", """
            INSERT INTO bot_state (name, value) VALUES (\(name), \(value))
            ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = now() RETURNING 1
            """, as: Int.self)
    }

    func removeValue(of name: String) async throws {
        _ = try await database.rows("forgetting \(name)", "DELETE FROM bot_state WHERE name = \(name) RETURNING 1", as: Int.self)
    }
}
