import BotClock
import BotConfiguration
import Classifier
import CoreMetrics
public import Daemon
import Foundation
public import Logging
import Prometheus
import ServiceLifecycle
import SocialNetwork
import StatusPage
import Stores
import Synchronization
import Training
import WordCounts

/// `mirror_bot start` assembled: the status page first (it binds `PORT` before anything waits on a store or the
/// network, and says what the start waits for), then the parts built once (one database pool for the whole run,
/// migrated or refused by the migration rule; the word counts checked; the classifier; the network its module
/// opens), then the daemon run on them until a signal or the end of `--duration`.
public enum DaemonStart {
    /// Builds the bot from `configuration` and runs it; returns what it did.
    public static func run(configuration: Configuration, options: DaemonRunner.Options, logger: Logger) async throws -> DaemonRunner.Summary {
        try configuration.require([.humanCredentials, .botCredentials])
        let sealer = try configuration.tokenSealer()
        let parts = try BotParts(configuration: configuration, role: .daemon, logger: logger)
        let progress = StartupProgress()
        let opened = OpenedLater()
        let (views, content) = statusPage(configuration: configuration, progress: progress, opened: opened, logger: logger)
        return try await DaemonComposition.withViewServices(views, logger: logger) {
            // Before starting: the database answers and is migrated, the word counts answer, both accounts are known.
            try await parts.withRunning { parts in
                logger.notice("archive: \(parts.database.location)\(configuration.storage.database == nil ? " (DATABASE_URL is not set)" : "")")
                // One daemon per bot: a second one stops here, naming the first.
                progress.waiting(for: "this bot's lease (another daemon may hold it)")
                let lease = try await parts.database.takeLease(logger: logger)
                do {
                    logger.notice("lease: this bot's store is held by \(lease.holder)")
                    let (store, storeDescription) = try parts.wordCounts()
                    logger.notice("word counts: \(storeDescription)")
                    progress.waiting(for: "the word counts to answer")
                    do {
                        _ = try await store.isTrained("classifier")
                    } catch {
                        // Posting and replying need only the archive: the bot starts, and liking and learning wait for the counts.
                        logger.error("The word counts do not answer (\(error)); posting and replying go on, liking and learning resume when they do.")
                    }
                    // The bot's clock starts once the stores are checked, just before the first API call.
                    let clock: any BotClock =
                        options.speed == 1 && options.startTime == nil
                        ? SystemBotClock() : SimulatedBotClock(start: options.startTime ?? Date(), speed: options.speed)
                    let module = configuration.networkModule
                    // Nothing of the person is used before their consent is in the store.
                    let gate = PersonConsentGate(configuration: configuration, stores: parts.database, logger: logger)
                    let consent = try await gate.requireWaiting(
                        for: "start", readsPerson: !configuration.learnsPersonFromArchiveOnly, clock: clock,
                        progress: progress)
                    logger.notice(
                        "consent: @\(consent.personHandle) (\(consent.personAccount)) signed in \(consent.signedInAt.formatted(.iso8601)); \(gate.check() == nil ? "no credentials of theirs are configured, so none is checked (a mention of theirs or forget-me ends the mirror)" : "their grant is checked \(module.dailyBudget == nil ? "every \(PersonConsentGate.freeCheckSeconds / 60) minutes" : "once a day (one billed GET /2/users/me)"), and a revoked one ends the mirror")"
                    )
                    let network = await module.forDaemon(
                        DaemonNetworkContext(
                            clock: clock, state: parts.state, usageDays: parts.usageDays,
                            runID: UUID().uuidString, postLinks: configuration.postLinks,
                            sealer: sealer), logger: logger)
                    let classifier = try parts.classifier(on: store)
                    opened.set(
                        .init(
                            database: parts.database, wordCounts: store, network: network.network, clock: clock,
                            calibrator: LikeDecision.calibrator(for: classifier, settings: configuration.likeSettings, database: parts.database)))
                    content?.show(database: parts.database, now: { clock.now() })
                    let daemonParts = DaemonComposition.Parts(
                        settings: configuration.daemonSettings, database: parts.database, classifier: classifier,
                        network: network.network, clock: clock, accountingServices: network.services,
                        lease: lease, progress: progress, consentCheck: gate.check(through: network.personCheck), logger: logger)
                    let summary = try await DaemonComposition.run(daemonParts, options: options)
                    await lease.release()
                    return summary
                } catch {
                    await lease.release()
                    throw error
                }
            }
        }
    }

    /// The parts the status page shows, known once the start has opened them.
    struct Opened: Sendable {
        var database: any StoreSet
        var wordCounts: any WordCountBackend
        var network: any MirrorNetwork
        var clock: any BotClock
        var calibrator: Calibrator
    }

    /// `Opened`, set once by the start and read by the status page's checks.
    final class OpenedLater: Sendable {
        private let value = Mutex<Opened?>(nil)
        /// Sets the parts.
        func set(_ opened: Opened) { value.withLock { $0 = opened } }
        /// The parts, once set.
        var parts: Opened? { value.withLock { $0 } }
    }

    /// `PORT`'s status page, when `PORT` is set: it binds at once; its checks name what the start waits for until
    /// each part is opened, and its pages show the stores from then on.
    static func statusPage(
        configuration: Configuration, progress: StartupProgress, opened: OpenedLater,
        logger: Logger
    ) -> (views: [any Service], content: StatusContent?) {
        guard let port = configuration.statusPage.port else { return ([], nil) }
        let waiting: @Sendable () -> StillStarting = { StillStarting(waitingFor: progress.pending ?? "the services to start") }
        let health = HealthChecks([
            .init(name: "archive") {
                guard let database = opened.parts?.database else { throw waiting() }
                try await database.ping()
            },
            .init(name: "word counts") {
                guard let store = opened.parts?.wordCounts else { throw waiting() }
                _ = try await store.isTrained("classifier")
            },
            .init(name: "network") { if progress.pending != nil { throw waiting() } },
        ])
        // The process's metrics (swift-metrics) are kept for /metrics from now on.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let module = configuration.networkModule
        var settings = StatusServer.Settings(
            host: configuration.statusPage.bindAddress, port: port, password: configuration.statusPage.password,
            dailyBudget: module.dailyBudget, timeZone: configuration.behaviour.timeZone,
            metrics: registry, postLinks: module.postLinks)
        settings.behindRouter = configuration.statusPage.behindRouter
        settings.likeModel = { try? await opened.parts?.calibrator.stored()?.result.summary }
        settings.endpointCalls = { opened.parts?.network.endpointCalls() ?? [] }
        settings.networkName = module.name
        let content = StatusContent(waitingFor: { progress.pending })
        return ([StatusServer(settings: settings, content: content, health: HealthMonitor(health), logger: logger)], content)
    }
}
