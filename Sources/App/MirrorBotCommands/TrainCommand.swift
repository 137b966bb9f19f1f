import ArgumentParser
import BotAssembly
import BotConfiguration
import BotCore
import Classifier
import Daemon
import Foundation
import Logging
import SocialNetwork
import Stores
import Training

/// `mirror_bot train`: the one-time trainings the post-deploy script runs.
struct TrainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract:
            "Learns from the human's account: the archive (scheduler), the likes (classifier); rebuilds the word counts from the training examples (rebuild); or clears it all (clear).",
        subcommands: [TrainSchedulerCommand.self, TrainClassifierCommand.self, TrainRebuildCommand.self, TrainClearCommand.self]
    )
}

/// `mirror_bot train scheduler [--force] [--max-posts N] [--yes]`.
struct TrainSchedulerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scheduler",
        abstract: "Archives the human's most recent posts (up to 3,200, reposts excluded) for posting and scheduling.",
        discussion: """
            Runs once: a second run does nothing (no API calls) unless --force is given. Where the network bills \
            reading, the most it may cost is printed first. On a terminal it asks; --yes skips the question; with no \
            terminal and no --yes it goes on only when that fits what is left of today's X_DAILY_BUDGET. `mirror_bot \
            import` trains from your downloaded archive for free.
            """ + networksHelp("train scheduler")
    )

    @Flag(help: "Run even if it has run before.")
    var force = false

    @Option(
        name: [.customLong("max-posts"), .customLong("max-tweets")],
        help: "Read at most this many of the human's newest posts (a network may return fewer; --max-tweets is the old name).")
    var maxPosts = Trainer.schedulerPostLimit

    @Flag(help: "Spend without asking, even above today's X_DAILY_BUDGET.")
    var yes = false

    func validate() throws {
        guard maxPosts >= 1 else { throw ValidationError("--max-posts must be at least 1, not \(maxPosts)") }
    }

    func run() async throws {
        let (force, maxPosts) = (force, maxPosts)
        try await withTrainer(
            command: "train scheduler",
            cost: .init(
                reading: .personsPosts(min(maxPosts, Trainer.schedulerPostLimit)), flag: "scheduler", force: force,
                assumeYes: yes)
        ) { trainer, _, _ in
            let report = try await trainer.trainScheduler(force: force, maxPosts: maxPosts)
            guard !report.skipped else {
                return "Already trained (trained:scheduler is set); nothing fetched. Use --force to fetch again."
            }
            return
                "Archived \(report.stored) new posts of the human (\(report.postsRead) read in \(pages(report.pages)), \(report.retweetsSkipped) reposts skipped)."
        }
    }
}

