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
    public struct Timing: Sendable {
        /// A lease not renewed within this is another process's to claim.
        public var leaseSeconds: TimeInterval
        /// How often leases are renewed and bots claimed.
        public var roundSeconds: TimeInterval
        /// Timing; the defaults take a killed process's bots over within 45 s.
        public init(leaseSeconds: TimeInterval = 20, roundSeconds: TimeInterval = 5) {
            self.leaseSeconds = leaseSeconds
            self.roundSeconds = roundSeconds
        }
    }

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
        let shared = Shared(pool: pool, counts: counts, tokenizer: try TweetTokenizer(), status: status?.content)
        let loop = Loop(fleet: self, shared: shared, registry: registry)
        try await pool.withRunning {
            try await leases.withRunning {
                try await loop.registry.prepare()
                // A process with the wrong key would pause every bot it claimed: it stops here instead, saying so.
                let bots = try await loop.registry.bots()
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
        let tokenizer: TweetTokenizer
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

    /// The rounds: alive, renew, claim; on graceful shutdown, stop and let go.
    struct Loop: Service {
        let fleet: FleetRun
        let shared: Shared
        let registry: PostgresFleetRegistry

        func run() async throws {
            let process = FleetRun.processName
            // A stop may take the lease's length: past it another process may take the bot anyway.
            let running = RunningBots(limits: .init(graceful: .milliseconds(Int64(fleet.timing.leaseSeconds * 1000))), logger: fleet.logger)
            let logger = fleet.logger
            logger.notice(
                "fleet: process \(process); leases of \(Int(fleet.timing.leaseSeconds)) s, renewed every \(Int(fleet.timing.roundSeconds)) s")
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                do {
                    try await round(process: process, running: running)
                } catch is CancellationError {
                    break
                } catch {
                    logger.warning("fleet: a round failed (\(error)); the next one in \(Int(fleet.timing.roundSeconds)) s")
                }
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(Int64(fleet.timing.roundSeconds * 1000))) }
            }
            logger.notice("fleet: stopping \(running.count) bots and letting their leases go")
            await running.stopAll()
            try? await registry.release(for: process)
        }

        /// One round.
        func round(process: String, running: RunningBots) async throws {
            let logger = fleet.logger
            let live = try await registry.heartbeat(process, liveness: fleet.timing.leaseSeconds)
            let bots = try await registry.bots()
            let active = bots.filter { $0.pauseReason == nil }
            let share = active.isEmpty ? 0 : (active.count + live - 1) / live
            // Renewed, or stopped: a lease lost (expired while this process stalled, or taken over) or a bot paused.
            let held = running.claims
            // Taken before the statement: the database's expiry, counted from its own later moment, is no earlier.
            let renewing = Date()
            let kept = Set(try await registry.renew(held, for: process, expiresIn: fleet.timing.leaseSeconds))
            for claim in kept { shared.lapses.set(claim, renewing.addingTimeInterval(fleet.timing.leaseSeconds)) }
            for claim in held where !kept.contains(claim) {
                logger.notice(
                    "fleet: bot \(running.name(of: claim.botID) ?? "?") is no longer this process's (its lease was lost or it was paused); stopping it"
                )
                // Once stopped, its lease goes (a paused bot is at once free for `bots exec NAME -- train clear`); a lease
                // another process took carries another fencing number and is left alone.
                running.stopInBackground(claim.botID) { try? await registry.release([claim], for: process) }
            }
            // Over its share (a process joined): the newest claims go back, for the others to take.
            let excess = running.count - share
            if excess > 0 {
                for claim in running.claims.suffix(excess) {
                    logger.notice("fleet: handing bot \(running.name(of: claim.botID) ?? "?") over (\(live) processes share \(active.count) bots)")
                    // Let go once it has stopped (its lease, no longer renewed, lapses anyway if the stop takes long).
                    running.stopInBackground(claim.botID) { try? await registry.release([claim], for: process) }
                }
            }
            guard running.count < share else { return }
            let claiming = Date()
            let claims = try await registry.claim(for: process, limit: share - running.count, expiresIn: fleet.timing.leaseSeconds)
            for claim in claims { shared.lapses.set(claim, claiming.addingTimeInterval(fleet.timing.leaseSeconds)) }
            // A bot added since this round's list was read is in the next one's.
            let known = claims.contains { claim in !bots.contains { $0.id == claim.botID } } ? try await registry.bots() : bots
            for claim in claims {
                guard let bot = known.first(where: { $0.id == claim.botID }) else { continue }
                start(bot, claim: claim, process: process, running: running)
            }
        }

        /// Starts `bot` in a task of its own, under a service group of its own (stopped gracefully when its lease goes).
        func start(_ bot: FleetBot, claim: FleetClaim, process: String, running: RunningBots) {
            var logger = fleet.logger
            logger[metadataKey: "bot"] = "\(bot.name)"
            logger.notice("fleet: running bot \(bot.name) (\(bot.network), lease \(claim.fence))")
            let service = BotService(fleet: fleet, shared: shared, registry: registry, bot: bot, claim: claim, process: process, logger: logger)
            let group = ServiceGroup(configuration: .init(services: [.init(service: service)], gracefulShutdownSignals: [], logger: logger))
            let botLogger = logger
            let status = shared.status
            // The bot's task (and every task it starts) reports its metrics with the label bot="<name>".
            FleetMetricsFactory.$bot.withValue(bot.name) {
                running.add(bot: bot, claim: claim, group: group) {
                    do {
                        try await group.run()
                    } catch {
                        botLogger.error("fleet: bot \(bot.name) stopped: \(error)")
                    }
                    status?.hide(bot.name)
                    running.ended(claim)
                    shared.lapses.forget(claim)
                }
            }
        }
    }

    /// One bot of the fleet, run as `start` runs it, on the process's shared parts.
    struct BotService: Service {
        let fleet: FleetRun
        let shared: Shared
        let registry: PostgresFleetRegistry
        let bot: FleetBot
        let claim: FleetClaim
        let process: String
        let logger: Logger

        func run() async throws {
            do {
                try await runBot()
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                // A bot whose lease is gone failed because it is another's now (its statements are refused): it stops,
                // unpaused, and runs where it is held.
                guard
                    await FleetDaemonLease(
                        registry: registry, claim: claim, process: process, lapses: shared.lapses, length: fleet.timing.leaseSeconds
                    ).isHeld(logger: logger)
                else {
                    logger.notice("fleet: bot \(bot.name) stopped: its lease is no longer this process's (\(error))")
                    return
                }
                // The bot's failure is its own: paused with the reason, never tried again until someone resumes it.
                let reason = "stopped \(Date().formatted(.iso8601)): \(error)"
                do {
                    try await registry.setPaused(bot.name, reason: String(reason.prefix(500)))
                    logger.error("fleet: bot \(bot.name) paused: \(error)")
                } catch let pausing {
                    logger.error(
                        "fleet: bot \(bot.name) failed (\(error)), and pausing it failed too (\(pausing)): it is tried again at a later claim")
                }
            }
        }

        private func runBot() async throws {
            let settings = try fleet.key.open(bot.sealedSettings, bot: bot.name)
            let configuration = try Configuration(
                environment: FleetBotSettings.environment(of: bot.name, settings: settings, process: fleet.environment))
            try configuration.require([.humanCredentials, .botCredentials])
            // Every statement of the bot checks its lease first: a process that stalled past its lease writes nothing more.
            let database = PostgresStoreSet(
                sharing: shared.pool, schema: bot.schema,
                settings: StoreSettings(
                    timeZone: configuration.behaviour.timeZone,
                    archiveRowLimit: configuration.storage.archiveRowLimit
                ).forDaemon(),
                fence: .init(registrySchema: shared.pool.schema ?? "public", claim: claim, process: process))
            if try await !database.migrations.pending().isEmpty { try await database.migrations.migrate() }
            try await database.archive.prepare()
            let store = RedisWordCounts(connection: shared.counts, keyPrefix: configuration.storage.redisKeys)
            let classifier = BotParts.classifier(
                on: store, tokenizer: shared.tokenizer, configuration: configuration, examples: database.examples, logger: logger)
            let clock = fleet.clock
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
                    postLinks: configuration.postLinks, networkIDs: database.networkIDs, sealer: KeySealer(key: fleet.key)), logger: logger)
            let lease = FleetDaemonLease(registry: registry, claim: claim, process: process, lapses: shared.lapses, length: fleet.timing.leaseSeconds)
            let parts = DaemonComposition.Parts(
                settings: configuration.daemonSettings, database: database, classifier: classifier, network: network.network,
                clock: clock, accountingServices: network.services, lease: lease, consentCheck: gate.check(through: network.personCheck),
                logger: logger)
            var options = DaemonRunner.Options(speed: fleet.speed, handlesSignals: false)
            options.cancellationLimit = nil  // RunningBots bounds the stop; a bot never ends the process
            _ = try await DaemonComposition.run(parts, options: options)
        }
    }
}

