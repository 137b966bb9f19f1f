import GRDB
import Stores

/// What the bot's numbers stand for on the network, in SQLite (`network_ids`).
struct SQLiteNetworkIDStore: NetworkIDStore {
    let database: SQLiteStoreSet

    func remember(_ ids: [Int64: String]) async throws {
        guard !ids.isEmpty else { return }
        try await database.write("keeping \(ids.count) network ids") { db in
            let statement = try db.makeStatement(sql: "INSERT INTO network_ids (number, id) VALUES (?, ?) ON CONFLICT (number) DO NOTHING")
            for (number, id) in ids { try statement.execute(arguments: [number, id]) }
        }
    }

    func ids(of numbers: [Int64]) async throws -> [Int64: String] {
        guard !numbers.isEmpty else { return [:] }
        return try await database.read("reading \(numbers.count) network ids") { db in
            var found: [Int64: String] = [:]
            // SQLite binds at most 32,766 values a statement: ask in chunks.
            for start in stride(from: 0, to: numbers.count, by: 500) {
                let chunk = Array(numbers[start..<min(start + 500, numbers.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                for row in try Row.fetchAll(
                    db, sql: "SELECT number, id FROM network_ids WHERE number IN (\(marks))", arguments: StatementArguments(chunk))
                {
                    found[try row.decode(atIndex: 0)] = try row.decode(atIndex: 1)
                }
            }
            return found
        }
    }
}
