import BotAssembly
import BotConfiguration
import Logging

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
}

/// Sends log lines to standard error, so that standard output carries only what a command prints for people
/// and scripts. Call once, before anything logs.
public func bootstrapLogging() {
    LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
}
