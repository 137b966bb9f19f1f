import GRDB
import Stores

/// The bot's small named values in SQLite (`bot_state`).
struct SQLiteBotState: BotState {
    let database: SQLiteStoreSet

    func value(of name: String) async throws -> String? {
        try await database.read("reading \(name)") { db in
            try String.fetchOne(db, sql: "SELECT value FROM bot_state WHERE name = ?", arguments: [name])
        }
    }

    func values() async throws -> [String: String] {
        try await database.read("reading the bot's state") { db in
            Dictionary(
                try Row.fetchAll(db, sql: "SELECT name, value FROM bot_state").map { (try $0.decode(atIndex: 0), try $0.decode(atIndex: 1)) },
                uniquingKeysWith: { $1 })
        }
    }

    func setValue(_ value: String, of name: String) async throws {
        try await database.write("storing \(name)") { db in
            try db.execute(
                sql: """
                    INSERT INTO bot_state (name, value) VALUES (?, ?)
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                    """, arguments: [name, value])
        }
    }

    func removeValue(of name: String) async throws {
        try await database.write("forgetting \(name)") { db in try db.execute(sql: "DELETE FROM bot_state WHERE name = ?", arguments: [name]) }
    }

    func replaceValue(of name: String, expecting expected: String?, with new: String?) async throws -> Bool {
        // One write transaction (GRDB begins it IMMEDIATE): no other writer, in this process or another, comes between
        // the read and the change.
        try await database.write("replacing \(name)") { db in
            let stored = try String.fetchOne(db, sql: "SELECT value FROM bot_state WHERE name = ?", arguments: [name])
            guard stored == expected else { return false }
            if let new {
                try db.execute(
                    sql: """
                        INSERT INTO bot_state (name, value) VALUES (?, ?)
                        ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                        """, arguments: [name, new])
            } else {
                try db.execute(sql: "DELETE FROM bot_state WHERE name = ?", arguments: [name])
            }
            return true
        }
    }
}
