import ArgumentParser
import BotAssembly
import Stores

/// `mirror_bot migrate`: brings the archive's database up to date.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Creates or updates the archive's tables in DATABASE_URL (or the SQLite file). Safe to run on every deploy.",
        discussion: """
            Applies the SQL files of Migrations/ that are not yet recorded in the schema_migrations table, each in \
            its own transaction. Without DATABASE_URL, the archive is the SQLite file MIRROR_BOT_DATA (default \
            mirror_bot.sqlite) and the files of Migrations/sqlite/ are applied; the other commands do this by \
            themselves for the SQLite file. A database made by the original Ruby mirror_bot is adopted with all its posts. \
            Then recomputes the stored minutes of the day if TZ changed since the last run.
            """
    )

    func run() async throws {
        let context = try CommandContext.load()
        let parts = try BotParts(configuration: context.configuration, logger: context.logger)
        let applied = try await parts.withRunningAsIs { database in
            let applied = try await database.migrations.migrate()
            try await parts.archive.prepare()
            return applied.map { "\($0.version) (\($0.name))" }
        }
        if applied.isEmpty {
            print("The database (\(parts.database.location)) is up to date; no migration to apply.")
        } else {
            print("Applied \(applied.count) migration\(applied.count == 1 ? "" : "s"): \(applied.joined(separator: ", ")).")
        }
    }
}
