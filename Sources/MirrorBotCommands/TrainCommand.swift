import EmbeddedStore
import Archive
import ArgumentParser
import BotConfiguration
import Classifier
import Foundation
import RedisClient
import Tokenizer
import Training
import WordCounts
import XAPI

/// `mirror_bot train`: the one-time trainings the post-deploy script runs.
struct TrainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract: "Learns from the human's account: the archive (scheduler), the likes (classifier), or clears both.",
        subcommands: [TrainSchedulerCommand.self, TrainClassifierCommand.self, TrainClearCommand.self]
    )
}

/// `mirror_bot train scheduler [--force]`.
struct TrainSchedulerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scheduler",
        abstract: "Archives the human's most recent tweets (up to 3,200, retweets excluded) for posting and scheduling.",
        discussion: "Runs once: a second run does nothing (no API calls) unless --force is given."
    )

    @Flag(help: "Run even if it has run before.")
    var force = false

    func run() async throws {
        let force = force
        try await withTrainer { trainer in
            let report = try await trainer.trainScheduler(force: force)
            guard !report.skipped else {
                return "Already trained (trained:scheduler is set); nothing fetched. Use --force to fetch again."
            }
            return "Archived \(report.stored) new tweets of the human (\(report.postsRead) read in \(pages(report.pages)), \(report.retweetsSkipped) retweets skipped)."
        }
    }
}

/// `mirror_bot train classifier [--force]`.
struct TrainClassifierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classifier",
        abstract: "Learns 800 of the human's likes as favorite and 800 home-timeline tweets they did not like as normal.",
        discussion: "Runs once: a second run does nothing (no API calls) unless --force is given."
    )

    @Flag(help: "Run even if it has run before.")
    var force = false

    func run() async throws {
        let force = force
        try await withTrainer { trainer in
            let report = try await trainer.trainClassifier(force: force)
            guard !report.skipped else {
                return "Already trained (trained:classifier is set); nothing fetched. Use --force to learn again."
            }
            return "Learned \(report.favorites) likes as favorite and \(report.normals) timeline tweets as normal (\(report.postsRead) read in \(pages(report.pages)))."
        }
    }
}

/// `mirror_bot train clear`.
struct TrainClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Empties the archive and this bot's word counts and training flags (only keys under REDIS_KEY_PREFIX)."
    )

    func run() async throws {
        try await withTrainer(requiresCredentials: false) { trainer in
            let (tweets, keys) = try await trainer.clear()
            return "Cleared the archive (\(tweets) tweets) and \(keys) word-count keys."
        }
    }
}

/// "1 page", "3 pages".
private func pages(_ count: Int) -> String { count == 1 ? "1 page" : "\(count) pages" }

/// Builds a trainer from the environment, runs `body`, prints its summary and the API calls it made.
private func withTrainer(requiresCredentials: Bool = true, _ body: (Trainer) async throws -> String) async throws {
    var requirements: Set<Configuration.Requirement> = []
    if requiresCredentials { requirements.insert(.humanCredentials) }
    let context = try CommandContext.load(requiring: requirements)
    let configuration = context.configuration
    var credentials: [Account: AccountCredentials] = [:]
    credentials[.human] = configuration.human
    let client = XClient(configuration: .init(baseURL: configuration.xAPIBaseURL, credentials: credentials), logger: context.logger)
    let store = try WordCountBackends.open(for: configuration).store
    let classifier = FavoriteClassifier(store: store, tokenizer: try TweetTokenizer(), threshold: configuration.favoriteRateThreshold)
    let database = try await context.archiveDatabase()
    let isTerminal = isatty(STDERR_FILENO) != 0
    let summary = try await database.withRunning { database in
        let archive = TweetArchive(database: database, timeZone: configuration.timeZone, rowLimit: configuration.archiveRowLimit)
        try await archive.prepare()
        let trainer = Trainer(client: client, archive: archive, classifier: classifier, logger: context.logger) { line in
            // Progress overwrites itself on a terminal and is one line per page in logs.
            FileHandle.standardError.write(Data((isTerminal ? "\r\u{1B}[K" + line : line + "\n").utf8))
        }
        return try await body(trainer)
    }
    if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    let total = client.usage.total
    print(summary + (total.calls == 0 ? "" : String(format: " %d API calls, estimated cost $%.3f.", total.calls, client.usage.estimatedCost())))
}