/// A bot's lease in the fleet, as the daemon's lease keeper checks it: held while this process's hold (its fencing
/// number) is still the bot's and unexpired. Its network writes end before the hold lapses as this process last
/// knew it (its claim or last renewal, plus the lease's length, on the real clock).
struct FleetDaemonLease: DaemonLease {
    let registry: PostgresFleetRegistry
    let claim: FleetClaim
    let process: String
    let lapses: LeaseLapses
    /// The lease's length.
    let length: TimeInterval

    var writeDeadline: WriteDeadline? {
        let (lapses, claim) = (lapses, claim)
        return WriteDeadline(clock: SystemBotClock(), leaseLength: length) { lapses.lapse(of: claim) ?? .distantPast }
    }

    var holder: LeaseHolder { .thisProcess() }
    func isHeld(logger: Logger) async -> Bool { (try? await registry.holds(claim, for: process)) ?? false }
    /// The fleet's loop lets leases go.
    func release() async {}
    /// The fleet's rounds renew it, and stop the bot when it is lost.
    var isKeptByTheDaemon: Bool { false }
}

/// When each hold of this process lapses unless renewed, as its claim or last renewal said (on the real clock).
final class LeaseLapses: Sendable {
    private let lapses = Mutex<[FleetClaim: Date]>([:])

