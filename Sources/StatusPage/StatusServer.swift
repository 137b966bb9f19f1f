public import BotCore
public import Stores
public import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
public import Logging
public import Prometheus
public import SocialNetwork
public import ServiceLifecycle

/// The bot's window over HTTP, served by `start` in the same process when `PORT` is set, and started and stopped
/// with its service group: `/healthz` for anyone; with `STATUS_PASSWORD`, the JSON API under `/api/v1/` behind HTTP
/// basic auth. Read-only, and nothing secret is ever shown (no tokens, no URLs with passwords).
public struct StatusServer: Service {
    /// Where it listens and who may look.
    public struct Settings: Sendable {
        /// The address to bind (`0.0.0.0` on a dyno; `127.0.0.1` in tests).
        public var host: String
        /// The TCP port (`PORT`); 0 picks a free one.
        public var port: Int
        /// `STATUS_PASSWORD`; nil: only `/healthz` answers.
        public var password: String?
        /// The most the bot spends on the network in a UTC day (shown beside the spend), nil where nothing is billed.
        public var dailyBudget: Double?
        /// Where the network shows a post, from its id.
        public var postLinks: PostAddresses
        /// The person's time zone (`TZ`): the page's day and clock.
        public var timeZone: TimeZone
        /// Where the process's metrics are kept (the swift-metrics backend), served at `/metrics`.
        public var metrics: PrometheusCollectorRegistry
        /// The network the bot lives on ("X", "Mastodon"), shown in the page's title.
        public var networkName = ""
        /// How likes are decided now (the model, its threshold and cross-validated figures), when known.
        public var likeModel: @Sendable () async -> String? = { nil }
        /// Each endpoint's calls, failures and last success (X and Mastodon count them).
        public var endpointCalls: @Sendable () -> [EndpointCalls] = { [] }
        /// How long a connection may stay open with no complete request read nor answer written: a client that sends
        /// nothing, or trickles its headers, is closed after it.
        public var idleTimeout = Duration.seconds(30)
        /// The most connections held open at once; past it a new one is closed at once.
        public var connectionLimit = 64

        /// Settings from their parts.
        public init(host: String = "0.0.0.0", port: Int, password: String?, dailyBudget: Double?, timeZone: TimeZone = TimeZone(identifier: "UTC")!,
                    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), postLinks: PostAddresses = .none) {
            self.host = host; self.port = port; self.password = password; self.dailyBudget = dailyBudget; self.timeZone = timeZone
            self.metrics = metrics; self.postLinks = postLinks
        }
    }

    let settings: Settings
    let database: any StoreSet
    let health: HealthChecks
    let now: @Sendable () -> Date
    let logger: Logger

    /// A server over `database` (what it shows) with `health` (what `/healthz` checks); `now` is the bot's clock.
    public init(settings: Settings, database: any StoreSet, health: HealthChecks, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.settings = settings; self.database = database; self.health = health; self.now = now; self.logger = logger
    }

    /// Serves until the service group's graceful shutdown (requests in flight are answered).
    public func run() async throws {
        try await application { port in
            logger.notice("status: serving /healthz\(settings.password == nil ? " (STATUS_PASSWORD is not set: only /healthz answers)" : " and /api/v1/ (basic auth with STATUS_PASSWORD)") on port \(port)")
        }.run()
    }

    /// The Hummingbird application; `onStarted` gets the bound port.
    package func application(onStarted: @escaping @Sendable (Int) async -> Void) -> some Service {
        let connections = OpenConnections(limit: settings.connectionLimit)
        let idle = settings.idleTimeout.components
        let channel = HTTP1Channel.Configuration(additionalChannelHandlers: [ConnectionLimit(connections)],
                                                 idleTimeout: .nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000))
        return Application(
            router: router(),
            server: .http1(configuration: channel),
            configuration: ApplicationConfiguration(address: .hostname(settings.host, port: settings.port), serverName: "mirror_bot"),
            onServerRunning: { channel in await onStarted(channel.localAddress?.port ?? settings.port) },
            logger: logger)
    }

    /// The routes: `/healthz`; behind the password, the page (`/`), `/metrics`, `/api/v1/actions`, `/api/v1/plans/:day` and `/api/v1/usage/days`;
    /// every error as the API's error body.
    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(SecurityHeaders())
        router.middlewares.add(ErrorBodies(logger: logger))
        router.middlewares.add(BasicAuthentication(password: settings.password, open: ["/healthz"]))
        let api = StatusAPI(database: database, dailyBudget: settings.dailyBudget, timeZone: settings.timeZone, postLinks: settings.postLinks,
                            likeModel: settings.likeModel, endpointCalls: settings.endpointCalls, networkName: settings.networkName, now: now)
        let health = health
        router.get("/healthz") { request, _ in try await health.response() }
        router.get("/") { _, _ in try await api.page(health: health) }
        let metrics = settings.metrics
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
        }
        router.get("/api/v1/plans/:day") { request, context in
            try await api.plan(day: context.parameters.get("day") ?? "", request: request)
        }
        router.get("/api/v1/usage/days") { request, _ in try await api.usageDays(request: request) }
        router.get("/api/v1/actions") { request, _ in try await api.actions(request: request, path: "/api/v1/actions") }
        return router
    }
}
