public import Stores
public import BotClock
public import BotCore
public import Classifier
public import Foundation
public import Logging
import Picking
import Schedule
public import ServiceLifecycle
public import SocialNetwork
import Training

/// `mirror_bot start`: the poster, replier, favoriter and learner in one service group, with the usage reporter and
/// the network's own services. It runs on parts the composition root built (one database pool, running for the whole
/// run; the classifier; the network behind its protocol). SIGTERM or SIGINT shuts it down gracefully within
/// 10 seconds: a post or answer in flight is finished and recorded, and every stored state is consistent.
public enum DaemonRunner {
    /// The options of `mirror_bot start`.
    public struct Options: Sendable {
        /// Log what would be posted, answered and liked without doing it.
        public var dryRun = false
        /// Bot seconds per real second.
        public var speed = 1.0
        /// Where the bot's clock starts; now when nil.
        public var startTime: Date?
        /// Stop this much bot time after the run's start (the moment `run` is called, before the accounts are asked);
        /// run until a signal when nil.
        public var duration: TimeInterval?
        /// Whether SIGTERM and SIGINT shut the run down (a process's run); false leaves the process's signals alone (a
        /// run inside a test, stopped by `duration`).
        public var handlesSignals = true
        /// The seed of the run's random choices (the day's plan, the picks, the pauses before answering), for a run that
        /// must repeat; nil draws a fresh one.
        public var seed: UInt64?
        /// How long, in real time, a graceful shutdown may take before what is left is cancelled (Heroku allows 30 s).
        public var gracefulShutdownLimit = Duration.seconds(10)
        /// How long, in real time, what is cancelled may take to end (then the process is ended).
        public var cancellationLimit = Duration.seconds(5)

        /// Options; the defaults are a real run.
        public init(dryRun: Bool = false, speed: Double = 1, startTime: Date? = nil, duration: TimeInterval? = nil, handlesSignals: Bool = true,
                    seed: UInt64? = nil) {
            self.dryRun = dryRun; self.speed = speed; self.startTime = startTime; self.duration = duration; self.handlesSignals = handlesSignals
            self.seed = seed
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
        /// Of the posted slots, those that went out without their original's existence check (looked up within the hour).
        public var postedUnchecked: Int
        /// Mentions answered.
        public var replies: Int
        /// Mentions not answered.
        public var mentionsNotAnswered: Int
        /// Likes made.
        public var likes: Int
        /// Why the stored figures (slots, mentions, likes) could not be read at the end, if they could not.
        public var storedFiguresProblem: String?
        /// The API usage report (empty on a network that costs nothing).
        public var usage: [String]
        /// What the network billed on each UTC day of the run by mirror_bot's count: this run's, and every run's that day.
        public var spend: [(day: String, thisRun: Double, allRuns: Double)]
        /// The network's daily budget, where it has one.
        public var budget: Double?
        /// Whether the bot liked, and why (not).
        public var liking: String
        /// The process's memory at the end, where the system reports it.
        public var memory: ProcessMemory?
    }

    /// What the daemon runs on, built by the composition root.
    public struct Parts: Sendable {
        /// The daemon's section of the configuration.
        public var settings: DaemonSettings
        /// Every store; its pool runs for the whole run (the caller's `withRunning`).
        public var database: any StoreSet
        /// The favorite filter, its word counts and tokenizer.
        public var classifier: FavoriteClassifier
        /// The network the bot mirrors on.
        public var network: any MirrorNetwork
        /// The bot's clock, started.
        public var clock: any BotClock
        /// Services the network's accounting runs (X: storing the day's spend), stopped after every service that acts.
        public var accountingServices: [any Service]
        /// The lease that keeps this daemon the bot's only one, kept while the run lasts (nil: not checked).
        public var lease: (any DaemonLease)?
        /// The clock the lease is checked by: real time (the lease lives on a connection), whatever the bot's clock.
        public var leaseClock: any BotClock
        /// Services that only show what the bot does (the status page), started first and stopped last.
        public var viewServices: [any Service]
        /// The log.
        public var logger: Logger

