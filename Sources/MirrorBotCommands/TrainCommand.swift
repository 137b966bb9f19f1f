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
        abstract: "Learns from the human's account: the archive (scheduler), the likes (classifier); rebuilds the word counts from the training examples (rebuild); or clears it all (clear).",
        subcommands: [TrainSchedulerCommand.self, TrainClassifierCommand.self, TrainRebuildCommand.self, TrainClearCommand.self]
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
        try await withTrainer { trainer, _ in
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
        discussion: """
            Runs once: a second run does nothing (no API calls) unless --force is given. Every tweet learned is kept as \
            a training example. With FAVORITE_RATE_THRESHOLD=auto (the default), the like threshold (and, with \
            CLASSIFIER=auto, the model) is then chosen by cross-validation on the examples, and printed.
            """
    )

    @Flag(help: "Run even if it has run before.")
    var force = false

    func run() async throws {
        let force = force
        try await withTrainer { trainer, configuration in
            let report = try await trainer.trainClassifier(force: force)
            guard !report.skipped else {
                return "Already trained (trained:classifier is set); nothing fetched. Use --force to learn again."
            }
            let learned = "Learned \(report.favorites) likes as favorite and \(report.normals) timeline tweets as normal (\(report.postsRead) read in \(pages(report.pages)))."
            return learned + "\n" + (try await calibrationLine(trainer.classifier, configuration, trainer.archive.database))
        }
    }
}

/// `mirror_bot train rebuild`.
struct TrainRebuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Recomputes every word count from the stored training examples (after a tokenizer change or a lost Redis).",
        discussion: """
            Replays the examples in the order they were learned, with today's tokenizer, into REDIS_URL (original key \
            layout) or the SQLite file: the counts come out as incremental learning made them. No API calls. Refuses, \
            changing nothing, when no example is stored.
            """
    )

    func run() async throws {
        try await withTrainer(requiresCredentials: false) { trainer, configuration in
            let database = trainer.archive.database
            let report = try await CountsRebuilder(examples: TrainingExamples(database: database), classifier: trainer.classifier)
                .rebuild(progress: trainer.progress)
            let rebuilt = "Rebuilt the word counts from \(report.examples) training examples (\(report.favorites) tweets counted as liked, \(report.normals) as not liked)."
            return rebuilt + "\n" + (try await calibrationLine(trainer.classifier, configuration, database))
        }
    }
}

/// `mirror_bot train clear`.
struct TrainClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Empties the archive, the training examples, and this bot's word counts and training flags (only keys under REDIS_KEY_PREFIX)."
    )

    func run() async throws {
        try await withTrainer(requiresCredentials: false) { trainer, _ in
            try await TrainingExamples(database: trainer.archive.database).removeAll()
            let (tweets, keys) = try await trainer.clear()
            return "Cleared the archive (\(tweets) tweets), the training examples and \(keys) word-count keys."
        }
    }
}

/// "1 page", "3 pages".
private func pages(_ count: Int) -> String { count == 1 ? "1 page" : "\(count) pages" }

/// Builds a trainer from the environment, runs `body`, prints its summary and the API calls it made.
/// With `FAVORITE_RATE_THRESHOLD=auto`, calibrates now on the stored examples and says what was chosen; with a number, says so.
func calibrationLine(_ classifier: FavoriteClassifier, _ configuration: Configuration, _ database: ArchiveDatabase) async throws -> String {
    guard configuration.calibratesFavoriteThreshold else {
        return "Like threshold: \(configuration.favoriteRateThreshold) (FAVORITE_RATE_THRESHOLD); set it to auto to calibrate it."
    }
    let calibration = try await LikeDecision.calibrator(for: classifier, configuration: configuration, database: database).calibrate()
    return "Like " + calibration.result.summary + "."
}

private func withTrainer(requiresCredentials: Bool = true, _ body: (Trainer, Configuration) async throws -> String) async throws {
    var requirements: Set<Configuration.Requirement> = []
    if requiresCredentials { requirements.insert(.humanCredentials) }
    let context = try CommandContext.load(requiring: requirements)
    let configuration = context.configuration
    var credentials: [Account: AccountCredentials] = [:]
    credentials[.human] = configuration.human
    let client = XClient(configuration: .init(baseURL: configuration.xAPIBaseURL, credentials: credentials), logger: context.logger)
    let store = try WordCountBackends.open(for: configuration).store
    let database = try await context.archiveDatabase()
    let classifier = FavoriteClassifier(store: store, tokenizer: try TweetTokenizer(), threshold: configuration.favoriteRateThreshold,
                                        examples: TrainingExamples(database: database))
    let isTerminal = isatty(STDERR_FILENO) != 0
    let summary = try await database.withRunning { database in
        let archive = TweetArchive(database: database, timeZone: configuration.timeZone, rowLimit: configuration.archiveRowLimit)
        try await archive.prepare()
        let trainer = Trainer(client: client, archive: archive, classifier: classifier, logger: context.logger) { line in
            // Progress overwrites itself on a terminal and is one line per page in logs.
            FileHandle.standardError.write(Data((isTerminal ? "\r\u{1B}[K" + line : line + "\n").utf8))
        }
        return try await body(trainer, configuration)
    }
    if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    let total = client.usage.total
    // The cost goes on the first line (what was fetched); a calibration line may follow.
    let cost = total.calls == 0 ? "" : String(format: " %d API calls, estimated cost $%.3f.", total.calls, client.usage.estimatedCost())
    var lines = summary.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    lines[0] += cost
    print(lines.joined(separator: "\n"))
}
