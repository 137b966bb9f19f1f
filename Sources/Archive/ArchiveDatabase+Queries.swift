import Logging
import PostgresNIO

// The two ways the archive's stores run SQL, so that each store holds only its statements.
extension ArchiveDatabase {
    /// Runs `query` and decodes every row; a failure becomes an `ArchiveError` naming `operation`.
    func rows<each Column: PostgresDecodable>(
        _ operation: String, _ query: PostgresQuery, as types: (repeat each Column).Type
    ) async throws -> [(repeat each Column)] {
        do {
            let rows = try await client.query(query, logger: logger)
            var result: [(repeat each Column)] = []
            for try await row in rows.decode((repeat each Column).self) { result.append(row) }
            return result
        } catch {
            throw ArchiveError(operation: operation, underlying: error)
        }
    }

    /// Runs `body` in a transaction; a failure becomes an `ArchiveError` naming `operation`.
    func transaction<Result: Sendable>(
        _ operation: String, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch {
            throw ArchiveError(operation: operation, underlying: error)
        }
    }
}
