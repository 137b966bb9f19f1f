import Stores
public import BotConfiguration
import BotClock
import CoreMetrics
public import Daemon
import Prometheus
import Foundation
public import Logging
import ServiceLifecycle
import SocialNetwork
import StatusPage
import Training

/// `mirror_bot start` assembled: the parts built once (one database pool for the whole run, migrated or refused by
/// the migration rule; the word counts checked; the classifier; the network its module opens), then the daemon run
/// on them until a signal or the end of `--duration`.
public enum DaemonStart {
    /// Builds the bot from `configuration` and runs it; returns what it did.
    public static func run(configuration: Configuration, options: DaemonRunner.Options, logger: Logger) async throws -> DaemonRunner.Summary {
        try configuration.require([.humanCredentials, .botCredentials])
        let parts = try BotParts(configuration: configuration, role: .daemon, logger: logger)
        // Before starting: the database answers and is migrated, the word counts answer, both accounts are known.
        return try await parts.withRunning { parts in
            logger.notice("archive: \(parts.database.location)\(configuration.storage.database == nil ? " (DATABASE_URL is not set)" : "")")
            // One daemon per bot: a second one stops here, naming the first.
            let lease = try await parts.database.takeLease(logger: logger)
            do {
                logger.notice("lease: this bot's store is held by \(lease.holder)")
                let (store, storeDescription) = try parts.wordCounts()
                logger.notice("word counts: \(storeDescription)")
                do {
                    _ = try await store.isTrained("classifier")
                } catch {
                    // Posting and replying need only the archive: the bot starts, and liking and learning wait for the counts.
                    logger.error("The word counts do not answer (\(error)); posting and replying go on, liking and learning resume when they do.")
                }
                // The bot's clock starts once the stores are checked, just before the first API call.
                let clock: any BotClock = options.speed == 1 && options.startTime == nil
                    ? SystemBotClock() : SimulatedBotClock(start: options.startTime ?? Date(), speed: options.speed)
                let module = configuration.networkModule
                let opened = await module.forDaemon(DaemonNetworkContext(clock: clock, state: parts.state, usageDays: parts.usageDays,
                                                                         runID: UUID().uuidString, postLinks: configuration.postLinks), logger: logger)
                let network = opened.network
                // PORT: the status page, in this process; its health checks ask the stores the daemon runs on.
                // It starts before anything waits on the network, and says what the start waits for.
                var viewServices: [any Service] = []
                let progress = StartupProgress()
                if let port = configuration.statusPage.port {
                    let database = parts.database
                    let health = HealthChecks([
                        .init(name: "archive") { try await database.ping() },
                        .init(name: "word counts") { _ = try await store.isTrained("classifier") },
                        .init(name: "network") { try progress.check() },
                    ])
                    // The process's metrics (swift-metrics) are kept for /metrics from now on.
                    let registry = PrometheusCollectorRegistry()
                    MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
                    var settings = StatusServer.Settings(port: port, password: configuration.statusPage.password,
                                                         dailyBudget: module.dailyBudget, timeZone: configuration.behaviour.timeZone,
                                                         metrics: registry, postLinks: module.postLinks)
                    let calibrator = LikeDecision.calibrator(for: try parts.classifier(on: store), settings: configuration.likeSettings, database: database)
                    settings.likeModel = { try? await calibrator.stored()?.result.summary }
                    settings.endpointCalls = { [network] in network.endpointCalls() }
                    settings.networkName = network.name
                    viewServices.append(StatusServer(settings: settings, database: database, health: health, now: { clock.now() }, logger: logger))
                }
                let daemonParts = DaemonComposition.Parts(settings: configuration.daemonSettings, database: parts.database, classifier: try parts.classifier(on: store),
                                                     network: network, clock: clock, accountingServices: opened.services,
                                                     lease: lease, viewServices: viewServices, progress: progress, logger: logger)
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
