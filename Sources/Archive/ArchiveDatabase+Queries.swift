import BotClock
import GRDB
import Logging
import PostgresNIO

// The ways the archive's stores run SQL, so that each store holds only its statements: `rows` and `transaction`
// for Postgres, `read` and `write` for SQLite. Each is called only in its backend's branch of a store's `switch`.
extension ArchiveDatabase {
    /// Runs `query` on Postgres and decodes every row; a failure becomes an `ArchiveError` naming `operation`.
    func rows<each Column: PostgresDecodable & Sendable>(
        _ operation: String, _ query: PostgresQuery, as types: (repeat each Column).Type
    ) async throws -> [(repeat each Column)] {
        let client = try postgres(operation)
        let logger = logger
        return try await limited(operation) {
            let rows = try await client.query(query, logger: logger)
            var result: [(repeat each Column)] = []
            for try await row in rows.decode((repeat each Column).self) { result.append(row) }
            return result
        }
    }

    /// Runs `body` in a Postgres transaction; a failure becomes an `ArchiveError` naming `operation`.
    func transaction<Result: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let client = try postgres(operation)
        let logger = logger
        return try await limited(operation) {
            try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// Runs `work` within `operationTimeLimit` (when set): a Postgres that does not answer fails the operation with
    /// an `ArchiveError` after that long, instead of holding the caller while the pool keeps trying to connect.
    private func limited<Result: Sendable>(_ operation: String, _ work: @escaping @Sendable () async throws -> Result) async throws -> Result {
        do {
            guard let limit = operationTimeLimit else { return try await work() }
            return try await withTimeLimit(limit, work)
        } catch let error as TimeLimitExceeded {
            throw ArchiveError(operation: operation, reason: "Postgres \(error)")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw ArchiveError(operation: operation, underlying: error)
        }
    }

    /// Runs `body` in an SQLite read transaction; a failure becomes an `ArchiveError` naming `operation`.
    func read<Result: Sendable>(_ operation: String, _ body: @Sendable @escaping (Database) throws -> Result) async throws -> Result {
        do { return try await sqlite(operation).read(body) } catch { throw ArchiveError(operation: operation, underlying: error) }
    }

    /// Runs `body` in an SQLite write transaction (all or nothing); a failure becomes an `ArchiveError`.
    func write<Result: Sendable>(_ operation: String, _ body: @Sendable @escaping (Database) throws -> Result) async throws -> Result {
        do { return try await sqlite(operation).write(body) } catch { throw ArchiveError(operation: operation, underlying: error) }
    }

    private func postgres(_ operation: String) throws -> PostgresClient {
        guard case .postgres(let client, _) = backend else { throw ArchiveError(operation: operation, reason: "not a Postgres database") }
        return client
    }

    private func sqlite(_ operation: String) throws -> DatabasePool {
        guard case .sqlite(let pool, _) = backend else { throw ArchiveError(operation: operation, reason: "not an SQLite database") }
        return pool
    }
}
