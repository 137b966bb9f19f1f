public import Archive
public import BotClock
public import BotConfiguration
import Classifier
public import Foundation
public import Logging
import Picking
import RedisClient
import Schedule
import ServiceLifecycle
import Tokenizer
import Training
import WordCounts
public import XAPI
import BotAssembly

/// `mirror_bot start`: the poster, replier, favoriter and learner in one service group, with the database pool
/// and the usage reporter. SIGTERM or SIGINT shuts it down gracefully within 10 seconds: a post or answer in
/// flight is finished and recorded, and every stored state is consistent.
public enum DaemonRunner {
    /// The options of `mirror_bot start`.
    public struct Options: Sendable {
        /// Log what would be posted, answered and liked without doing it.
        public var dryRun = false
        /// Bot seconds per real second.
        public var speed = 1.0
        /// Where the bot's clock starts; now when nil.
        public var startTime: Date?
        /// Stop after this much bot time; run until a signal when nil.
        public var duration: TimeInterval?

        /// Options; the defaults are a real run.
        public init(dryRun: Bool = false, speed: Double = 1, startTime: Date? = nil, duration: TimeInterval? = nil) {
            self.dryRun = dryRun; self.speed = speed; self.startTime = startTime; self.duration = duration
        }
    }

    /// What a run did, for the closing summary.
    public struct Summary: Sendable {
        /// Bot time at start and end.
        public var from: Date
        /// Bot time at the end.
        public var until: Date
        /// Slots per state over the days the run touched (empty when the store could not be read at the end).
        public var slots: [PlanSlot.State: Int]
        /// Mentions answered.
        public var replies: Int
        /// Mentions not answered.
        public var mentionsNotAnswered: Int
        /// Likes made.
        public var likes: Int
        /// Why the stored figures (slots, mentions, likes) could not be read at the end, if they could not.
        public var storedFiguresProblem: String?
        /// The API usage report.
        public var usage: [String]
        /// X's bill of each UTC day of the run by mirror_bot's count: this run's, and every run's that day.
        public var spend: [(day: String, thisRun: Double, allRuns: Double)]
        /// `X_DAILY_BUDGET`.
        public var budget: Double
        /// Whether the bot liked, and why (not).
        public var liking: String
        /// The process's memory at the end, where the system reports it.
        public var memory: ProcessMemory?
    }

