public import GRDB
import Logging
import PostgresNIO

/// Applies the migrations of `Migrations/` (Postgres) or `Migrations/sqlite/` (the SQLite file) in order, each in
/// its own transaction, recording each in `schema_migrations` so that running it again does nothing.
///
/// A database made by the original Ruby bot (its `tweets` table plus Sequel's `schema_info`) is adopted: the first
/// migration creates `tweets` only if it does not exist, and the next ones alter it keeping every row.
public struct Migrator: Sendable {
    /// The Postgres migrations this migrator applies, in order.
    public let migrations: [Migration]
    /// The SQLite migrations this migrator applies, in order.
    public let sqliteMigrations: [Migration]

    // Serialises concurrent `migrate` runs (Heroku's release phase and post-deploy script can overlap).
    private static let advisoryLockKey: Int64 = 0x6d69_7272_6f72_6d67  // "mirrormg"

    /// A migrator for `migrations`, by default those compiled into this binary.
    public init(migrations: [Migration] = Migration.bundled, sqliteMigrations: [Migration] = Migration.bundledSQLite) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.sqliteMigrations = sqliteMigrations.sorted { $0.version < $1.version }
    }

    /// The migrations for `database`'s engine.
    public func migrations(for database: ArchiveDatabase) -> [Migration] {
        if case .sqlite = database.backend { sqliteMigrations } else { migrations }
    }

    /// The migrations for `database`'s engine that are not applied yet.
    public func pending(_ database: ArchiveDatabase) async throws -> [Migration] {
        let applied = Set(try await appliedVersions(database))
        return migrations(for: database).filter { !applied.contains($0.version) }
    }

    /// Applies the migrations not yet recorded; returns those it applied.
    @discardableResult
    public func migrate(_ database: ArchiveDatabase) async throws -> [Migration] {
        let logger = database.logger
        if case .sqlite = database.backend { return try await migrateSQLite(database) }
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
        if case .sqlite = database.backend {
            return try await database.read("reading applied migrations") { db in
                try db.tableExists("schema_migrations") ? Int.fetchAll(db, sql: "SELECT version FROM schema_migrations ORDER BY version") : []
            }
        }
        // A database never migrated has no schema_migrations table: nothing is applied (asked first, as a query
        // naming a missing table fails however it is filtered).
        let exists = try await database.rows("reading applied migrations", "SELECT to_regclass('schema_migrations') IS NOT NULL",
                                             as: Bool.self).first ?? false
        guard exists else { return [] }
        return try await database.rows("reading applied migrations", "SELECT version FROM schema_migrations ORDER BY version", as: Int.self)
    }

    /// SQLite: one writer at a time by design, so no lock is needed; each file runs whole in one write transaction.
    /// The file is the bot's own and every command brings it up to date, so each migration is a debug line (the
    /// word counts' pool migrates it silently too; `mirror_bot migrate` prints what it applied).
    private func migrateSQLite(_ database: ArchiveDatabase) async throws -> [Migration] {
        var applied: [Migration] = []
        for migration in sqliteMigrations {
            if try await database.write("applying migration \(migration.version) (\(migration.name))", { db in try Self.apply(migration, in: db) }) {
                database.logger.debug("Applied migration \(migration.version) (\(migration.name)) to \(database.location).")
                applied.append(migration)
            }
        }
        return applied
    }

    /// Applies the SQLite migrations not yet recorded to the file `pool` holds, blocking the calling thread (for
    /// stores opened synchronously, such as the SQLite word counts); returns those it applied.
    @discardableResult
    public func migrateSQLite(_ pool: DatabasePool) throws -> [Migration] {
        try sqliteMigrations.filter { migration in try pool.write { db in try Self.apply(migration, in: db) } }
    }

    /// Applies `migration` inside the current write transaction unless `schema_migrations` records it; whether it did.
    private static func apply(_ migration: Migration, in db: Database) throws -> Bool {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY, name TEXT NOT NULL,
                applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')))
            """)
        guard try Int.fetchOne(db, sql: "SELECT 1 FROM schema_migrations WHERE version = ?", arguments: [migration.version]) == nil
        else { return false }
        try db.execute(sql: migration.sql)
        try db.execute(sql: "INSERT INTO schema_migrations (version, name) VALUES (?, ?)", arguments: [migration.version, migration.name])
        return true
    }

    private func run<Result: Sendable>(
        _ operation: String, _ database: ArchiveDatabase,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await database.transaction(operation, body)
    }
}