        /// Parts from their pieces.
        public init(settings: DaemonSettings, database: any StoreSet, classifier: FavoriteClassifier, network: any MirrorNetwork,
                    clock: any BotClock, accountingServices: [any Service] = [], lease: (any DaemonLease)? = nil,
                    leaseClock: any BotClock = SystemBotClock(), viewServices: [any Service] = [], logger: Logger) {
            self.settings = settings; self.database = database; self.classifier = classifier; self.network = network
            self.clock = clock; self.accountingServices = accountingServices; self.lease = lease; self.leaseClock = leaseClock
            self.viewServices = viewServices; self.logger = logger
        }
    }

    /// Who `account` is, asked until the network answers: an answer lost or unreadable (a 5xx, a dropped connection,
    /// a rate limit) is asked again with backoff, saying so once; a refusal (wrong credentials) ends the start.
    static func whoAmI(_ account: Account, on network: any MirrorNetwork, clock: any BotClock, logger: Logger) async throws -> NetworkUser {
        var wait = Duration.seconds(5)
        var failures = 0
        while true {
            do {
                let user = try await network.whoAmI(account)
                if failures > 0 { logger.notice("\(network.name) answered who the \(account) account is after \(failures) failed tries") }
                return user
            } catch let error as NetworkError where !error.isRefusal {
                if failures == 0 {
                    logger.warning("\(network.name) did not answer who the \(account) account is (\(error)); asking again with backoff until it does")
                }
                failures += 1
                try await clock.sleep(for: wait)
                wait = min(wait * 2, .seconds(300))
            }
        }
    }

