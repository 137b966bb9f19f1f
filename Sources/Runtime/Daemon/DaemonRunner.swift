public import BotClock
public import BotCore
public import Foundation
public import Logging
import Schedule
public import ServiceLifecycle
public import SocialNetwork
public import Stores

/// `mirror_bot start`'s run: the services the composition root built (poster, replier, learner, favoriter,
/// housekeeping, the network's accounting, the status page) in one service group, with the run's own mechanics (the
/// closing summary, the usage report, the lease's keeper, the stop after `--duration`). SIGTERM or SIGINT shuts it
/// down gracefully within 10 seconds: a post or answer in flight is finished and recorded, and every stored state is
/// consistent.
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
        /// How long, in real time, what is cancelled may take to end (then the process is ended); nil: no limit here (a
        /// fleet's bot: the fleet bounds its stop itself, and one bot's slow end must not end the others' process).
        public var cancellationLimit: Duration? = .seconds(5)

        /// Options; the defaults are a real run.
        public init(
            dryRun: Bool = false, speed: Double = 1, startTime: Date? = nil, duration: TimeInterval? = nil, handlesSignals: Bool = true,
            seed: UInt64? = nil
        ) {
            self.dryRun = dryRun
            self.speed = speed
            self.startTime = startTime
            self.duration = duration
            self.handlesSignals = handlesSignals
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

    /// A run as the composition root built it (`BotAssembly.DaemonComposition`): the bot's services, ready to start,
    /// and what the runner needs around them (the stores for the closing summary and the lease, the network's
    /// accounting for the usage report).
    public struct Run: Sendable {
        /// Bot time when the run began, before the accounts were asked: `--duration` counts from here.
        public var startedAt: Date
        /// Services the network's accounting runs (X: storing the day's spend), stopped after every service that acts.
        public var accountingServices: [any Service]
        /// The services that act (housekeeping, deletion watch, poster, replier, learner, favoriter), started in this
        /// order and stopped in the reverse one.
        public var services: [any Service]
        /// Every store; its pool runs for the whole run (the caller's `withRunning`).
        public var database: any StoreSet
        /// The network's accounting, reported hourly and in the summary (nil: a network that costs nothing).
        public var accounting: (any NetworkAccounting)?
        /// The person's time zone, in which the summary's days are counted.
        public var timeZone: TimeZone
        /// Whether the bot likes, and why (not), for the summary: asked at the end (a refusal during the run changes it).
        public var likingStatus: @Sendable () -> String
        /// The bot's clock, started.
        public var clock: any BotClock
        /// The lease that keeps this daemon the bot's only one, kept while the run lasts (nil: not checked).
        public var lease: (any DaemonLease)?
        /// The clock the lease is checked by: real time (the lease lives on a connection), whatever the bot's clock.
        public var leaseClock: any BotClock
        /// What the start waits for: told when the services run (nil: nobody asks).
        public var progress: StartupProgress?
        /// The log.
        public var logger: Logger

        /// A run from its pieces.
        public init(
            startedAt: Date, accountingServices: [any Service], services: [any Service],
            database: any StoreSet, accounting: (any NetworkAccounting)?, timeZone: TimeZone, likingStatus: @escaping @Sendable () -> String,
            progress: StartupProgress? = nil, clock: any BotClock, lease: (any DaemonLease)?, leaseClock: any BotClock, logger: Logger
        ) {
            self.startedAt = startedAt
            self.accountingServices = accountingServices
            self.services = services
            self.database = database
            self.accounting = accounting
            self.timeZone = timeZone
            self.likingStatus = likingStatus
            self.progress = progress
            self.clock = clock
            self.lease = lease
            self.leaseClock = leaseClock
            self.logger = logger
        }
    }

    /// Who `account` is, asked until the network answers: an answer lost or unreadable (a 5xx, a dropped connection,
    /// a rate limit) is asked again with backoff, saying so once; a refusal (wrong credentials) ends the start.
    public static func whoAmI(
        _ account: Account, on network: any MirrorNetwork, clock: any BotClock, progress: StartupProgress? = nil,
        logger: Logger
    ) async throws -> NetworkUser {
        var wait = Duration.seconds(5)
        var failures = 0
        while true {
            progress?.waiting(
                for: "\(network.name) to answer who the \(account) account is\(failures == 0 ? "" : " (\(failures) failed tries so far)")")
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

    /// Runs `run`'s services until a signal or the end of `options.duration`; returns what they did.
    public static func run(_ run: Run, options: Options) async throws -> Summary {
        let (database, clock, logger) = (run.database, run.clock, run.logger)
        let likingStatus = run.likingStatus
        // Services stop in reverse order: the closing summary and the network's accounting after every service that
        // acts. The database pool runs around the whole group and stops after it.
        let closing = ClosingSummary(
            database: database, timeZone: run.timeZone, from: run.startedAt, clock: clock,
            likingStatus: likingStatus, logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = run.accountingServices.map { .init(service: $0) }
        services.append(.init(service: closing))
        services += run.services.map { .init(service: $0) }
        services.append(.init(service: RunningNotice(progress: run.progress, logger: logger)))
        if let accounting = run.accounting { services.append(.init(service: UsageReporter(clock: clock, accounting: accounting, logger: logger))) }
        if let lease = run.lease, lease.isKeptByTheDaemon {
            services.append(
                .init(
                    service: LeaseKeeper(lease: lease, database: database, clock: run.leaseClock, logger: logger),
                    successTerminationBehavior: .gracefullyShutdownGroup))
        }
        if let duration = options.duration {
            services.append(
                .init(
                    service: StopAfter(clock: clock, end: run.startedAt.addingTimeInterval(duration)),
                    successTerminationBehavior: .gracefullyShutdownGroup))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: options.handlesSignals ? [.sigterm, .sigint] : [],
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
        return Summary(
            from: run.startedAt, until: until, slots: figures.slots, postedUnchecked: figures.postedUnchecked, replies: figures.replies,
            mentionsNotAnswered: figures.mentionsNotAnswered, likes: figures.likes, storedFiguresProblem: problem,
            usage: run.accounting?.usageReport() ?? [], spend: run.accounting?.spend() ?? [],
            budget: run.accounting?.budget, liking: likingStatus(),
            memory: ProcessMemory.current())
    }
}
