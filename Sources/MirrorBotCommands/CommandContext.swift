import Archive
import BotConfiguration
public import Logging

/// What every subcommand starts from: the configuration read from the environment and a logger.
struct CommandContext {
    var configuration: Configuration
    var logger: Logger

    /// Reads the process environment (and `.env`), checking that `requirements` are met.
    static func load(requiring requirements: Set<Configuration.Requirement> = []) throws -> CommandContext {
        let configuration = try Configuration.fromProcessEnvironment()
        try configuration.require(requirements)
        var logger = Logger(label: "mirror_bot")
        logger.logLevel = Logger.Level(rawValue: configuration.logLevel.rawValue) ?? .info
        return CommandContext(configuration: configuration, logger: logger)
    }

    /// The archive's database: Postgres at `DATABASE_URL`, or the SQLite file `MIRROR_BOT_DATA`. The SQLite file is
    /// the bot's own, so it is created and migrated here (a Postgres database is migrated by `mirror_bot migrate`).
    func archiveDatabase() async throws -> ArchiveDatabase {
        let database = try ArchiveDatabase.open(for: configuration, logger: logger)
        if case .sqlite = database.backend { try await Migrator().migrate(database) }
        return database
    }
}

/// Sends log lines to standard error, so that standard output carries only what a command prints for people
/// and scripts. Call once, before anything logs.
public func bootstrapLogging() {
    LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
}
