import Foundation
import Logging
import PostgresNIO
public import Stores

/// The Postgres schema's migrations (`Migrations/`, compiled into the binary), each applied in its own transaction
/// under an advisory lock (Heroku's release phase and a post-deploy script can overlap), recorded in
/// `schema_migrations`. A database made by the original Ruby bot (its `posts` table plus Sequel's `schema_info`) is
/// adopted: the first migration creates `posts` only if it does not exist, and the next ones alter it keeping every row.
public struct PostgresMigrations: SchemaMigrations {
    /// The database migrated.
    let database: PostgresStoreSet
    /// The migrations applied, in order.
    public let all: [Migration]

    /// The migrations compiled into this binary.
    public static let bundled: [Migration] = Migration.ordered(embeddedMigrationFiles)

    // Serialises concurrent `migrate` runs.
    private static let advisoryLockKey: Int64 = 0x6d69_7272_6f72_6d67  // "mirrormg"

    /// The migrations of `database`, by default those compiled into this binary.
    public init(database: PostgresStoreSet, migrations: [Migration] = PostgresMigrations.bundled) {
        self.database = database
        all = migrations.sorted { $0.version < $1.version }
    }

    public func migrate() async throws -> [Migration] {
        let logger = database.logger
        try await refuseIfAdopted()
        try await database.transaction("creating the schema_migrations table") { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.advisoryLockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger: logger)
        }
        var applied: [Migration] = []
        for migration in all {
            let didApply = try await database.transaction("applying migration \(migration.version) (\(migration.name))") { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.advisoryLockKey))", logger: logger)
                for try await _ in try await connection.query("SELECT 1 FROM schema_migrations WHERE version = \(migration.version)", logger: logger)
                {
                    return false
                }
                for statement in SQLStatements.split(migration.sql) {
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

    public func appliedVersions() async throws -> [Int] {
        try await refuseIfAdopted()
        // A database never migrated has no schema_migrations table: nothing is applied (asked first, as a query naming a
        // missing table fails however it is filtered).
        let exists =
            try await database.rows("reading applied migrations", "SELECT to_regclass('schema_migrations') IS NOT NULL", as: Bool.self)
            .first ?? false
        guard exists else { return [] }
        return try await database.rows("reading applied migrations", "SELECT version FROM schema_migrations ORDER BY version", as: Int.self)
    }

    /// Throws when the bot whose stores these were was adopted into a fleet (`mirror_bot bots adopt` left a note where
    /// its stores were): it runs there now, and a `start` here would begin again from nothing.
    private func refuseIfAdopted() async throws {
        let adopted =
            try await database.rows("looking for a bot adopted into a fleet", "SELECT to_regclass('adopted_into_fleet') IS NOT NULL", as: Bool.self)
            .first ?? false
        guard adopted,
            let name = try await database.rows("reading where the bot went", "SELECT name FROM adopted_into_fleet LIMIT 1", as: String.self).first
        else {
            return
        }
        throw ArchiveError(
            operation: "opening the stores",
            reason: "this bot was adopted into the fleet as \(name) (`mirror_bot bots adopt`), and its stores went with it: "
                + "`mirror_bot fleet` runs it, and `mirror_bot bots exec \(name) -- COMMAND` runs a command as it")
    }
}
