import FakeKit
public import Foundation
import HTTPTypes
import Hummingbird
public import Logging
import NIOCore
import NIOFoundationCompat
import ServiceLifecycle
public import XAPI

/// A fake X API v2 on loopback, serving the endpoints mirror_bot uses from memory, as the OpenAPI document and
/// X's documentation describe them: OAuth 1.0a signatures checked, caps and `max_results` ranges enforced, opaque
/// page tokens, `since_id`/`until_id`, `exclude`, rate limits with their three headers, the duplicate-content 403,
/// idempotent likes, posts hidden until their `created_at`. It bills as X does (each post and user returned once
/// per UTC day and app, writes per request, a post with a URL at its own rate) and, by default, answers likes as X
/// answers self-serve apps today (403 client-forbidden); spent credits answer 402, revoked tokens 401. Faults (503,
/// dropped connections, truncated JSON, usage caps) are produced on demand. `/admin/...` sets the clock, adds data,
/// changes the access level, credits and tokens, and reads back what was posted and billed.
public final class FakeXServer: Sendable {
    let world: FakeXWorld
    private let logger: Logger

    /// A server holding `seed`.
    public init(seed: FakeXSeed, logger: Logger = Logger(label: "fake-x")) {
        world = FakeXWorld(seed: seed)
        self.logger = logger
    }

    /// Serves on `host`:`port` (0 picks a free port) until the task is cancelled; `onStarted` gets the bound port.
    public func run(host: String = "127.0.0.1", port: Int = 0, onStarted: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await application(host: host, port: port, onStarted: onStarted).run()
    }

