public import BotClock
import BotConfiguration
import BotCore
import Classifier
import CoreMetrics
import Daemon
public import Fleet
public import Foundation
public import Logging
import PostgresStores
import Prometheus
import RedisClient
import RedisWordCounts
import ServiceLifecycle
import SocialNetwork
import StatusPage
import Stores
import Synchronization
import Tokenizer
import Training

/// `mirror_bot fleet` assembled: many bots in one process, many processes on one Postgres. The process shares one
/// database pool (each bot's stores in its own schema), one Redis connection (each bot's counts under its own key
/// prefix, one hash tag on a cluster), one MeCab dictionary and one HTTP client among its bots. Every few seconds it
/// says it is alive, renews the leases it holds (a bot whose lease was lost, or was paused, is stopped), and claims
/// free or expired bots up to its share of the live processes (`FOR UPDATE SKIP LOCKED`: processes claiming at once
/// never take the same bot). Each bot runs its services as `start` does; its failures are its own: a bot that
/// stops with an error is paused with that reason, the others go on. SIGTERM stops every bot gracefully and lets
/// its leases go at once, for another process to claim.
public struct FleetRun: Sendable {
    /// How long a lease lasts unless renewed, and how often it is renewed.
    public typealias Timing = FleetTiming

    /// The process's configuration (its database, Redis, log level, status page).
    public let configuration: Configuration
    /// The process's environment, of which the bots take the shared variables.
    public let environment: [String: String]
    /// Opens the bots' settings.
    public let key: FleetKey
    /// The leases' timing.
    public let timing: Timing
    /// The bots' clock, one for the process: the system's, or for a rehearsal (`--speed`, `--start-time`) a faster one.
    public let clock: any BotClock
    /// The speed of `clock` (1: the system's), said in each bot's first line.
    public let speed: Double
    /// The process's log.
    public let logger: Logger

    /// A fleet process from its parts; `speed` and `startTime` as `start`'s rehearsal options.
    public init(
        configuration: Configuration, environment: [String: String], key: FleetKey, timing: Timing = Timing(), speed: Double = 1,
        startTime: Date? = nil, logger: Logger
    ) {
        self.configuration = configuration
        self.environment = environment
        self.key = key
        self.timing = timing
        self.logger = logger
        self.speed = speed
        clock = speed == 1 && startTime == nil ? SystemBotClock() : SimulatedBotClock(start: startTime ?? Date(), speed: speed)
    }

    /// This process's name in the leases: host, process id and a random part (a restarted process is a new holder).
    public static let processName =
        "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):\(UUID().uuidString.prefix(8).lowercased())"