/// `mirror_bot train classifier [--force] [--yes]`.
struct TrainClassifierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classifier",
        abstract: "Learns 800 of the human's likes as favorite and 800 home-timeline posts they did not like as normal.",
        discussion: """
            Only where the bot likes (LIKES=on, or LIKES=auto, the default, where the network welcomes a bot's likes): \
            otherwise it says so and reads nothing. Runs once: a second run does nothing (no API calls) unless \
            --force is given. The most it may cost is printed first and, as for `train scheduler`, asked on a \
            terminal, skipped with --yes, and otherwise held to today's X_DAILY_BUDGET; `mirror_bot import` learns \
            the likes of your downloaded archive for free. Every post learned is kept as a training example. With \
            FAVORITE_RATE_THRESHOLD=auto (the default), the like threshold (and, with CLASSIFIER=auto, the model) is \
            then chosen by cross-validation on the examples, and printed.
            """ + networksHelp("train classifier")
    )

    @Flag(help: "Run even if it has run before.")
    var force = false

    @Flag(help: "Spend without asking, even above today's X_DAILY_BUDGET.")
    var yes = false

    /// What it reads: the person's likes and their home timeline, 800 each, with each post's author.
    static let reading = PlannedReading.likesAndTimeline(likes: Trainer.classifierPostLimit, timeline: Trainer.classifierPostLimit)

    func run() async throws {
        let context = try CommandContext.load()
        // Liking as the network offers it: with LIKES=auto Mastodon, which welcomes bots' favourites, likes; X does not.
        let network = context.configuration.network(as: [.human], logger: context.logger).network
        let liking = LikingPolicy(setting: context.configuration.behaviour.likes, network: network)
        guard liking.isChosen else {
            guard let why = liking.networkReason else {
                print("The bot does not like (LIKES=off), so the favorite filter is not trained: nothing was read.")
                return
            }
            let setting = context.configuration.behaviour.likes == .off ? "LIKES=off" : "LIKES=auto: \(why)"
            let cost = network.mostItCosts(Self.reading).map { " (\($0.summary))" } ?? ""
            print(
                """
                The bot does not like on \(network.name) (\(setting)), so the favorite filter is not trained from \(network.name): nothing was read, $0.00 spent. \
                `mirror_bot import` learns the likes in your downloaded archive for free; LIKES=on trains from \(network.name)\(cost).
                """)
            return
        }
        let force = force
        try await withTrainer(command: "train classifier", cost: .init(reading: Self.reading, flag: "classifier", force: force, assumeYes: yes)) {
            trainer, configuration, stores in
            let report = try await trainer.trainClassifier(force: force)
            guard !report.skipped else {
                return "Already trained (trained:classifier is set); nothing fetched. Use --force to learn again."
            }
            let learned =
                "Learned \(report.favorites) likes as favorite and \(report.normals) timeline posts as normal (\(report.postsRead) read in \(pages(report.pages)))."
            return learned + "\n" + (try await calibrationLine(trainer.classifier, configuration, stores))
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

    /// Why it does not run beside the bot (a running `start`, or the fleet process running the bot).
    static let whatItChanges = "train rebuild replaces the word counts"

    func run() async throws {
        try await withTrainer(requiresCredentials: false) { trainer, configuration, database in
            try await refuseWhileADaemonRuns(on: database, what: TrainRebuildCommand.whatItChanges)
            let report = try await CountsRebuilder(examples: database.examples, classifier: trainer.classifier)
                .rebuild(progress: trainer.progress)
            let rebuilt =
                "Rebuilt the word counts from \(report.examples) training examples (\(report.favorites) posts counted as liked, \(report.normals) as not liked)."
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

    /// Why it does not run beside the bot (a running `start`, or the fleet process running the bot).
    static let whatItChanges = "train clear empties what it runs on"

    func run() async throws {
        try await withTrainer(requiresCredentials: false) { trainer, _, database in
            try await refuseWhileADaemonRuns(on: database, what: TrainClearCommand.whatItChanges)
            try await database.examples.removeAll()
            let (posts, keys) = try await trainer.clear()
            return "Cleared the archive (\(posts) posts), the training examples and \(keys) word-count keys."
        }
    }
}

/// Why the command `words` (as `bots exec` is given it) may not run while the bot runs, or nil when it may.
func whyNotBesideTheBot(_ words: [String]) -> String? {
    guard words.first == "train", words.count > 1 else { return nil }
    switch words[1] {
    case "rebuild": return TrainRebuildCommand.whatItChanges
    case "clear": return TrainClearCommand.whatItChanges
    default: return nil
    }
}

/// Throws, changing nothing, when a `mirror_bot start` holds this bot's lease: `what` (a sentence) says why the command
/// may not run beside it. (`train scheduler`, `train classifier` and `import` may: every write of theirs is a
/// transaction, and what they learn is learned once, however many processes learn it.)
func refuseWhileADaemonRuns(on database: any StoreSet, what: String) async throws {
    do {
        let lease = try await database.takeLease(logger: Logger(label: "mirror_bot", factory: { _ in SwiftLogNoOpLogHandler() }))
        await lease.release()
    } catch let held as LeaseHeld {
        throw ValidationError("\(what), so it does not run while the bot does: \(held.description)")
    }
}

/// "1 page", "3 pages".
private func pages(_ count: Int) -> String { count == 1 ? "1 page" : "\(count) pages" }

/// Builds a trainer from the environment, runs `body`, prints its summary and the API calls it made.
/// With `FAVORITE_RATE_THRESHOLD=auto`, calibrates now on the stored examples and says what was chosen; with a number, says so.
func calibrationLine(_ classifier: FavoriteClassifier, _ configuration: Configuration, _ database: any StoreSet) async throws -> String {
    guard configuration.behaviour.calibratesFavoriteThreshold else {
        return "Like threshold: \(configuration.behaviour.favoriteRateThreshold) (FAVORITE_RATE_THRESHOLD); set it to auto to calibrate it."
    }
    let calibration = try await LikeDecision.calibrator(for: classifier, settings: configuration.likeSettings, database: database).calibrate()
    return "Like " + calibration.result.summary + "."
}

/// The cost check before a training's first paid read.
struct TrainingCostCheck {
    /// What the training reads, for the most it may cost.
    var reading: PlannedReading
    /// Its `trained:<name>` flag (no check when it would not run).
    var flag: String
    /// `--force`.
    var force: Bool
    /// `--yes`.
    var assumeYes: Bool
}

/// Whether to spend what a training may cost: asked on a terminal, given by `--yes`, otherwise only within what
/// is left of today's budget.
enum SpendingApproval: Equatable {
    /// Go on; the line says why.
    case proceed(String)
    /// Do not read anything; the line says why and what to do.
    case refuse(String)

    /// Decides for a cost of `estimate` dollars when `remaining` dollars of today's `budget` are left.
    static func decide(
        estimate: Double, remaining: Double, budget: Double, command: String, isTerminal: Bool, assumeYes: Bool,
        ask: () -> Bool
    ) -> SpendingApproval {
        if assumeYes { return .proceed("--yes given") }
        if isTerminal {
            return ask()
                ? .proceed("confirmed")
                : .refuse("Not spending it: nothing was read. `mirror_bot import` trains from your downloaded archive for free.")
        }
        if estimate <= remaining + 1e-9 {
            return .proceed(String(format: "within what is left of today's X_DAILY_BUDGET ($%.2f of $%.2f)", remaining, budget))
        }
        return .refuse(
            String(
                format: """
                    %@ could cost up to $%.2f, more than what is left of today's X_DAILY_BUDGET ($%.2f of $%.2f), and there is no terminal to ask: \
                    nothing was read. Run it with --yes to spend it anyway, read less (train scheduler --max-posts N), raise X_DAILY_BUDGET, \
                    or import your downloaded archive for free (`mirror_bot import`).
                    """, command, estimate, max(0, remaining), budget))
    }
}

/// A training that would spend more than approved: nothing was read.
struct SpendingRefused: Error, CustomStringConvertible {
    var description: String
}

/// Builds a trainer from the environment, checks the training's cost when it would run, runs `body`, stores what it
/// spent in the day's usage, and prints its summary with the API calls and X's bill.
private func withTrainer(
    requiresCredentials: Bool = true, command: String = "train", cost check: TrainingCostCheck? = nil,
    _ body: (Trainer, Configuration, any StoreSet) async throws -> String
) async throws {
    var requirements: Set<Configuration.Requirement> = []
    if requiresCredentials { requirements.insert(.humanCredentials) }
    let context = try CommandContext.load(requiring: requirements)
    let configuration = context.configuration
    if requiresCredentials, configuration.learnsPersonFromArchiveOnly {
        throw ValidationError(
            "HUMAN_NETWORK=archive: the person is learned from their archive only, with `mirror_bot import PATH`; \(command) reads nothing of theirs on \(configuration.networkModule.name)"
        )
    }
    let parts = try BotParts(configuration: configuration, logger: context.logger)
    let commandNetwork = parts.network(as: [.human])
    let network = commandNetwork.network
    let isTerminal = isatty(STDERR_FILENO) != 0
    let summary = try await parts.withRunning { parts in
        let gate = PersonConsentGate(configuration: configuration, stores: parts.database, logger: context.logger)
        let trainer = Trainer(
            network: network, archive: parts.archive, classifier: try parts.classifier(), personLikes: parts.database.likes,
            logger: context.logger
        ) { line in
            // Progress overwrites itself on a terminal and is one line per page in logs.
            FileHandle.standardError.write(Data((isTerminal ? "\r\u{1B}[K" + line : line + "\n").utf8))
        }
        // Verifying the person's sign-in is one read of their user, announced with the rest (billed on X).
        let verifies = requiresCredentials ? try await gate.willVerify() : false
        let verification = verifies ? network.mostItCosts(.personsPosts(0)) : nil
        if let check, try await trainer.wouldRun(check.flag, force: check.force), var cost = network.mostItCosts(check.reading) {
            if let verification {
                cost = NetworkCost(
                    dollars: cost.dollars + verification.dollars,
                    parts: cost.parts + [String(format: "the person's sign-in verified once at $%.3f", verification.dollars)])
            }
            let spentToday = try await commandNetwork.spentToday(in: parts.usageDays)
            FileHandle.standardError.write(Data("\(command) reads from \(network.name), \(cost.summary).\n".utf8))
            let budget = commandNetwork.dailyBudget ?? 0
            let approval = SpendingApproval.decide(
                estimate: cost.dollars, remaining: budget - spentToday, budget: budget, command: command,
                isTerminal: isatty(STDIN_FILENO) != 0, assumeYes: check.assumeYes
            ) {
                FileHandle.standardError.write(Data(String(format: "Spend up to $%.2f of %@ credits? [y/N] ", cost.dollars, network.name).utf8))
                return ["y", "yes"].contains((readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased())
            }
            switch approval {
            case .proceed(let reason): FileHandle.standardError.write(Data("Going on (\(reason)).\n".utf8))
            case .refuse(let message): throw SpendingRefused(description: message)
            }
        }
        // Nothing of the person is read before their consent is in the store.
        if requiresCredentials { _ = try await gate.require(for: command, now: Date()) }
        let result: String
        do {
            result = try await body(trainer, configuration, parts.database)
        } catch {
            // What was read before a failure was billed all the same.
            try? await commandNetwork.recordUsage(into: parts.usageDays, command: command)
            throw error
        }
        try await commandNetwork.recordUsage(into: parts.usageDays, command: command)
        return result
    }
    if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    // The cost goes on the first line (what was fetched); a calibration line may follow.
    var lines = summary.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    lines[0] += commandNetwork.billLine
    print(lines.joined(separator: "\n"))
}