    private func application(host: String, port: Int, onStarted: @escaping @Sendable (Int) async -> Void) -> some Service {
        Application(
            router: router(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "fake-x"),
            onServerRunning: { channel in await onStarted(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Runs the server for the duration of `body`, which gets its base URL (`http://127.0.0.1:PORT`); then shuts it
    /// down gracefully (requests in flight are answered), also when `body` throws.
    public func withRunning<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (URL) async throws -> Result
    ) async throws -> Result {
        try await LoopbackServer.withRunning(logger: logger, { onStarted in application(host: "127.0.0.1", port: 0, onStarted: onStarted) }, body)
    }

    // MARK: - Administration from Swift (the same as /admin over HTTP)

    /// The server's clock.
    public func now() async -> Date { await world.now }
    /// Sets the server's clock, and how fast it runs from now on (server seconds per real second; 0 stops it).
    public func setClock(_ date: Date, speed: Double? = nil) async { await world.setClock(date, speed: speed) }
    /// Sets the server's clock and speed when the next API request arrives (a bot about to start makes it).
    public func armClock(_ date: Date, speed: Double) async { await world.armClock(date, speed: speed) }
    /// Moves the server's clock forward.
    public func advanceClock(by seconds: TimeInterval) async { await world.advanceClock(by: seconds) }
    /// Adds posts (visible once the clock reaches their time).
    public func add(tweets: [FakeXSeed.Tweet]) async { await world.add(tweets: tweets) }
    /// Adds likes of a user, the first being the most recent.
    public func add(likes: [String], by userID: String) async { await world.add(likes: likes, by: userID) }
    /// Adds users.
    public func add(users: [FakeXSeed.User]) async { await world.add(users: users) }
    /// Queues a fault.
    public func add(fault: FakeXFault) async { await world.add(fault: fault) }
    /// Random faults from now on: each API request meets one of `kinds` with probability `rate` (0 turns them off), in
    /// an order drawn from `seed`; queued faults come first.
    public func setChaos(rate: Double, kinds: [FakeXFault.Kind], seed: UInt64) async { await world.setChaos(rate: rate, kinds: kinds, seed: seed) }
    /// The faults injected so far, queued and random, in order: the endpoint, the caller and the moment of each.
    public func faultsInjected() async -> [FakeXFault.Injected] { await world.faultsInjected }
    /// Sets an endpoint's calls per 15 minutes (and starts its windows anew).
    public func setRateLimit(_ limit: Int, for endpoint: String) async { await world.setRateLimit(limit, for: endpoint) }
    /// Posts created through the API, in order.
    public func posted() async -> [FakeXSeed.Tweet] { await world.posted }
    /// The ids of posts deleted through the API, in order.
    public func deletedByAPI() async -> [String] { await world.deletedByAPI }
    /// Likes made through the API, in order.
    public func liked() async -> [(userID: String, postID: String)] { await world.likedPairs() }
    /// How many answers a `hangAfterHandling` fault has begun to hold back (the request already carried out).
    public func hangsBegun() async -> Int { await world.hangsBegun }
    /// API requests received, by endpoint name (unknown paths under `unknown`).
    public func requestCounts() async -> [String: Int] { await world.requestCounts }
    /// Posts returned by the read endpoints, by endpoint name.
    public func servedCounts() async -> [String: Int] { await world.servedCounts }
    /// X's bill as the server made it: per UTC day and app (consumer key), what was billed.
    public func billing() async -> [(day: String, app: String, bill: XBill)] { await world.billingRecord() }
    /// Sets the apps' access level (`enterprise` allows likes).
    public func setAccess(_ access: FakeXSeed.Access) async { await world.setAccess(access) }
    /// Sets each app's prepaid credits in dollars (nil: unlimited).
    public func setCredits(_ dollars: Double?) async { await world.setCredits(dollars) }
    /// Deletes a post, as its author deleting it on X (lookups answer "Not Found" from now on); false when unknown.
    @discardableResult
    public func delete(tweetID: String) async -> Bool { await world.delete(tweetID: tweetID) }
    /// Revokes an access token (its requests get 401 from now on); false when it is unknown.
    @discardableResult
    public func revoke(accessToken: String) async -> Bool { await world.revoke(accessToken: accessToken) }

    // MARK: - HTTP

    /// The routes: each X endpoint under its type's name ("GET /2/users/:id/tweets" is `GetUserTweets.name`, and
    /// its method and path are the route), `/admin/...`, and X's 404 for every other path.
    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(XNotFound(world: world))
        serve(GetAuthenticatedUser.self, on: router) { world, call in await world.usersMe(caller: call.caller, query: call.query) }
        serve(GetUserTweets.self, on: router) { world, call in
            await world.timeline(.userTweets, pathUserID: call.pathID, caller: call.caller, query: call.query)
        }
        serve(GetLikedTweets.self, on: router) { world, call in
            await world.timeline(.likedTweets, pathUserID: call.pathID, caller: call.caller, query: call.query)
        }
        serve(GetHomeTimeline.self, on: router) { world, call in
            await world.timeline(.home, pathUserID: call.pathID, caller: call.caller, query: call.query)
        }
        serve(GetMentions.self, on: router) { world, call in
            await world.timeline(.mentions, pathUserID: call.pathID, caller: call.caller, query: call.query)
        }
        serve(GetTweet.self, on: router) { world, call in await world.lookUpTweet(id: call.pathID, caller: call.caller, query: call.query) }
        serve(CreateTweet.self, on: router) { world, call in await world.createTweet(caller: call.caller, body: call.body) }
        serve(DeleteTweet.self, on: router) { world, call in await world.deleteTweet(id: call.pathID, caller: call.caller) }
        serve(LikeTweet.self, on: router) { world, call in await world.like(pathUserID: call.pathID, caller: call.caller, body: call.body) }
        serve(UnlikeTweet.self, on: router) { world, call in
            await world.unlike(pathUserID: call.pathID, tweetID: call.tweetID, caller: call.caller)
        }
        addAdminRoutes(to: router)
        addOAuthRoutes(to: router)
        return router
    }

    /// What an endpoint's handler gets once the request is authenticated and allowed.
    struct Call: Sendable {
        /// Who called (user and app).
        var caller: Caller
        /// The query parameters, decoded.
        var query: [String: String]
        /// The request body.
        var body: Data
        /// The path's `:id`.
        var pathID: String
        /// The path's `:tweet_id`.
        var tweetID: String
    }

    /// Serves `endpoint` at its method and path (from its name) with `handle`, after what every endpoint shares:
    /// counting the request, the OAuth 1.0a signature, the rate limit, the credits, and a fault asked for.
    private func serve<Endpoint: XEndpoint>(
        _ endpoint: Endpoint.Type, on router: Router<BasicRequestContext>,
        _ handle: @escaping @Sendable (FakeXWorld, Call) async -> FakeXResponse
    ) {
        let parts = Endpoint.name.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, let method = HTTPRequest.Method(parts[0]) else { preconditionFailure("an endpoint's name is \"METHOD /path\"") }
        router.on(RouterPath(parts[1]), method: method) { [self] request, context in
            await respond(to: request, endpoint: Endpoint.name, parameters: context.parameters, handle)
        }
    }

    private func respond(
        to request: Request, endpoint name: String, parameters: Parameters,
        _ handle: @Sendable (FakeXWorld, Call) async -> FakeXResponse
    ) async -> Response {
        var request = request
        let query = Self.queryParameters(request.uri.query)
        let body = (try? await request.collectBody(upTo: 1 << 20)).map { Data(buffer: $0) } ?? Data()
        await world.countRequest(name)

        let authority = request.head.authority ?? "127.0.0.1"
        guard let url = URL(string: "http://\(authority)\(request.uri.string)") else {
            return Self.response(
                FakeXResponse(
                    status: 400,
                    body: .problem(
                        type: ProblemType.invalidRequest, title: "Invalid Request", detail: "Malformed URL.", status: 400)))
        }
        let caller: Caller
        switch await world.authenticate(method: request.method.rawValue, url: url, authorization: request.headers[.authorization]) {
        case .success(let authenticated): caller = authenticated
        case .failure(let error): return Self.response(error.response)
        }
        let rateLimit: (Int, Int, Int)
        switch await world.useRateLimit(name, userID: caller.userID) {
        case .success(let window): rateLimit = window
        case .failure(let error): return Self.response(error.response)
        }
        if var refusal = await world.checkCredits(app: caller.app)?.response {
            refusal.rateLimit = rateLimit
            return Self.response(refusal)
        }

        // A create is also matched as a post or as a reply ("POST /2/tweets (post)", "POST /2/tweets (reply)").
        var kinds = [name]
        if name == "POST /2/tweets" {
            let isReply = ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["reply"] != nil
            kinds.append(name + (isReply ? " (reply)" : " (post)"))
        }
        let fault = await world.takeFault(for: kinds, userID: caller.userID)
        switch fault?.kind {
        case .serviceUnavailable:
            return Self.response(
                FakeXResponse(
                    status: 503,
                    body: .problem(
                        type: ProblemType.blank, title: "Service Unavailable", detail: "Service Unavailable", status: 503), rateLimit: rateLimit))
        case .internalServerError:
            return Self.response(
                FakeXResponse(
                    status: 500,
                    body: .problem(
                        type: ProblemType.blank, title: "Internal Server Error", detail: "Internal Server Error", status: 500), rateLimit: rateLimit))
        case .forbidden:
            return Self.response(
                FakeXResponse(
                    status: 403,
                    body: .problem(
                        type: ProblemType.blank, title: "Forbidden", detail: "You are not permitted to perform this action.", status: 403),
                    rateLimit: rateLimit))
        case .closeBeforeHandling:
            // Nothing is carried out; the answer starts and breaks off: the client cannot tell whether it was made.
            var headers = Self.headers(rateLimit: rateLimit)
            headers[.contentLength] = "64"
            return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: 64) { _ in throw CancellationError() })
        case .usageCapped:
            return Self.response(
                FakeXResponse(
                    status: 429,
                    body: .problem(
                        type: ProblemType.usageCapped, title: "UsageCapExceeded", detail: "Usage cap exceeded: Monthly product cap",
                        status: 429, extra: [("period", .string("Monthly")), ("scope", .string("Product"))]), rateLimit: rateLimit))
        case .rateLimited:
            return Self.response(
                FakeXResponse(
                    status: 429,
                    body: .problem(
                        type: ProblemType.blank, title: "Too Many Requests", detail: "Too Many Requests", status: 429),
                    rateLimit: (rateLimit.0, 0, rateLimit.2)))
        default:
            break
        }

        var result = await handle(
            world,
            Call(
                caller: caller, query: query, body: body, pathID: parameters.get("id") ?? "",
                tweetID: parameters.get("tweet_id") ?? ""))
        result.rateLimit = rateLimit

        let data = result.body.data()
        switch fault?.kind {
        case .truncatedJSON:
            return Self.response(status: result.status, data: data.prefix(max(1, data.count / 2)), rateLimit: rateLimit)
        case .hangAfterHandling:
            // Carried out; the answer comes only after a long silence.
            await world.noteHang()
            try? await Task.sleep(for: .seconds(fault?.holdSeconds ?? Double(FakeXFault.hangSeconds)))
            return Self.response(result)
        case .closeMidResponse:
            // The headers promise the whole body; half is sent, then the connection is closed.
            var headers = Self.headers(rateLimit: rateLimit)
            headers[.contentLength] = String(data.count)
            let half = data.prefix(data.count / 2)
            return Response(
                status: .init(code: result.status), headers: headers,
                body: ResponseBody(contentLength: data.count) { writer in
                    try await writer.write(ByteBuffer(bytes: half))
                    throw CancellationError()
                })
        default:
            return Self.response(result)
        }
    }

