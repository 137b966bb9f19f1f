public import Logging
public import PostgresNIO

/// Applies the migrations of `Migrations/` in order, each in its own transaction, recording each in
/// `schema_migrations` so that running it again does nothing.
///
/// A database made by the original Ruby bot (its `tweets` table plus Sequel's `schema_info`) is adopted: the first
/// migration creates `tweets` only if it does not exist, and the next ones alter it keeping every row.
public struct Migrator: Sendable {
    /// The migrations this migrator applies, in order.
    public let migrations: [Migration]

    // Serialises concurrent `migrate` runs (Heroku's release phase and post-deploy script can overlap).
    private static let advisoryLockKey: Int64 = 0x6d69_7272_6f72_6d67  // "mirrormg"

    /// A migrator for `migrations`, by default those compiled into this binary.
    public init(migrations: [Migration] = Migration.bundled) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Applies the migrations not yet recorded; returns those it applied.
    @discardableResult
    public func migrate(_ database: ArchiveDatabase) async throws -> [Migration] {
        let logger = database.logger
        try await run("creating the schema_migrations table", database) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.advisoryLockKey))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger: logger)
        }
        var applied: [Migration] = []
        for migration in migrations {
            let didApply = try await run("applying migration \(migration.version) (\(migration.name))", database) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.advisoryLockKey))", logger: logger)
                let rows = try await connection.query(
                    "SELECT 1 FROM schema_migrations WHERE version = \(migration.version)", logger: logger)
                for try await _ in rows { return false }
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
                return true
            }
            if didApply {
                logger.info("Applied migration \(migration.version) (\(migration.name)).")
                applied.append(migration)
            }
        }
        return applied
    }

    /// The versions recorded as applied, in order.
    public func appliedVersions(_ database: ArchiveDatabase) async throws -> [Int] {
        // to_regclass makes the query answer nothing, not fail, when nothing was ever migrated.
        try await database.rows("reading applied migrations", """
            SELECT version FROM schema_migrations WHERE to_regclass('schema_migrations') IS NOT NULL ORDER BY version
            """, as: Int.self)
    }

    private func run<Result: Sendable>(
        _ operation: String, _ database: ArchiveDatabase,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await database.transaction(operation, body)
    }
}