    /// Runs until SIGTERM or SIGINT (or the task's cancellation), then stops every bot and lets its leases go.
    public func run() async throws {
        guard let url = configuration.storage.database else {
            throw ConfigurationError(problems: [
                .init(variable: "DATABASE_URL", isMissing: true, expected: "the fleet's Postgres: the fleet keeps its bots and their leases there")
            ])
        }
        guard let redis = configuration.storage.redis else {
            throw ConfigurationError(problems: [
                .init(
                    variable: "REDIS_URL", isMissing: true,
                    expected: "the fleet's Redis (or Redis Cluster with REDIS_CLUSTER=true): each bot's word counts live there")
            ])
        }
        // A process frozen mid-transaction (SIGSTOP, a stalled VM) has the server end it within the lease's length, so
        // that its bots' lease rows, held FOR SHARE, are free for another process to take over.
        let pool = try PostgresStoreSet(
            url: url, settings: StoreSettings().forDaemon(), connections: configuration.fleet.databaseConnections,
            idleTransactionLimit: .seconds(configuration.fleet.leaseSeconds), logger: logger)
        let counts: any RedisPipelining =
            configuration.storage.redisCluster
            ? RedisClusterConnection(seed: redis, certificateAuthority: configuration.storage.redisTLSCertificateAuthority)
            : RedisConnection(url: redis, certificateAuthority: configuration.storage.redisTLSCertificateAuthority)
        // The leases on a pool of their own: a round's renewals never wait behind the bots' statements (with 1,000 bots
        // on one pool they did, past the leases' length, and every bot stopped).
        let leases = try PostgresStoreSet(url: url, settings: StoreSettings().forDaemon(), connections: 2, logger: logger)
        let registry = PostgresFleetRegistry(database: PostgresStoreSet(sharing: leases, schema: leases.schema ?? "public"))
        let status = statusServer(registry: registry, pool: pool, counts: counts)
        let shared = Shared(pool: pool, counts: counts, tokenizer: try PostTokenizer(), status: status?.content)
        let loop = FleetClaimLoop(
            registry: registry, timing: timing, process: Self.processName, lapses: shared.lapses, logger: logger,
            runBot: { bot, claim, lease, logger in try await runBot(bot, claim: claim, lease: lease, shared: shared, logger: logger) },
            botContext: { bot, body in FleetMetricsFactory.$bot.withValue(bot.name, operation: body) },
            botEnded: { bot in shared.status?.hide(bot.name) })
        try await pool.withRunning {
            try await leases.withRunning {
                try await registry.prepare()
                // A process with the wrong key would pause every bot it claimed: it stops here instead, saying so.
                let bots = try await registry.bots()
                if !bots.isEmpty, !bots.contains(where: { (try? key.open($0.sealedSettings, bot: $0.name)) != nil }) {
                    throw FleetKeyError.wrongKey(bot: bots.map(\.name).prefix(3).joined(separator: ", ") + (bots.count > 3 ? ", …" : ""))
                }
                // The status server starts first and stops last.
                let services: [any Service] = (status.map { [$0.server] } ?? []) + [loop]
                let group = ServiceGroup(
                    configuration: .init(
                        services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint],
                        logger: logger))
                try await group.run()
            }
        }
        counts.close()
    }

    /// What the process's bots share.
    struct Shared: Sendable {
        let pool: PostgresStoreSet
        let counts: any RedisPipelining
        let tokenizer: PostTokenizer
        /// What the status server shows (nil without `PORT`): each bot running here shows its page there.
        let status: FleetStatusContent?
        /// Spaces the bots' starts on each server.
        let starts = FleetStartPacer(spacing: .seconds(1) / FleetStartPacer.startsPerSecondOnAServer)
        /// When each hold of this process lapses, as its last claim or renewal said: the bots' network writes end before.
        let lapses = LeaseLapses()
    }

    /// `PORT`'s status server for the fleet, when `PORT` is set: the fleet's list at `/`, each bot running here at
    /// `/bots/<name>/`, `/metrics` with each bot as the label `bot`, `/healthz` about the process (its Postgres and Redis).
    func statusServer(registry: PostgresFleetRegistry, pool: PostgresStoreSet, counts: any RedisPipelining)
        -> (server: StatusServer, content: FleetStatusContent)?
    {
        guard let port = configuration.statusPage.port else { return nil }
        let health = HealthChecks([
            .init(name: "fleet database") { try await pool.ping() },
            .init(name: "word counts") { _ = try await RedisWordCounts(connection: counts).isTrained("classifier") },
        ])
        let metrics = PrometheusCollectorRegistry()
        var prometheus = PrometheusMetricsFactory(registry: metrics)
        // Slots are late by seconds, not minutes: buckets that tell a good fleet from a loaded one.
        prometheus.valueHistogramBuckets["mirror_bot_slot_lateness_seconds"] = [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1_800, 3_600]
        MetricsSystem.bootstrap(FleetMetricsFactory(base: prometheus))
        var settings = StatusServer.Settings(
            host: configuration.statusPage.bindAddress, port: port, password: configuration.statusPage.password,
            dailyBudget: nil, metrics: metrics)
        settings.behindRouter = configuration.statusPage.behindRouter
        let content = FleetStatusContent(process: Self.processName) {
            try await registry.bots().map { .init(name: $0.name, network: $0.network, pauseReason: $0.pauseReason, holder: $0.holder) }
        }
        settings.fleet = content
        return (StatusServer(settings: settings, content: StatusContent(), health: HealthMonitor(health), logger: logger), content)
    }

    /// Runs one bot of the fleet as `start` runs it, on the process's shared parts, holding `lease`.
    func runBot(_ bot: FleetBot, claim: FleetClaim, lease: FleetDaemonLease, shared: Shared, logger: Logger) async throws {
        let settings = try key.open(bot.sealedSettings, bot: bot.name)
        let configuration = try Configuration(
            environment: FleetBotSettings.environment(of: bot.name, settings: settings, process: environment))
        try configuration.require([.humanCredentials, .botCredentials])
        // Every statement of the bot checks its lease first: a process that stalled past its lease writes nothing more.
        let database = PostgresStoreSet(
            sharing: shared.pool, schema: bot.schema,
            settings: StoreSettings(
                timeZone: configuration.behaviour.timeZone,
                archiveRowLimit: configuration.storage.archiveRowLimit
            ).forDaemon(),
            fence: .init(registrySchema: shared.pool.schema ?? "public", claim: claim, process: Self.processName))
        if try await !database.migrations.pending().isEmpty { try await database.migrations.migrate() }
        try await database.archive.prepare()
        let store = RedisWordCounts(connection: shared.counts, keyPrefix: configuration.storage.redisKeys)
        let classifier = BotParts.classifier(
            on: store, tokenizer: shared.tokenizer, configuration: configuration, examples: database.examples, logger: logger)
        let clock = self.clock
        let module = configuration.networkModule
        // Its turn on its server, before it asks anything of it.
        try await shared.starts.waitForTurn(on: module.botServer ?? module.name)
        // Nothing of the person is used before their consent is in the store.
        let gate = PersonConsentGate(configuration: configuration, stores: database, logger: logger)
        _ = try await gate.requireWaiting(
            for: "the fleet's bot \(bot.name)", readsPerson: !configuration.learnsPersonFromArchiveOnly,
            clock: clock, progress: nil)
        shared.status?.show(
            bot.name,
            page: .init(
                database: database, timeZone: configuration.behaviour.timeZone, postLinks: module.postLinks,
                networkName: module.name, dailyBudget: module.dailyBudget, now: { clock.now() }))
        let network = await module.forDaemon(
            DaemonNetworkContext(
                clock: clock, state: database.state, usageDays: database.usageDays, runID: UUID().uuidString,
                postLinks: configuration.postLinks, sealer: KeySealer(key: key)), logger: logger)
        if !configuration.learnsPersonFromArchiveOnly {
            await Self.learnFirst(
                bot.name,
                Trainer(network: network.network, archive: database.archive, classifier: classifier, personLikes: database.likes, logger: logger),
                configuration: configuration, logger: logger)
        }
        let parts = DaemonComposition.Parts(
            settings: configuration.daemonSettings, database: database, classifier: classifier, network: network.network,
            clock: clock, accountingServices: network.services, lease: lease, consentCheck: gate.check(through: network.personCheck),
            logger: logger)
        var options = DaemonRunner.Options(speed: speed, handlesSignals: false)
        options.cancellationLimit = nil  // RunningBots bounds the stop; a bot never ends the process
        _ = try await DaemonComposition.run(parts, options: options)
    }

    /// A bot that has learned nothing yet (one made at the front door) learns its person first, where reading costs
    /// nothing: their newest posts (`train scheduler`), and, when it likes, their likes (`train classifier`); each
    /// once (a bot trained before, or given an archive, is not read again). Where reading is billed (X) it says what
    /// to run instead and spends nothing. A failure is one line: the bot runs all the same, with what it has.
    static func learnFirst(_ name: String, _ trainer: Trainer, configuration: Configuration, logger: Logger) async {
        let module = configuration.networkModule
        do {
            guard try await trainer.archive.count() == 0 else { return }
            guard module.dailyBudget == nil else {
                logger.warning(
                    "fleet: bot \(name) has nothing archived and reading \(module.name) is billed, so it learns nothing by itself: import the person's archive (`mirror_bot bots exec \(name) -- import PATH`, free) or `bots exec \(name) -- train scheduler`"
                )
                return
            }
            let posts = try await trainer.trainScheduler(force: false)
            if !posts.skipped {
                logger.notice("fleet: bot \(name) learned its person first: \(posts.stored) posts archived (\(posts.postsRead) read)")
            }
            if configuration.behaviour.likes != .off {
                let likes = try await trainer.trainClassifier(force: false)
                if !likes.skipped {
                    logger.notice("fleet: bot \(name) learned its person's likes: \(likes.favorites) liked and \(likes.normals) other posts")
                }
            }
        } catch is CancellationError {
            return
        } catch {
            logger.error("fleet: bot \(name) could not learn its person first (\(error)); it runs with what it has")
        }
    }
}
