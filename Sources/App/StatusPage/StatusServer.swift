public import BotClock
public import BotCore
public import Foundation
import Hummingbird
import HummingbirdCore
public import Logging
public import NIOCore
public import Prometheus
public import ServiceLifecycle
public import SocialNetwork
public import Stores
import Synchronization

/// The bot's window over HTTP, served by `start` in the same process when `PORT` is set, and started and stopped
/// with its service group: `/healthz` for anyone; with `STATUS_PASSWORD`, the JSON API under `/api/v1/` behind HTTP
/// basic auth. Read-only, and nothing secret is ever shown (no tokens, no URLs with passwords).
public struct StatusServer: Service {
    /// Where it listens and who may look.
    public struct Settings: Sendable {
        /// The address to bind (`BIND`: loopback unless the platform routes to the port, `0.0.0.0` on a dyno).
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
        /// The most bytes a request's body may hold: the API is read-only and reads none. A request that declares
        /// more is answered 413 and its connection closed at once; one that sends more without declaring it is closed.
        public var maximumBodyBytes = 16_384
        /// The most connections held open at once; past it a new one is closed at once.
        public var connectionLimit = 64
        /// The most connections held open from one address (not behind a router, whose addresses are everyone's).
        public var connectionsPerClient = 16
        /// Whether a platform's router stands in front (Heroku): clients are then told apart by the last
        /// `X-Forwarded-For` entry, which the router sets, rather than by the connection's address (the router's).
        public var behindRouter = false
        /// The real-time clock wrong passwords are counted on.
        public var clock: any BotClock = SystemBotClock()
        /// The event loops it serves on; nil: the process's shared ones (as the bot's other network work).
        public var eventLoopGroup: (any EventLoopGroup)?
        /// For a fleet process: the fleet's list at `/` and `/api/v1/bots`, each bot running here at `/bots/<name>/` (its
        /// page) and `/bots/<name>/api/v1/…` (its API); `content` is then unused.
        public var fleet: FleetStatusContent?

