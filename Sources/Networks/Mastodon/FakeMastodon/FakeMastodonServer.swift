public import FakeKit
public import Foundation
import HTTPTypes
import Hummingbird
public import Logging
import MastodonAPI
import NIOCore
import NIOFoundationCompat
import ServiceLifecycle

/// A fake Mastodon instance on loopback, serving the endpoints mirror_bot uses from memory, as the OpenAPI
/// document and Mastodon's documentation describe them: bearer tokens and their scopes checked, `Link` paging by
/// `max_id`/`since_id`/`min_id`, `types[]=mention` notifications with their own ids, the rate limit (300 calls per
/// account and 5 minutes) with its three headers, `Idempotency-Key` honoured (one status per key, kept an hour as Mastodon keeps it), visibility
/// (private and direct statuses shown only to whom they are for), statuses hidden until their `created_at`, and
/// faults on demand (503, an answer lost after the work was done). OAuth 2 too: applications registered, the
/// authorization page (signed in with a seed account's password), codes with PKCE exchanged for tokens that act as the
/// account with the scopes granted, and tokens revoked (`FakeMastodonServer+OAuth.swift`).
public final class FakeMastodonServer: Sendable {
    let world: FakeMastodonWorld
    private let logger: Logger

    /// A server holding `seed`.
    public init(seed: FakeMastodonSeed, logger: Logger = Logger(label: "fake-mastodon")) {
        world = FakeMastodonWorld(seed: seed)
        self.logger = logger
    }

    /// Serves on `host`:`port` (0 picks a free port) until the task is cancelled; `onStarted` gets the bound port.
    public func run(host: String = "127.0.0.1", port: Int = 0, onStarted: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await application(host: host, port: port, onStarted: onStarted).run()
    }

