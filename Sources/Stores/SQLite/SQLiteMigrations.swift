internal import GRDB
public import Stores

/// The SQLite file's migrations (`Migrations/sqlite/`, compiled into the binary). One writer at a time by design, so no
/// lock is needed; each file runs whole in one write transaction, recorded in `schema_migrations`. The file is the
/// bot's own and every command brings it up to date, so each migration is a debug line.
public struct SQLiteMigrations: SchemaMigrations {
    /// The file migrated.
    let database: SQLiteStoreSet
    /// The migrations applied, in order.
    public let all: [Migration]

    /// The migrations compiled into this binary.
    public static let bundled: [Migration] = Migration.ordered(embeddedSQLiteMigrationFiles)

    /// The migrations of `database`, by default those compiled into this binary.
    public init(database: SQLiteStoreSet, migrations: [Migration] = SQLiteMigrations.bundled) {
        self.database = database
        all = migrations.sorted { $0.version < $1.version }
    }

    public func migrate() async throws -> [Migration] {
        var applied: [Migration] = []
        for migration in all {
            if try await database.write("applying migration \(migration.version) (\(migration.name))", { db in try Self.apply(migration, in: db) }) {
                database.logger.debug("Applied migration \(migration.version) (\(migration.name)) to \(database.location).")
                applied.append(migration)
            }
        }
        return applied
    }

    public func appliedVersions() async throws -> [Int] {
        try await database.read("reading applied migrations") { db in
            try db.tableExists("schema_migrations") ? Int.fetchAll(db, sql: "SELECT version FROM schema_migrations ORDER BY version") : []
        }
    }

    /// Applies the migrations not yet recorded to the file `pool` holds, blocking the calling thread (for stores opened
    /// synchronously, such as the word counts); returns those it applied.
    @discardableResult
    static func migrate(_ pool: DatabasePool) throws -> [Migration] {
        try bundled.filter { migration in try pool.write { db in try apply(migration, in: db) } }
    }

    /// Applies `migration` inside the current write transaction unless `schema_migrations` records it; whether it did.
    private static func apply(_ migration: Migration, in db: Database) throws -> Bool {
        try db.execute(
            sql: """
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
}