    /// X's answer to a path it does not serve (404 with a problem document), counted under `unknown`.
    private struct XNotFound: RouterMiddleware {
        typealias Context = BasicRequestContext
        let world: FakeXWorld

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            do {
                return try await next(request, context)
            } catch let error as HTTPError where error.status == .notFound {
                if request.uri.path.hasPrefix("/admin/") {
                    return FakeXServer.response(
                        status: 404, data: JSONValue.object([("error", .string("no admin route \(request.method) \(request.uri.path)"))]).data(),
                        rateLimit: nil)
                }
                await world.countRequest("unknown")
                return FakeXServer.response(
                    FakeXResponse(
                        status: 404,
                        body: .problem(
                            type: ProblemType.blank, title: "Not Found", detail: "Sorry, that page does not exist.", status: 404)))
            }
        }
    }

    private static func queryParameters(_ query: String?) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentEncoding.decode(parts[0], plusIsSpace: true) else { continue }
            parameters[name] = parts.count > 1 ? PercentEncoding.decode(parts[1], plusIsSpace: true) ?? "" : ""
        }
        return parameters
    }

    private static func headers(rateLimit: (Int, Int, Int)?) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        if let (limit, remaining, reset) = rateLimit {
            headers[HTTPField.Name("x-rate-limit-limit")!] = String(limit)
            headers[HTTPField.Name("x-rate-limit-remaining")!] = String(remaining)
            headers[HTTPField.Name("x-rate-limit-reset")!] = String(reset)
        }
        return headers
    }

    fileprivate static func response(_ result: FakeXResponse) -> Response {
        response(status: result.status, data: result.body.data(), rateLimit: result.rateLimit)
    }

    fileprivate static func response(status: Int, data: Data, rateLimit: (Int, Int, Int)?) -> Response {
        var headers = headers(rateLimit: rateLimit)
        if status >= 400 { headers[.contentType] = "application/problem+json" }
        return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    // MARK: - /oauth (the PIN flow)

    private func addOAuthRoutes(to router: Router<BasicRequestContext>) {
        let world = world
        @Sendable func url(_ request: Request) -> URL? { URL(string: "http://\(request.head.authority ?? "127.0.0.1")\(request.uri.string)") }
        @Sendable func text(_ answer: (status: Int, body: String), type: String) -> Response {
            var headers = HTTPFields()
            headers[.contentType] = type
            return Response(status: .init(code: answer.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: answer.body)))
        }
        router.post("/oauth/request_token") { request, _ in
            await world.countRequest("POST /oauth/request_token")
            guard let url = url(request) else { return text((400, "Malformed URL"), type: "text/plain") }
            return text(
                await world.requestToken(method: "POST", url: url, authorization: request.headers[.authorization]),
                type: "application/x-www-form-urlencoded")
        }
        router.get("/oauth/authorize") { request, _ in
            await world.countRequest("GET /oauth/authorize")
            let answer = await world.authorize(query: Self.queryParameters(request.uri.query))
            var response = text((answer.status, answer.body), type: "text/html; charset=utf-8")
            if let location = answer.location { response.headers[.location] = location }
            return response
        }
        router.post("/oauth/access_token") { request, _ in
            await world.countRequest("POST /oauth/access_token")
            guard let url = url(request) else { return text((400, "Malformed URL"), type: "text/plain") }
            return text(
                await world.accessToken(method: "POST", url: url, authorization: request.headers[.authorization]),
                type: "application/x-www-form-urlencoded")
        }
    }

    // MARK: - /admin

    private func addAdminRoutes(to router: Router<BasicRequestContext>) {
        for (method, path) in [
            (HTTPRequest.Method.get, "/admin/state"), (.post, "/admin/clock"), (.post, "/admin/tweets"), (.post, "/admin/users"),
            (.post, "/admin/likes"), (.post, "/admin/faults"), (.post, "/admin/access"), (.post, "/admin/credits"),
            (.post, "/admin/revoke"), (.post, "/admin/rate-limits"),
        ] {
            router.on(RouterPath(path), method: method) { [self] request, _ in
                var request = request
                let body = (try? await request.collectBody(upTo: 1 << 20)).map { Data(buffer: $0) } ?? Data()
                return await admin(path: path, method: method, body: body)
            }
        }
    }

    private func admin(path: String, method: HTTPRequest.Method, body: Data) async -> Response {
        let decoder = FakeXSeed.decoder()
        func ok(_ value: JSONValue = .object([("ok", .bool(true))])) -> Response {
            Self.response(status: 200, data: value.data(), rateLimit: nil)
        }
        func bad(_ message: String) -> Response {
            Self.response(status: 400, data: JSONValue.object([("error", .string(message))]).data(), rateLimit: nil)
        }
        switch (method, path) {
        case (.get, "/admin/state"):
            let posted = await world.posted.map { tweet in
                JSONValue.object([
                    ("id", .string(tweet.id)), ("author_id", .string(tweet.authorID)), ("text", .string(tweet.text)),
                    ("created_at", .time(tweet.createdAt)),
                    ("in_reply_to_tweet_id", tweet.inReplyToTweetID.map(JSONValue.string) ?? .null),
                    ("in_reply_to_user_id", tweet.inReplyToUserID.map(JSONValue.string) ?? .null),
                ])
            }
            let liked = await world.likedPairs().map { JSONValue.object([("user_id", .string($0.userID)), ("tweet_id", .string($0.postID))]) }
            let requests = await world.requestCounts.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) }
            let served = await world.servedCounts.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) }
            let billing = await world.billingRecord().map { entry in
                JSONValue.object([
                    ("day", .string(entry.day)), ("app", .string(entry.app)),
                    ("owned_post_reads", .int(entry.bill.ownedPostReads)), ("post_reads", .int(entry.bill.postReads)),
                    ("user_reads", .int(entry.bill.userReads)), ("posts_created", .int(entry.bill.postsCreated)),
                    ("posts_created_with_url", .int(entry.bill.postsCreatedWithURL)),
                    ("interactions_created", .int(entry.bill.interactionsCreated)),
                    ("interactions_deleted", .int(entry.bill.interactionsDeleted)),
                    ("cost", .double(XPriceList.current.cost(of: entry.bill))),
                ])
            }
            return ok(
                .object([
                    ("now", .time(await world.now)), ("speed", .double(await world.speed)), ("access", .string(await world.access.rawValue)),
                    ("posted", .array(posted)), ("liked", .array(liked)), ("requests", .object(requests)), ("served", .object(served)),
                    ("billing", .array(billing)),
                ]))
        case (.post, "/admin/clock"):
            guard let adjustment = FakeClockAdjustment(body: body) else { return bad(FakeClockAdjustment.expected) }
            if await adjustment.apply(to: world) { return ok(.object([("now", .time(await world.now)), ("armed", .bool(true))])) }
            return ok(.object([("now", .time(await world.now))]))
        case (.post, "/admin/tweets"):
            guard let tweets = try? decoder.decode([FakeXSeed.Tweet].self, from: body) else { return bad("expected an array of tweets") }
            await world.add(tweets: tweets)
            return ok()
        case (.post, "/admin/users"):
            guard let users = try? decoder.decode([FakeXSeed.User].self, from: body) else { return bad("expected an array of users") }
            await world.add(users: users)
            return ok()
        case (.post, "/admin/likes"):
            struct Likes: Decodable {
                var userID: String
                var tweetIDs: [String]
                enum CodingKeys: String, CodingKey {
                    case userID = "user_id"
                    case tweetIDs = "tweet_ids"
                }
            }
            guard let likes = try? decoder.decode(Likes.self, from: body) else { return bad("expected {\"user_id\", \"tweet_ids\"}") }
            await world.add(likes: likes.tweetIDs, by: likes.userID)
            return ok()
        case (.post, "/admin/faults"):
            guard let fault = try? decoder.decode(FakeXFault.self, from: body) else {
                return bad("expected {\"kind\": \"503\"|\"403\"|\"close\"|\"truncate\"|\"usage-capped\", \"count\": n, \"endpoint\": name}")
            }
            await world.add(fault: fault)
            return ok()
        case (.post, "/admin/access"):
            struct Access: Decodable { var access: FakeXSeed.Access }
            guard let access = try? decoder.decode(Access.self, from: body) else {
                return bad("expected {\"access\": \"pay-per-use\"|\"enterprise\"}")
            }
            await world.setAccess(access.access)
            return ok()
        case (.post, "/admin/credits"):
            struct Credits: Decodable { var dollars: Double? }
            guard let credits = try? decoder.decode(Credits.self, from: body) else { return bad("expected {\"dollars\": n or null}") }
            await world.setCredits(credits.dollars)
            return ok()
        case (.post, "/admin/revoke"):
            struct Revoke: Decodable {
                var accessToken: String
                enum CodingKeys: String, CodingKey { case accessToken = "access_token" }
            }
            guard let revoke = try? decoder.decode(Revoke.self, from: body) else { return bad("expected {\"access_token\"}") }
            return await world.revoke(accessToken: revoke.accessToken) ? ok() : bad("no such access token")
        case (.post, "/admin/rate-limits"):
            struct Limit: Decodable {
                var endpoint: String
                var limit: Int
            }
            guard let limit = try? decoder.decode(Limit.self, from: body) else { return bad("expected {\"endpoint\", \"limit\"}") }
            await world.setRateLimit(limit.limit, for: limit.endpoint)
            return ok()
        default:
            return Self.response(status: 404, data: JSONValue.object([("error", .string("no admin route \(method) \(path)"))]).data(), rateLimit: nil)
        }
    }
}