    /// The HTTP server, and before it in shutdown order the closing of open streams (a graceful shutdown waits for
    /// every answer in flight, and a stream never ends by itself).
    private func application(host: String, port: Int, onStarted: @escaping @Sendable (Int) async -> Void) -> some Service {
        let application = Application(
            router: router(), configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "fake-mastodon"),
            onServerRunning: { channel in await onStarted(channel.localAddress?.port ?? port) }, logger: logger)
        return ServiceGroup(configuration: .init(services: [application, StreamCloser(world: world)], logger: logger))
    }

    /// Ends every open stream when the server shuts down.
    private struct StreamCloser: Service {
        let world: FakeMastodonWorld
        func run() async throws {
            try? await gracefulShutdown()
            await world.endStreams()
        }
    }

    /// Runs the server for the duration of `body`, which gets its base URL; then shuts it down gracefully.
    public func withRunning<Result: Sendable>(isolation: isolated (any Actor)? = #isolation, _ body: (URL) async throws -> Result) async throws
        -> Result
    {
        try await LoopbackServer.withRunning(logger: logger, { onStarted in application(host: "127.0.0.1", port: 0, onStarted: onStarted) }, body)
    }

    // MARK: - Administration from Swift

    /// The instance's clock.
    public func now() async -> Date { await world.now }
    /// Sets the clock, and how fast it runs from now on (instance seconds per real second; 0 stops it).
    public func setClock(_ date: Date, speed: Double? = nil) async { await world.setClock(date, speed: speed) }
    /// Moves the clock forward.
    public func advanceClock(by seconds: TimeInterval) async { await world.advanceClock(by: seconds) }
    /// Adds statuses (visible once the clock reaches their time).
    public func add(statuses: [FakeMastodonSeed.Status]) async { await world.add(statuses: statuses) }
    /// Queues a fault.
    public func add(fault: FakeMastodonFault) async { await world.add(fault: fault) }
    /// Deletes a status, as its author deleting it; false when unknown.
    @discardableResult
    public func delete(statusID: String) async -> Bool { await world.delete(statusID: statusID) }
    /// Sets the calls allowed per account and 5 minutes.
    public func setRateLimit(_ limit: Int) async { await world.setRateLimit(limit) }
    /// Makes the streaming endpoint answer (true) or refuse with 503 (false), as an instance whose streaming
    /// server is down.
    public func setStreamingAvailable(_ available: Bool) async { await world.setStreamingAvailable(available) }
    /// Cuts every open stream, as a network drop or a restart of the streaming server does.
    public func cutStreams() async { await world.cutStreams() }
    /// Streams opened so far.
    public func streamsOpened() async -> Int { await world.streamsOpened }
    /// Statuses created through the API, in order.
    public func posted() async -> [FakeMastodonSeed.Status] { await world.posted }
    /// The ids of statuses deleted through the API, in order.
    public func deletedByAPI() async -> [String] { await world.deletedByAPI }
    /// Statuses created through the API, in order, as the persona's posts (plain text, the user answered), so that
    /// the checks and the demo's report read both networks alike.
    public func postedAsPosts() async -> [FakePersona.Post] { await world.postedAsPosts() }
    /// Sets the clock when the next API request arrives (a bot started just now and the instance then agree).
    public func armClock(_ date: Date, speed: Double) async { await world.armClock(date, speed: speed) }
    /// Favourites made through the API, in order.
    public func favourited() async -> [(accountID: String, statusID: String)] { await world.favourited }
    /// API requests received, by endpoint name (unknown paths under `unknown`).
    public func requestCounts() async -> [String: Int] { await world.requestCounts }

    // MARK: - OAuth from Swift

    /// The person signed in as the account `accountID` pressing "Authorize" on the authorization page at `address`
    /// (a `GET /oauth/authorize` address, as a client prints it): the request is checked as the page checks it, and the
    /// code the instance shows for `urn:ietf:wg:oauth:2.0:oob` (or sends to the redirect URI) is returned. It works for
    /// 10 minutes of the instance's clock. Throws `FakeMastodonAuthorizationRefused` with the page's words when the page
    /// would show an error (an unknown client, a redirect URI or scopes the application did not register, PKCE by
    /// another method than S256) or the account is not this instance's.
    public func approveAuthorization(at address: URL, as accountID: String) async throws -> String {
        switch await world.approve(authorizationAt: address, as: accountID) {
        case .success(let code): return code
        case .failure(let refusal): throw FakeMastodonAuthorizationRefused(error: refusal.error, description: refusal.description)
        }
    }

    /// Revokes every access token of the account `accountID` (the seed's and every one made through OAuth), as the
    /// account's owner revoking the apps under Preferences → Account → Authorized apps: each then answers 401
    /// `{"error":"The access token was revoked"}`, and the streams opened with one end. Returns how many were live.
    @discardableResult
    public func revokeAuthorizations(of accountID: String) async -> Int { await world.revokeAuthorizations(of: accountID) }
    /// Whether `token` is known and not revoked.
    public func isLive(token: String) async -> Bool { await world.isLive(token: token) }
    /// How many tokens of `accountID` are live (known and not revoked).
    public func liveTokens(of accountID: String) async -> Int { await world.liveTokens(of: accountID) }

    /// The applications registered through `POST /api/v1/apps`, each with its redirect URIs and scopes.
    public func registeredApplications() async -> [(name: String, redirectURIs: [String], scopes: [String])] {
        await world.oauth.applications.values.sorted { Int($0.id) ?? 0 < Int($1.id) ?? 0 }.map { ($0.name, $0.redirectURIs, $0.scopes) }
    }

    // MARK: - HTTP

    /// The routes, each under its endpoint type's name (`GetAccountStatuses.name` is "GET /api/v1/accounts/:id/statuses").
    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(NotFound(world: world))
        serve(VerifyCredentials.self, scope: "read:accounts", on: router) { world, call in await world.verifyCredentials(call.caller) }
        serve(GetAccountStatuses.self, scope: "read:statuses", on: router) { world, call in
            await world.accountStatuses(accountID: call.pathID, caller: call.caller, query: call.query, base: call.base)
        }
        serve(GetFavourites.self, scope: "read:favourites", on: router) { world, call in
            await world.favouritesPage(caller: call.caller, query: call.query, base: call.base)
        }
        serve(GetMentionNotifications.self, scope: "read:notifications", on: router) { world, call in
            await world.mentionNotifications(caller: call.caller, query: call.query, base: call.base)
        }
        serve(GetHomeTimeline.self, scope: "read:statuses", on: router) { world, call in
            await world.homeTimeline(caller: call.caller, query: call.query, base: call.base)
        }
        serve(GetStatus.self, scope: "read:statuses", on: router) { world, call in await world.status(id: call.pathID, caller: call.caller) }
        serve(PostStatus.self, scope: "write:statuses", on: router) { world, call in
            await world.postStatus(caller: call.caller, body: call.body, idempotencyKey: call.idempotencyKey)
        }
        serve(DeleteStatus.self, scope: "write:statuses", on: router) { world, call in await world.deleteStatus(id: call.pathID, caller: call.caller)
        }
        serve(FavouriteStatus.self, scope: "write:favourites", on: router) { world, call in
            await world.favourite(statusID: call.pathID, caller: call.caller)
        }
        serve(GetStatusContext.self, scope: "read:statuses", on: router) { world, call in
            await world.statusContext(id: call.pathID, caller: call.caller)
        }
        serve(LookupAccount.self, scope: "read:accounts", on: router) { world, call in await world.lookup(query: call.query) }
        serve(VerifyAppCredentials.self, scope: "read", on: router) { world, call in await world.application(of: call.caller) }
        addOAuthRoutes(to: router)
        addStreamingRoute(to: router)
        addAdminRoutes(to: router)
        router.get("/api/v2/instance") { [world] _, _ in
            await world.countRequest(GetInstance.name)
            if let refusal = await world.answerBeforeHandling(await world.takeFault(for: GetInstance.name)) {
                return Self.response(refusal, headers: [])
            }
            return Self.response(await world.instance(), headers: [])
        }
        return router
    }

    /// `GET /api/v1/streaming/user/notification`: server-sent events, one `notification` event for each mention made
    /// after the stream opened (as the instance's clock reveals them), a heartbeat comment every second, until the
    /// stream is cut (the connection is dropped), the server shuts down, or the client leaves.
    private func addStreamingRoute(to router: Router<BasicRequestContext>) {
        let world = world
        router.get(RouterPath("/api/v1/streaming/user/notification")) { request, _ in
            await world.countRequest(StreamMentionNotifications.name)
            let caller: FakeMastodonWorld.Caller
            switch await world.authenticate(request.headers[.authorization], scope: "read:notifications") {
            case .success(let authenticated): caller = authenticated
            case .failure(let refusal): return Self.response(refusal, headers: [])
            }
            guard await world.streamingAvailable else { return Self.response(FakeMastodonWorld.error(503, "Service Unavailable"), headers: []) }
            await world.countStreamOpened()
            let generation = await world.streamGeneration
            let opened = await world.newestNotificationID(of: caller.account.id)
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream"
            headers[.cacheControl] = "no-store"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    var last = opened
                    var sinceHeartbeat = ContinuousClock.now
                    while await world.streamsOpen {
                        guard await world.streamGeneration == generation else { throw CancellationError() }  // cut: the connection drops
                        guard await world.isLive(token: caller.token) else { throw CancellationError() }  // revoked: Mastodon ends the stream
                        let rings = await world.bell.rings
                        let (events, realSecondsToNext) = await world.notificationEvents(of: caller.account.id, after: last)
                        for (id, event) in events {
                            try await writer.write(ByteBuffer(string: event))
                            last = id
                        }
                        if ContinuousClock.now - sinceHeartbeat >= .seconds(1) {
                            try await writer.write(ByteBuffer(string: ":thump\n"))
                            sinceHeartbeat = ContinuousClock.now
                        }
                        // Asleep until a status is made, the clock is set or reveals the next mention, the streams are cut,
                        // or the next heartbeat is due.
                        let untilHeartbeat = ContinuousClock.now.duration(to: sinceHeartbeat.advanced(by: .seconds(1))).components
                        let secondsToHeartbeat = Double(untilHeartbeat.seconds) + Double(untilHeartbeat.attoseconds) / 1e18
                        await world.bell.wait(after: rings, upTo: max(0.001, min(realSecondsToNext, secondsToHeartbeat)))
                        try Task.checkCancellation()
                    }
                    try await writer.finish(nil)
                })
        }
    }

    /// `/admin/state` (what clients did, in the fakes' shape (FakeRecord): `network`, `now`, `speed`, `posted`, `liked`,
    /// `requests`, `served`, and no billing) and `/admin/clock` (`now`, `speed`, `on_first_request`,
    /// `advance_seconds`), for the demo's script and report.
    private func addAdminRoutes(to router: Router<BasicRequestContext>) {
        let world = world
        router.get("/admin/state") { _, _ in
            let posted = await world.postedAsPosts().map { post in
                JSONValue.object([
                    ("id", .string(post.id)), ("author_id", .string(post.authorID)), ("text", .string(post.text)),
                    ("created_at", .time(post.createdAt)),
                    ("in_reply_to_post_id", post.inReplyToPostID.map(JSONValue.string) ?? .null),
                    ("in_reply_to_account_id", post.inReplyToAccountID.map(JSONValue.string) ?? .null),
                ])
            }
            let liked = await world.favourited.map { JSONValue.object([("account_id", .string($0.accountID)), ("post_id", .string($0.statusID))]) }
            let requests = await world.requestCounts.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) }
            return Self.response(
                FakeMastodonResponse(
                    status: 200,
                    body: .object([
                        ("network", .string("mastodon")), ("now", .time(await world.now)), ("speed", .double(await world.speed)),
                        ("posted", .array(posted)), ("liked", .array(liked)), ("requests", .object(requests)), ("served", .object([])),
                        ("billing", .array([])),
                    ])), headers: [])
        }
        router.post("/admin/clock") { request, _ in
            var request = request
            let body = (try? await request.collectBody(upTo: 1 << 16)).map { Data(buffer: $0) } ?? Data()
            guard let adjustment = FakeClockAdjustment(body: body) else {
                return Self.response(FakeMastodonWorld.error(400, FakeClockAdjustment.expected), headers: [])
            }
            await adjustment.apply(to: world)
            return Self.response(FakeMastodonResponse(status: 200, body: .object([("now", .time(await world.now))])), headers: [])
        }
    }

    /// What a handler gets once the request is authenticated and allowed.
    struct Call: Sendable {
        var caller: FakeMastodonWorld.Caller
        var query: [String: String]
        var body: Data
        var pathID: String
        var idempotencyKey: String?
        /// `http://host:port`, for `Link` URLs.
        var base: String
    }

    private func serve<Endpoint: MastodonEndpoint>(
        _ endpoint: Endpoint.Type, scope: String, on router: Router<BasicRequestContext>,
        _ handle: @escaping @Sendable (FakeMastodonWorld, Call) async -> FakeMastodonResponse
    ) {
        let parts = Endpoint.name.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, let method = HTTPRequest.Method(parts[0]) else { preconditionFailure("an endpoint's name is \"METHOD /path\"") }
        let world = world
        router.on(RouterPath(parts[1]), method: method) { request, context in
            var request = request
            let name = Endpoint.name
            await world.countRequest(name)
            let body = (try? await request.collectBody(upTo: 1 << 20)).map { Data(buffer: $0) } ?? Data()
            let caller: FakeMastodonWorld.Caller
            switch await world.authenticate(request.headers[.authorization], scope: scope) {
            case .success(let authenticated): caller = authenticated
            case .failure(let refusal): return Self.response(refusal, headers: [])
            }
            let rateLimit: [(String, String)]
            switch await world.useRateLimit(accountID: caller.account.id) {
            case .success(let headers): rateLimit = headers
            case .failure(let refusal): return Self.response(refusal, headers: [])
            }
            let fault = await world.takeFault(for: name)
            if let refusal = await world.answerBeforeHandling(fault) {
                return Self.response(refusal, headers: refusal.status == 429 ? [] : rateLimit)
            }
            let authority = request.head.authority ?? "127.0.0.1"
            let call = Call(
                caller: caller, query: Self.queryParameters(request.uri.query), body: body, pathID: context.parameters.get("id") ?? "",
                idempotencyKey: request.headers[HTTPField.Name("Idempotency-Key")!], base: "http://\(authority)")
            let result = await handle(world, call)
            if fault == .dropAfterHandling {
                // The work is done; half the answer is sent, then the connection is closed.
                let data = result.body.data()
                var headers = HTTPFields()
                headers[.contentLength] = String(data.count)
                return Response(
                    status: .init(code: result.status), headers: headers,
                    body: ResponseBody(contentLength: data.count) { writer in
                        try await writer.write(ByteBuffer(bytes: data.prefix(data.count / 2)))
                        throw CancellationError()
                    })
            }
            return Self.response(result, headers: rateLimit)
        }
    }

    /// Mastodon's 404 for a path it does not serve, counted under `unknown`.
    private struct NotFound: RouterMiddleware {
        typealias Context = BasicRequestContext
        let world: FakeMastodonWorld

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            do {
                return try await next(request, context)
            } catch let error as HTTPError where error.status == .notFound {
                await world.countRequest("unknown")
                return FakeMastodonServer.response(FakeMastodonWorld.error(404, "Record not found"), headers: [])
            }
        }
    }

    /// The query's parameters, decoded (`types[]` keeps its brackets).
    private static func queryParameters(_ query: String?) -> [String: String] {
        var components = URLComponents()
        components.percentEncodedQuery = query
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        return parameters
    }

    static func response(_ result: FakeMastodonResponse, headers extra: [(String, String)]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        for (name, value) in extra + result.headers { if let field = HTTPField.Name(name) { headers[field] = value } }
        return Response(status: .init(code: result.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: result.body.data())))
    }
}

/// The fake's authorization page refused a request, in its words: the OAuth error (`invalid_client`,
/// `invalid_redirect_uri`, `invalid_scope`, `invalid_code_challenge_method`, …) and its description.
public struct FakeMastodonAuthorizationRefused: Error, CustomStringConvertible {
    /// The OAuth error code.
    public var error: String
    /// The page's sentence.
    public var description: String
}