    /// Runs the daemon on `parts` until a signal or the end of `options.duration`; returns what it did.
    public static func run(_ parts: Parts, options: Options) async throws -> Summary {
        let (settings, database, classifier, network, clock, logger) =
            (parts.settings, parts.database, parts.classifier, parts.network, parts.clock, parts.logger)
        let startedAt = clock.now()
        let liking = LikingPolicy(setting: settings.likes, network: network)
        logger.notice("\(liking.statusLine)")
        let human = try await whoAmI(.human, on: network, clock: clock, logger: logger)
        let bot = try await whoAmI(.bot, on: network, clock: clock, logger: logger)
        logger.notice("mirroring @\(human.handle) on @\(bot.handle) on \(network.name)\(options.dryRun ? " (dry run: nothing is posted or liked)" : "")\(options.speed == 1 ? "" : " at \(options.speed)x speed from \(startedAt.formatted(.iso8601))")")

        let archive = database.archive
        if liking.isChosen {
            do {
                let decision = try await LikeDecision.apply(to: classifier, settings: settings.likeDecision, database: database, calibrateIfMissing: true,
                                                            at: startedAt)
                logger.notice("\(decision)")
            } catch {
                logger.error("Could not read or make the like calibration (\(error)); liking with threshold \(settings.likeDecision.threshold) until the daily one.")
            }
        }
        let calibrator = settings.likeDecision.calibrates && liking.isChosen
            ? LikeDecision.calibrator(for: classifier, settings: settings.likeDecision, database: database) : nil
        let botState = database.state
        let plans = database.plans

        let poster = Poster(
            clock: clock, plans: plans, planner: SchedulePlanner(archive: archive, maxPostsPerDay: settings.maxPostsPerDay),
            picker: PostPicker(archive: archive, repostAfterDays: settings.repostAfterDays, allowsMentions: settings.postMentions,
                               allowsLinks: settings.postLinks, logger: logger),
            network: network, settings: .init(missedSlotGrace: settings.missedSlotGrace, dryRun: options.dryRun, checksOriginals: settings.checksOriginals),
            logger: logger, seed: options.seed)
        let replier = Replier(
            clock: clock, mentions: database.mentions, state: botState,
            picker: ReplyPicker(archive: archive, fallback: settings.replyFallback, allowsLinks: settings.postLinks),
            network: network, botUserID: bot.id,
            settings: .init(pollInterval: settings.mentionsPoll, limitPerUserPerHour: settings.replyLimitPerUser,
                            maxThreadReplies: settings.maxThreadReplies, dryRun: options.dryRun),
            logger: logger, seed: options.seed.map { $0 &+ 0x5EED })
        let favoriter = Favoriter(clock: clock, likes: database.likes, state: botState, archive: archive, policy: liking,
                                  classifier: classifier, network: network, botUserID: bot.id, humanUserID: human.id,
                                  settings: .init(pollInterval: settings.timelinePoll, dryRun: options.dryRun), logger: logger)
        let learner = Learner(clock: clock, state: botState, archive: archive, classifier: classifier, network: network, liking: liking,
                              humanUserID: human.id, settings: .init(pollInterval: settings.learnPoll),
                              calibrator: calibrator, logger: logger)

        // Services stop in reverse order: the closing summary and the network's accounting after every service that
        // acts. The database pool runs around the whole group and stops after it.
        let closing = ClosingSummary(database: database, timeZone: settings.timeZone, from: startedAt, clock: clock,
                                     likingStatus: { liking.statusLine }, logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = parts.viewServices.map { .init(service: $0) }
        services += parts.accountingServices.map { .init(service: $0) }
        services.append(.init(service: closing))
        let housekeeper = Housekeeper(clock: clock, retention: database.retention,
                                      policy: RetentionPolicy(repostAfterDays: settings.repostAfterDays),
                                      wordCounts: classifier.store, logger: logger)
        services.append(.init(service: housekeeper))
        // The person's deletions of tweets the bot copied are noticed daily (CHECK_ORIGINALS; not in a dry run, which deletes nothing).
        if settings.checksOriginals && !options.dryRun {
            let forgetter = Forgetter(archive: archive, examples: database.examples, classifier: classifier, network: network)
            services.append(.init(service: DeletionWatcher(clock: clock, archive: archive, plans: plans, forgetter: forgetter,
                                                           days: DeletionWatcher.days(onBilledNetwork: network.accounting != nil), logger: logger)))
        }
        services += [.init(service: poster), .init(service: replier), .init(service: learner)]
        // Liking not chosen (LIKES=off, or auto on X): the favoriter does not run at all, and reads nothing.
        if liking.isChosen { services.append(.init(service: favoriter)) }
        services.append(.init(service: RunningNotice(logger: logger)))
        if let accounting = network.accounting { services.append(.init(service: UsageReporter(clock: clock, accounting: accounting, logger: logger))) }
        if let lease = parts.lease {
            services.append(.init(service: LeaseKeeper(lease: lease, database: database, clock: parts.leaseClock, logger: logger),
                                  successTerminationBehavior: .gracefullyShutdownGroup))
        }
        if let duration = options.duration {
            services.append(.init(service: StopAfter(clock: clock, end: startedAt.addingTimeInterval(duration)),
                                  successTerminationBehavior: .gracefullyShutdownGroup))
        }
        var groupConfiguration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: options.handlesSignals ? [.sigterm, .sigint] : [],
                                                           logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = options.gracefulShutdownLimit
        groupConfiguration.maximumCancellationDuration = options.cancellationLimit
        try await ServiceGroup(configuration: groupConfiguration).run()

        // The closing summary: what was stored (read by `closing` before the group ended) and what was counted.
        let until = clock.now()
        var figures = ClosingSummary.Figures()
        var problem: String?
        switch closing.figures {
        case .success(let read)?: figures = read
        case .failure(let error)?: problem = "\(error)"
        case nil: problem = "the run ended before they were read"
        }
        if let problem { logger.warning("The stored figures for the summary could not be read (\(problem)); what was counted in memory follows.") }
        return Summary(from: startedAt, until: until, slots: figures.slots, postedUnchecked: figures.postedUnchecked, replies: figures.replies,
                       mentionsNotAnswered: figures.mentionsNotAnswered, likes: figures.likes, storedFiguresProblem: problem,
                       usage: network.accounting?.usageReport() ?? [], spend: network.accounting?.spend() ?? [],
                       budget: network.accounting?.budget, liking: liking.statusLine,
                       memory: ProcessMemory.current())
    }
}
