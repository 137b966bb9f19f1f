import PostgresNIO
import Stores

/// What the bot's numbers stand for on the network, in Postgres (`network_ids`).
struct PostgresNetworkIDStore: NetworkIDStore {
    let database: PostgresStoreSet

    func remember(_ ids: [Int64: String]) async throws {
        guard !ids.isEmpty else { return }
        let (numbers, values) = (Array(ids.keys), ids.keys.map { ids[$0]! })
        _ = try await database.rows(
            "keeping \(ids.count) network ids",
            """
            INSERT INTO network_ids (number, id) SELECT n, i FROM unnest(\(numbers)::bigint[], \(values)::text[]) AS m(n, i)
            ON CONFLICT (number) DO NOTHING RETURNING 1
            """, as: Int.self)
    }

    func ids(of numbers: [Int64]) async throws -> [Int64: String] {
        guard !numbers.isEmpty else { return [:] }
        let rows = try await database.rows(
            "reading \(numbers.count) network ids",
            "SELECT number, id FROM network_ids WHERE number = ANY(\(numbers)::bigint[])", as: (Int64, String).self)
        return Dictionary(rows.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
    }
}