        /// Settings from their parts.
        public init(
            host: String = "127.0.0.1", port: Int, password: String?, dailyBudget: Double?, timeZone: TimeZone = TimeZone(identifier: "UTC")!,
            metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), postLinks: PostAddresses = .none
        ) {
            self.host = host
            self.port = port
            self.password = password
            self.dailyBudget = dailyBudget
            self.timeZone = timeZone
            self.metrics = metrics
            self.postLinks = postLinks
        }
    }

    let settings: Settings
    let content: StatusContent
    /// What `/healthz` answers from.
    public let health: HealthMonitor
    let logger: Logger

    /// A server showing `content` (the stores, once they answer), with `health` (what `/healthz` answers from: its
    /// checks run in the background while the server runs).
    public init(settings: Settings, content: StatusContent, health: HealthMonitor, logger: Logger) {
        self.settings = settings
        self.content = content
        self.health = health
        self.logger = logger
    }

    /// A server over `database`, open from the start, with `health`'s checks; `now` is the bot's clock.
    public init(settings: Settings, database: any StoreSet, health: HealthChecks, now: @escaping @Sendable () -> Date, logger: Logger) {
        let content = StatusContent()
        content.show(database: database, now: now)
        self.init(settings: settings, content: content, health: HealthMonitor(health), logger: logger)
    }

    /// Serves until the service group's graceful shutdown (requests in flight are answered); the health checks run
    /// in the background meanwhile.
    public func run() async throws {
        try await application { [settings, logger] port in
            logger.notice(
                "status: serving /healthz\(settings.password == nil ? " (STATUS_PASSWORD is not set: only /healthz answers)" : " and /api/v1/ (basic auth with STATUS_PASSWORD)") on \(settings.host) port \(port)"
            )
        }.run()
    }

    /// The Hummingbird application with the health checks running beside it; `onStarted` gets the bound port.
    package func application(onStarted: @escaping @Sendable (Int) async -> Void) -> some Service {
        WithHealthChecks(application: hummingbird(onStarted: onStarted), health: health)
    }

    /// A service and the health checks that run while it does.
    struct WithHealthChecks<Application: Service>: Service {
        let application: Application
        let health: HealthMonitor

        func run() async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await health.run() }
                defer { group.cancelAll() }
                try await application.run()
            }
        }
    }

    /// The Hummingbird application; `onStarted` gets the bound port.
    private func hummingbird(onStarted: @escaping @Sendable (Int) async -> Void) -> some Service {
        let connections = OpenConnections(limit: settings.connectionLimit, perClient: settings.behindRouter ? nil : settings.connectionsPerClient)
        let idle = settings.idleTimeout.components
        let maximumBodyBytes = settings.maximumBodyBytes
        let channel = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionLimit(connections), RequestDefences(maximumBodyBytes: maximumBodyBytes)],
            idleTimeout: .nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000))
        return Application(
            router: router(),
            server: .http1(configuration: channel),
            configuration: ApplicationConfiguration(address: .hostname(settings.host, port: settings.port), serverName: "mirror_bot"),
            onServerRunning: { channel in await onStarted(channel.localAddress?.port ?? settings.port) },
            eventLoopGroupProvider: settings.eventLoopGroup.map { .shared($0) } ?? .singleton,
            logger: logger)
    }

    /// The routes: `/healthz`; behind the password, the page (`/`), `/metrics`, `/api/v1/actions`, `/api/v1/plans/:day` and `/api/v1/usage/days`;
    /// every error as the API's error body.
    private func router() -> Router<StatusRequestContext> {
        // HEAD is answered as GET is, without the body (`HEAD /healthz` was 404).
        let router = Router(context: StatusRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.middlewares.add(HeadWithoutBody())
        router.middlewares.add(SecurityHeaders())
        router.middlewares.add(ErrorBodies(logger: logger))
        let clock = settings.clock
        router.middlewares.add(
            BasicAuthentication(
                password: settings.password, open: ["/healthz"], failures: FailedLogins(now: { clock.now() }),
                behindRouter: settings.behindRouter))
        let settings = settings
        let content = content
        let api: @Sendable () throws -> StatusAPI = {
            let shown = try content.shown()
            let (database, now) = (shown.database, shown.now)
            return StatusAPI(
                database: database, dailyBudget: settings.dailyBudget, timeZone: settings.timeZone, postLinks: settings.postLinks,
                likeModel: settings.likeModel, endpointCalls: settings.endpointCalls, networkName: settings.networkName, now: now)
        }
        let health = health
        router.get("/healthz") { _, _ in try health.response() }
        let metrics = settings.metrics
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
        }
        if let fleet = settings.fleet {
            addFleetRoutes(to: router, fleet: fleet)
            return router
        }
        router.get("/") { _, _ in
            guard content.isShown else { return StatusPageView.startingPage(waitingFor: content.waitingFor(), networkName: settings.networkName) }
            return try await api().page(health: health.outcomes, waitingFor: content.waitingFor())
        }
        router.get("/api/v1/plans/:day") { request, context in
            try await api().plan(day: context.parameters.get("day") ?? "", request: request)
        }
        router.get("/api/v1/usage/days") { request, _ in try await api().usageDays(request: request) }
        router.get("/api/v1/actions") { request, _ in try await api().actions(request: request, path: "/api/v1/actions") }
        return router
    }

    /// A fleet's routes: the list, and each bot running here under `/bots/<name>/`; a bot not running here is 404, saying
    /// where it runs.
    private func addFleetRoutes(to router: Router<StatusRequestContext>, fleet: FleetStatusContent) {
        let health = health
        router.get("/") { request, _ in try await FleetStatusView.response(html: true, content: fleet, request: request) }
        router.get("/api/v1/bots") { request, _ in try await FleetStatusView.response(html: false, content: fleet, request: request) }
        let api: @Sendable (String) throws -> StatusAPI = { name in
            guard let page = fleet.page(of: name) else {
                throw APIError(
                    status: .notFound, code: .notFound,
                    message: "No bot named \(name) runs in this process (\(fleet.process)); the list at / says where each bot runs.")
            }
            return StatusAPI(
                database: page.database, dailyBudget: page.dailyBudget, timeZone: page.timeZone, postLinks: page.postLinks,
                likeModel: { nil }, endpointCalls: { [] }, networkName: page.networkName, now: page.now)
        }
        let name: @Sendable (any RequestContext) -> String = { $0.parameters.get("name") ?? "" }
        router.get("/bots/:name") { _, context in try await api(name(context)).page(health: health.outcomes, waitingFor: nil) }
        router.get("/bots/:name/api/v1/plans/:day") { request, context in
            try await api(name(context)).plan(day: context.parameters.get("day") ?? "", request: request)
        }
        router.get("/bots/:name/api/v1/usage/days") { request, context in try await api(name(context)).usageDays(request: request) }
        router.get("/bots/:name/api/v1/actions") { request, context in
            try await api(name(context)).actions(request: request, path: "/bots/\(name(context))/api/v1/actions")
        }
    }
}

/// What the status server shows, once the stores answer: the server binds its port before they do, and until then
/// the page says what the start waits for and the API answers 503 (code 1009).
public final class StatusContent: Sendable {
    /// The stores and the bot's clock, once shown.
    struct Shown: Sendable {
        let database: any StoreSet
        let now: @Sendable () -> Date
    }
    private let shownParts = Mutex<Shown?>(nil)
    /// What the start waits for (nil: nothing).
    let waitingFor: @Sendable () -> String?

    /// Content not shown yet; `waitingFor` says why.
    public init(waitingFor: @escaping @Sendable () -> String? = { nil }) { self.waitingFor = waitingFor }

    /// Shows `database` from now on; `now` is the bot's clock.
    public func show(database: any StoreSet, now: @escaping @Sendable () -> Date) {
        let shown = Shown(database: database, now: now)
        shownParts.withLock { $0 = shown }
    }

    /// Whether the stores are shown yet.
    var isShown: Bool { shownParts.withLock { $0 != nil } }

    /// The stores and the clock; an API error while the start has not opened them.
    func shown() throws -> Shown {
        if let parts = shownParts.withLock({ $0 }) { return parts }
        throw APIError(
            status: .serviceUnavailable, code: .starting,
            message: "The bot is starting: waiting for \(waitingFor() ?? "its stores"). Try again shortly.")
    }
}