    /// Runs the daemon until a signal or the end of `options.duration`; returns what it did.
    public static func run(configuration: Configuration, options: Options, logger: Logger) async throws -> Summary {
        try configuration.require([.humanCredentials, .botCredentials])

        // Before starting: the database answers and is migrated, the word counts answer, both accounts are known.
        // The SQLite file is the bot's own and is migrated here; Postgres is migrated by `mirror_bot migrate`.
        let (archiveLocation, storedRefusals) = try await ArchiveDatabase.open(for: configuration, logger: logger).withRunning { database in
            if case .sqlite = database.backend { try await Migrator().migrate(database) }
            let pending = try await Migrator().pending(database).count
            guard pending == 0 else {
                throw ArchiveError(operation: "starting", reason: "\(pending) migration(s) are not applied yet; run `mirror_bot migrate` first")
            }
            try await TweetArchive(database: database, timeZone: configuration.timeZone, rowLimit: configuration.archiveRowLimit).prepare()
            return (database.location, try await UsageRecording.storedRefusals(in: BotState(database: database)))
        }
        logger.notice("archive: \(archiveLocation)\(configuration.database == nil ? " (DATABASE_URL is not set)" : "")")
        let (store, storeDescription) = try WordCountStores.open(for: configuration, busyTimeout: ArchiveDatabase.daemonBusyTimeout)
        logger.notice("word counts: \(storeDescription)")
        do {
            _ = try await store.isTrained("classifier")
        } catch {
            // Posting and replying need only Postgres: the bot starts, and liking and learning wait for the counts.
            logger.error("The word counts do not answer (\(error)); posting and replying go on, liking and learning resume when they do.")
        }
        // The bot's clock starts once the stores are checked, just before the first API call.
        let clock: any BotClock = options.speed == 1 && options.startTime == nil
            ? SystemBotClock() : SimulatedBotClock(start: options.startTime ?? Date(), speed: options.speed)
        let startedAt = clock.now()
        let runID = UUID().uuidString
        let usage = UsageMeter()
        let refusals = XRefusals()
        let budget = DailyBudget(limit: configuration.xDailyBudget, meter: usage, logger: logger)
        let clientConfiguration = XClient.Configuration(baseURL: configuration.xAPIBaseURL,
                                                        credentials: [.human: configuration.human!, .bot: configuration.bot!])
        let database = try ArchiveDatabase.open(for: configuration, busyTimeout: ArchiveDatabase.daemonBusyTimeout,
                                                operationTimeLimit: ArchiveDatabase.daemonOperationTimeLimit, logger: logger)
        // The services' client keeps what X refuses for good in the store; the start's client (before the store
        // runs as a service) shares its meter, refusals and budget.
        let client = XClient(configuration: clientConfiguration, clock: clock, usage: usage, refusals: refusals, budget: budget,
                             refusalStore: StoredRefusals(state: BotState(database: database)), logger: logger)
        refusals.restore(storedRefusals, apps: client.appFingerprints)
        let liking = LikingPolicy(setting: configuration.likes, networkReason: XAccess.whyNoLikes, refusals: refusals)
        let usageDays = UsageDays(database: database)
        do {
            let spent = try await ArchiveDatabase.open(for: configuration, logger: logger).withRunning { database in
                try await UsageRecording.loadSpentElsewhere(into: usage, from: UsageDays(database: database), runID: runID, at: startedAt)
            }
            logger.notice("\(String(format: "budget: X_DAILY_BUDGET $%.2f a UTC day by mirror_bot's count of X's bill ($%.3f spent today before this start; %@)", configuration.xDailyBudget, spent, usage.prices.source))")
        } catch {
            logger.error("Could not read today's API spend (\(error)); the budget counts from zero until it can.")
        }
        logger.notice("\(liking.statusLine)")
        if !configuration.postLinks {
            logger.notice("links: the person's tweets and replies with a link are not posted (POST_LINKS=false: X bills a post with a URL $0.200, a plain one $0.015)")
        }
        let startClient = XClient(configuration: clientConfiguration, clock: clock, usage: usage, refusals: refusals, budget: budget, logger: logger)
        guard let human = try await startClient.send(GetAuthenticatedUser(), as: .human).data,
              let bot = try await startClient.send(GetAuthenticatedUser(), as: .bot).data else {
            throw XAPIError.malformedResponse(endpoint: GetAuthenticatedUser.name, reason: "no user in the answer")
        }
        logger.notice("mirroring @\(human.username) on @\(bot.username)\(options.dryRun ? " (dry run: nothing is posted or liked)" : "")\(options.speed == 1 ? "" : " at \(options.speed)x speed from \(startedAt.formatted(.iso8601))")")

        let archive = TweetArchive(database: database, timeZone: configuration.timeZone, rowLimit: configuration.archiveRowLimit)
        let classifier = FavoriteClassifier(store: store, tokenizer: try TweetTokenizer(), threshold: configuration.favoriteRateThreshold,
                                            examples: TrainingExamples(database: database), logger: logger)
        if liking.isChosen {
            do {
                // A pool of its own: `database` runs once, as the group's service.
                let decision = try await ArchiveDatabase.open(for: configuration, logger: logger).withRunning { database in
                    try await LikeDecision.apply(to: classifier, configuration: configuration, database: database, calibrateIfMissing: true,
                                                 at: startedAt)
                }
                logger.notice("\(decision)")
            } catch {
                logger.error("Could not read or make the like calibration (\(error)); liking with threshold \(configuration.favoriteRateThreshold) until the daily one.")
            }
        }
        let calibrator = configuration.calibratesFavoriteThreshold && liking.isChosen
            ? LikeDecision.calibrator(for: classifier, configuration: configuration, database: database) : nil
        let botState = BotState(database: database)
        let plans = PlanStore(database: database)

        let poster = Poster(
            clock: clock, plans: plans, planner: SchedulePlanner(archive: archive, maxPostsPerDay: configuration.maxPostsPerDay),
            picker: PostPicker(archive: archive, repostAfterDays: configuration.repostAfterDays, allowsMentions: configuration.postMentions,
                               allowsLinks: configuration.postLinks, logger: logger),
            client: client, settings: .init(missedSlotGrace: Double(configuration.missedSlotGraceMinutes * 60), dryRun: options.dryRun), logger: logger)
        let replier = Replier(
            clock: clock, mentions: MentionLog(database: database), state: botState, picker: ReplyPicker(archive: archive, fallback: configuration.replyFallback, allowsLinks: configuration.postLinks),
            client: client,
            botUserID: bot.id,
            settings: .init(pollInterval: Double(configuration.mentionsPollSeconds), limitPerUserPerHour: configuration.replyLimitPerUser,
                            maxThreadReplies: configuration.maxThreadReplies, dryRun: options.dryRun),
            logger: logger)
        let favoriter = Favoriter(clock: clock, likes: LikeLog(database: database), state: botState, archive: archive, policy: liking, classifier: classifier, client: client,
                                  botUserID: bot.id, humanUserID: human.id,
                                  settings: .init(pollInterval: Double(configuration.timelinePollSeconds), dryRun: options.dryRun), logger: logger)
        let learner = Learner(clock: clock, state: botState, archive: archive, classifier: classifier, client: client, liking: liking,
                              humanUserID: human.id, settings: .init(pollInterval: Double(configuration.learnPollSeconds)),
                              calibrator: calibrator, logger: logger)

        // Services stop in reverse order: the closing summary and the spend's last record after every service that
        // acts, the database pool last.
        let closing = ClosingSummary(database: database, timeZone: configuration.timeZone, from: startedAt, clock: clock,
                                     likingStatus: { liking.statusLine }, logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: ArchiveDatabaseService(database: database)),
            .init(service: SpendRecorder(clock: clock, usage: usage, budget: budget, days: usageDays, state: botState, runID: runID,
                                         interval: .seconds(60), logger: logger)),
            .init(service: closing),
            .init(service: poster), .init(service: replier), .init(service: learner),
            .init(service: UsageReporter(clock: clock, usage: usage, budget: budget, logger: logger)),
        ]
        // Liking not chosen (LIKES=off, or auto on X): the favoriter does not run at all, and reads nothing.
        if liking.isChosen { services.insert(.init(service: favoriter), at: 5) }
        if let duration = options.duration {
            services.append(.init(service: StopAfter(clock: clock, duration: .milliseconds(Int64(duration * 1000))),
                                  successTerminationBehavior: .gracefullyShutdownGroup))
        }
        var groupConfiguration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(10)
        groupConfiguration.maximumCancellationDuration = .seconds(5)
        try await ServiceGroup(configuration: groupConfiguration).run()

        // The closing summary: what was stored (read by `closing` before the pool stopped) and what was counted.
        let until = clock.now()
        var figures = ClosingSummary.Figures()
        var problem: String?
        switch closing.figures {
        case .success(let read)?: figures = read
        case .failure(let error)?: problem = "\(error)"
        case nil: problem = "the run ended before they were read"
        }
        if let problem { logger.warning("The stored figures for the summary could not be read (\(problem)); what was counted in memory follows.") }
        let spend = usage.billingDays.map { day in
            (day: day, thisRun: usage.ownSpend(onBillingDay: day), allRuns: usage.spent(onBillingDay: day))
        }
        return Summary(from: startedAt, until: until, slots: figures.slots, replies: figures.replies,
                       mentionsNotAnswered: figures.mentionsNotAnswered, likes: figures.likes, storedFiguresProblem: problem,
                       usage: usage.report(), spend: spend, budget: configuration.xDailyBudget, liking: liking.statusLine,
                       memory: ProcessMemory.current())
    }
}