    /// `claim` was claimed or renewed: it lapses at `date` unless renewed again.
    func set(_ claim: FleetClaim, _ date: Date) { lapses.withLock { $0[claim] = date } }
    /// When `claim` lapses; nil when it is not this process's.
    func lapse(of claim: FleetClaim) -> Date? { lapses.withLock { $0[claim] } }
    /// `claim`'s bot stopped here.
    func forget(_ claim: FleetClaim) { _ = lapses.withLock { $0.removeValue(forKey: claim) } }
}

/// The bots this process runs.
final class RunningBots: Sendable {
    struct Entry {
        var bot: FleetBot
        var claim: FleetClaim
        var group: ServiceGroup
        var task: Task<Void, Never>
        var finished: Finished
    }
    /// Whether a bot's task has ended.
    final class Finished: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }
    /// How long, in real time, a stopping bot may take to finish gracefully before it is cancelled, and then to end
    /// before the process stops waiting for it (a bot still starting, waiting on a network that does not answer, only
    /// ends when cancelled; one that ignores even that is left to end with the process).
    struct StopLimits: Sendable {
        var graceful: Duration = .seconds(20)
        var cancelled: Duration = .seconds(5)
    }
    private let entries = Mutex<[Int64: Entry]>([:])
    /// Bots being stopped in the background, until they have.
    private let stopping = Mutex<[UUID: Task<Void, Never>]>([:])
    let limits: StopLimits
    let logger: Logger

    init(limits: StopLimits = StopLimits(), logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    var count: Int { entries.withLock { $0.count } }
    /// The claims held, oldest bot first.
    var claims: [FleetClaim] { entries.withLock { $0.values.map(\.claim).sorted { $0.botID < $1.botID } } }
    func name(of botID: Int64) -> String? { entries.withLock { $0[botID]?.bot.name } }

    /// Adds the bot and starts `body` in a task of its own; the entry is in before the task can end and remove it.
    func add(bot: FleetBot, claim: FleetClaim, group: ServiceGroup, body: @escaping @Sendable () async -> Void) {
        let finished = Finished()
        entries.withLock {
            $0[bot.id] = Entry(
                bot: bot, claim: claim, group: group,
                task: Task {
                    await body()
                    finished.set()
                }, finished: finished)
        }
    }

    /// A bot's run (the hold `claim`) ended by itself (paused with its reason): its lease lapses, unrenewed. A later
    /// hold of the same bot, already running again, is left alone.
    func ended(_ claim: FleetClaim) {
        entries.withLock { entries in if entries[claim.botID]?.claim == claim { entries.removeValue(forKey: claim.botID) } }
    }

    /// Stops a bot gracefully (its tick in flight finishes) in the background, then, once it has ended, runs `then`
    /// (letting its lease go): the rounds go on meanwhile, renewing the other bots' leases however long a stop takes.
    /// From now on the bot's lease is no longer renewed.
    func stopInBackground(_ botID: Int64, then: @escaping @Sendable () async -> Void = {}) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: botID) }) else { return }
        let key = UUID()
        let task = Task { [self] in
            if await stop(entry) { await then() }
        }
        stopping.withLock { $0[key] = task }
        Task {
            await task.value
            _ = stopping.withLock { $0.removeValue(forKey: key) }
        }
    }

    /// Stops every bot, all at once, and waits for them and for those being stopped (each within the limits).
    func stopAll() async {
        let all = entries.withLock { entries in
            defer { entries = [:] }
            return Array(entries.values)
        }
        await withTaskGroup(of: Void.self) { group in
            for entry in all { group.addTask { [self] in _ = await stop(entry) } }
        }
        for task in stopping.withLock({ Array($0.values) }) { await task.value }
    }

    /// Stops `entry`'s bot: gracefully, then cancelled past `limits.graceful`; true once it has ended, false when it
    /// had not within `limits.cancelled` more (said in the log).
    private func stop(_ entry: Entry) async -> Bool {
        await entry.group.triggerGracefulShutdown()
        if await Self.wait(for: entry.finished, upTo: limits.graceful) { return true }
        logger.warning("fleet: bot \(entry.bot.name) did not stop within \(limits.graceful) of being asked to; cancelling it")
        entry.task.cancel()
        if await Self.wait(for: entry.finished, upTo: limits.cancelled) { return true }
        logger.error(
            "fleet: bot \(entry.bot.name) did not end within \(limits.cancelled) of being cancelled; left to end with the process (its lease lapses)")
        return false
    }

    /// Whether `finished` is set within `limit` of real time (looked at every 50 ms); at once when the waiting task is
    /// cancelled (the process is ending anyway).
    private static func wait(for finished: Finished, upTo limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !finished.isSet {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return finished.isSet }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return true
    }
}
