public import BotClock
import BotCore
public import Classifier
import Consent
public import Daemon
import Foundation
public import Logging
import Picking
import Remix
import Schedule
public import ServiceLifecycle
public import SocialNetwork
public import Stores
import Tokenizer
import Training

/// The daemon composed: the one place its services are built, from parts already opened (stores, classifier,
/// network, clock), after both accounts are known. `DaemonStart` composes a process's run with it; the virtual days
/// compose theirs with it too, on in-memory stores and a scripted network, so what they prove is this wiring.
public enum DaemonComposition {
    /// What the daemon's services are built from.
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
        /// What the start waits for, for the view services.
        public var progress: StartupProgress
        /// How the person's grant is checked while the bot runs (nil: not checked).
        public var consentCheck: ConsentCheck?
        /// The log.
        public var logger: Logger

        /// Parts from their pieces.
        public init(
            settings: DaemonSettings, database: any StoreSet, classifier: FavoriteClassifier, network: any MirrorNetwork,
            clock: any BotClock, accountingServices: [any Service] = [], lease: (any DaemonLease)? = nil,
            leaseClock: any BotClock = SystemBotClock(), progress: StartupProgress = StartupProgress(),
            consentCheck: ConsentCheck? = nil, logger: Logger
        ) {
            self.settings = settings
            self.database = database
            self.classifier = classifier
            self.network = network
            self.clock = clock
            self.accountingServices = accountingServices
            self.lease = lease
            self.leaseClock = leaseClock
            self.progress = progress
            self.consentCheck = consentCheck
            self.logger = logger
        }
    }

    /// Runs `body` with `views` (services that only show what the bot does: the status page) running around it: they
    /// start first (the status page binds `PORT` at once) and stop after `body` returns or throws. A view that fails
    /// (its port taken) is logged by its group, and the bot goes on without it.
    public static func withViewServices<Result: Sendable>(
        _ views: [any Service], logger: Logger,
        _ body: () async throws -> Result
    ) async throws -> Result {
        guard !views.isEmpty else { return try await body() }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: views.map { .init(service: $0) },
                gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try? await group.run() }
            defer { tasks.cancelAll() }
            do {
                let result = try await body()
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }

    /// Asks who both accounts are, applies the like decision, builds the services and runs them until a signal or the
    /// end of `options.duration`; returns what the services did.
    public static func run(_ parts: Parts, options: DaemonRunner.Options) async throws -> DaemonRunner.Summary {
        // Every network write of the run (in every task it starts) asks the lease's deadline first: a fleet's lease
        // lapses unless renewed, and a write must be over before another process may take the bot over.
        try await WriteDeadline.$current.withValue(parts.lease?.writeDeadline) { try await runHoldingTheLease(parts, options: options) }
    }

    /// `run`, with the lease's write deadline bound.
    private static func runHoldingTheLease(_ parts: Parts, options: DaemonRunner.Options) async throws -> DaemonRunner.Summary {
        let (settings, database, classifier, network, clock, logger) =
            (parts.settings, parts.database, parts.classifier, parts.network, parts.clock, parts.logger)
        let startedAt = clock.now()
        let liking = LikingPolicy(setting: settings.likes, network: network)
        logger.notice("\(liking.statusLine)")
        let human = try await DaemonRunner.whoAmI(.human, on: network, clock: clock, progress: parts.progress, logger: logger)
        let bot = try await DaemonRunner.whoAmI(.bot, on: network, clock: clock, progress: parts.progress, logger: logger)
        // The person's consent names the bot it is for, once the bot is known.
        do {
            if try await ConsentRecords(state: database.state).noteBot("@\(bot.handle) (id \(bot.networkAccount ?? bot.id) on \(network.name))") {
                logger.info("consent: the person's record names the bot @\(bot.handle) now")
            }
        } catch {
            logger.warning("consent: the bot @\(bot.handle) could not be noted in the person's record (\(error)); it is noted at the next start")
        }
        if let rule = network.capabilities.disclosure, let problem = rule.problem(bot: bot, person: human, networkName: network.name) {
            logger.warning("\(problem)")
        }
        parts.progress.waiting(for: "the like decision and the services to start")
        logger.notice(
            "mirroring @\(human.handle) on @\(bot.handle) on \(network.name)\(options.dryRun ? " (dry run: nothing is posted or liked)" : "")\(options.speed == 1 ? "" : " at \(options.speed)x speed from \(startedAt.formatted(.iso8601))")"
        )
        if liking.isChosen {
            do {
                let decision = try await LikeDecision.apply(
                    to: classifier, settings: settings.likeDecision, database: database, calibrateIfMissing: true,
                    at: startedAt)
                logger.notice("\(decision)")
            } catch {
                logger.error(
                    "Could not read or make the like calibration (\(error)); liking with threshold \(settings.likeDecision.threshold) until the daily one."
                )
            }
        }
        let services = try services(of: parts, liking: liking, human: human, bot: bot, options: options)
        return try await DaemonRunner.run(
            DaemonRunner.Run(
                startedAt: startedAt, accountingServices: parts.accountingServices, services: services,
                database: database, accounting: network.accounting, timeZone: settings.timeZone, likingStatus: { liking.statusLine },
                progress: parts.progress, clock: clock, lease: parts.lease, leaseClock: parts.leaseClock, logger: logger), options: options)
    }

    /// The services that act, in the order they start (and the reverse of the order they stop): housekeeping and the
    /// deletion watch, then the poster, the replier, the learner and the favoriter.
    static func services(
        of parts: Parts, liking: LikingPolicy, human: NetworkUser, bot: NetworkUser,
        options: DaemonRunner.Options
    ) throws -> [any Service] {
        let (settings, database, classifier, network, clock, logger) =
            (parts.settings, parts.database, parts.classifier, parts.network, parts.clock, parts.logger)
        let archive = database.archive
        let contact = ContactRules(state: database.state, blocked: settings.blockedAccounts, request: OptOutRequest(words: settings.optOutWords))
        let control = OwnerControl(state: database.state)
        let forgetter = Forgetter(archive: archive, examples: database.examples, classifier: classifier, network: network)
        let withdrawal = PersonWithdrawal(state: database.state, retention: database.retention, wordCounts: classifier.store, logger: logger)
        var services: [any Service] = [
            Housekeeper(
                clock: clock, retention: database.retention, policy: RetentionPolicy(repostAfterDays: settings.repostAfterDays),
                wordCounts: classifier.store, logger: logger)
        ]
        // The person's grant checked: revoked, the mirror ends (not in a dry run, which changes nothing).
        if let check = parts.consentCheck, !options.dryRun {
            services.append(ConsentWatch(clock: clock, check: check, withdrawal: withdrawal, networkName: network.name, logger: logger))
        }
        // The person's deletions of posts the bot copied are noticed daily (CHECK_ORIGINALS; not in a dry run, which deletes nothing).
        if settings.checksOriginals && !options.dryRun {
            services.append(
                DeletionWatcher(
                    clock: clock, archive: archive, plans: database.plans, forgetter: forgetter,
                    days: DeletionWatcher.days(onBilledNetwork: network.accounting != nil), logger: logger))
        }
        services.append(
            Poster(
                clock: clock, plans: database.plans, planner: SchedulePlanner(archive: archive, maxPostsPerDay: settings.maxPostsPerDay),
                picker: PostPicker(
                    archive: archive, repostAfterDays: settings.repostAfterDays, allowsMentions: settings.postMentions,
                    allowsLinks: settings.postLinks, repeatWindow: network.capabilities.refusesRepeatsWithin,
                    blockedWords: settings.blockedWords, remixer: try remixer(settings: settings, classifier: classifier, network: network),
                    remixMemory: RemixMemory(
                        state: database.state,
                        keptFor: max(
                            Double(settings.repostAfterDays) * 86_400,
                            network.capabilities.refusesRepeatsWithin ?? 0)),
                    logger: logger),
                network: network,
                settings: .init(missedSlotGrace: settings.missedSlotGrace, dryRun: options.dryRun, checksOriginals: settings.checksOriginals),
                control: control, logger: logger, seed: options.seed))
        services.append(
            Replier(
                clock: clock, mentions: database.mentions, state: database.state,
                picker: ReplyPicker(
                    archive: archive, fallback: settings.replyFallback, allowsLinks: settings.postLinks, blockedWords: settings.blockedWords,
                    formerIDs: { [network] id in network.formerAccountIDs(of: id.text).map { AccountID($0) } }),
                network: network, botUserID: bot.id,
                settings: .init(
                    pollInterval: settings.mentionsPoll, limitPerUserPerHour: settings.replyLimitPerUser,
                    maxThreadReplies: settings.maxThreadReplies, dryRun: options.dryRun),
                contact: contact,
                owner: OwnerCommands(
                    humanUserID: human.id, control: control, forgetter: forgetter, timeZone: settings.timeZone, dryRun: options.dryRun,
                    withdrawal: withdrawal),
                logger: logger, seed: options.seed.map { $0 &+ 0x5EED }))
        let calibrator =
            settings.likeDecision.calibrates && liking.isChosen
            ? LikeDecision.calibrator(for: classifier, settings: settings.likeDecision, database: database) : nil
        services.append(
            Learner(
                clock: clock, state: database.state, archive: archive, classifier: classifier, network: network, liking: liking,
                humanUserID: human.id, settings: .init(pollInterval: settings.learnPoll), calibrator: calibrator,
                personLikes: database.likes, logger: logger))
        // Liking not chosen (LIKES=off, or auto on X): the favoriter does not run at all, and reads nothing.
        if liking.isChosen {
            services.append(
                Favoriter(
                    clock: clock, likes: database.likes, state: database.state, archive: archive, policy: liking,
                    classifier: classifier, network: network, botUserID: bot.id, humanUserID: human.id,
                    settings: .init(pollInterval: settings.timelinePoll, dryRun: options.dryRun, missedSlotGrace: settings.missedSlotGrace),
                    contact: contact, logger: logger, seed: options.seed.map { $0 &+ 0x4C1C_E5 }))
        }
        return services
    }

    /// With `POST_STYLE=remix`, the remixer: on the favorite filter's MeCab model (one dictionary in memory), with the
    /// network's length; nil with copies.
    static func remixer(settings: DaemonSettings, classifier: FavoriteClassifier, network: any MirrorNetwork) throws -> Remixer? {
        guard settings.postStyle == .remix else { return nil }
        let tokenizer = try (classifier.tokenizer as? any MorphemeTokenizer) ?? PostTokenizer()
        return Remixer(
            tokenizer: tokenizer, order: settings.remixOrder, maxOverlap: settings.remixMaxOverlap, length: network.capabilities.postLength)
    }
}
