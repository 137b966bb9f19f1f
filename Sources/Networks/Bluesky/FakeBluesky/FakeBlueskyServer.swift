public import BlueskyAPI
import FakeKit
public import Foundation
import HTTPTypes
import Hummingbird
public import Logging
import NIOCore
import NIOFoundationCompat
import ServiceLifecycle

/// A fake Bluesky on loopback: one server playing the entryway, the account's PDS (its DID documents name this
/// server) and the AppView, serving the XRPC methods mirror_bot uses from memory, as their lexicons define them.
/// Sessions are real sessions: `createSession` with the app password (30 per account and 5 minutes, then 429),
/// access tokens that expire on the fake's clock (`ExpiredToken`), refresh tokens that work once. Records are
/// checked against their lexicon on every write (a post's length in graphemes and bytes, its facets' byte ranges
/// on character boundaries, its reply's refs), `putRecord` at a key replaces what is there (one record however
/// often it is sent), and faults come on demand (503, an answer cut off after the work was done). `GET /admin/state`
/// and `POST /admin/clock` serve the demo's script as every fake's do; `com.atproto.sync.getRepo` gives an account's
/// repository as a CAR file, as "Export my data" does.
public final class FakeBlueskyServer: Sendable {
    let world: FakeBlueskyWorld
    private let logger: Logger

    /// A server holding `seed`.
    public init(seed: FakeBlueskySeed, logger: Logger = Logger(label: "fake-bluesky")) {
        world = FakeBlueskyWorld(seed: seed)
        self.logger = logger
    }

    /// Serves on `host`:`port` (0 picks a free port) until the task is cancelled; `onStarted` gets the bound port.
    public func run(host: String = "127.0.0.1", port: Int = 0, onStarted: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await application(host: host, port: port, onStarted: onStarted).run()
    }

    private func application(host: String, port: Int, onStarted: @escaping @Sendable (Int) async -> Void) -> some Service {
        let world = world
        return Application(
            router: router(), configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "fake-bluesky"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                await world.setPDS("http://\(host):\(bound)")
                await onStarted(bound)
            }, logger: logger)
    }

    /// Runs the server for the duration of `body`, which gets its base URL; then shuts it down gracefully.
    public func withRunning<Result: Sendable>(isolation: isolated (any Actor)? = #isolation, _ body: (URL) async throws -> Result) async throws
        -> Result
    {
        try await LoopbackServer.withRunning(logger: logger, { onStarted in application(host: "127.0.0.1", port: 0, onStarted: onStarted) }, body)
    }

    // MARK: - Administration from Swift

    /// The fake's clock.
    public func now() async -> Date { await world.now }
    /// Sets the clock, and how fast it runs from now on (fake seconds per real second; 0 stops it).
    public func setClock(_ date: Date, speed: Double? = nil) async { await world.setClock(date, speed: speed) }
    /// Sets the clock when the next request arrives (a bot started just now and the fake then agree).
    public func armClock(_ date: Date, speed: Double) async { await world.armClock(date, speed: speed) }
    /// Cuts off the answer of `rate` of the record writes (`putRecord`, `createRecord`, `deleteRecord`) after the
    /// write is made, in an order drawn from `seed`.
    public func setLostAnswerRate(_ rate: Double, seed: UInt64) async { await world.setLostAnswerRate(rate, seed: seed) }
    /// Moves the clock forward.
    public func advanceClock(by seconds: TimeInterval) async { await world.advanceClock(by: seconds) }
    /// Queues `fault` for the next request of the method `nsid`.
    public func add(fault: FakeBlueskyFault, for nsid: String) async { await world.add(fault: fault, for: nsid) }
    /// Adds a post (visible once the clock reaches its time).
    public func add(post: FakeBlueskySeed.Post) async { await world.add(post: post) }
    /// Deletes a post, as its author deleting it in an app; false when unknown.
    @discardableResult
    public func delete(uri: String) async -> Bool { await world.delete(uri: uri) }
    /// Expires every access token now (their refresh tokens still work).
    public func expireAccessTokens() async { await world.expireAccessTokens() }
    /// Revokes every token (as a changed app password does).
    public func revokeAllTokens() async { await world.revokeAllTokens() }
    /// As the account `did` deleting its app password: it logs in no more, and its sessions end (a person withdrawing
    /// the grant they gave the mirror).
    public func revokeAppPassword(of did: String) async { await world.revokeAppPassword(of: did) }
    /// `createSession` calls so far, refused ones included.
    public func createSessionCalls() async -> Int { await world.createSessionCalls }
    /// `createSession` calls naming `identifier` (a handle or DID), refused ones included.
    public func createSessionCalls(of identifier: String) async -> Int { await world.createSessionCallsByIdentifier[identifier] ?? 0 }
    /// `refreshSession` calls that renewed a session.
    public func refreshSessionCalls() async -> Int { await world.refreshSessionCalls }
    /// Requests received, by NSID (unknown methods under `unknown`).
    public func requestCounts() async -> [String: Int] { await world.requestCounts }
    /// The records of `collection` in `did`'s repository, oldest first: URI, value, CID.
    public func records(of did: String, in collection: String) async -> [(uri: String, value: BlueskyAPI.JSONValue, cid: String)] {
        await world.records(of: did, in: collection)
    }
    /// `did`'s repository as `com.atproto.sync.getRepo` gives it: a CAR file.
    public func repositoryExport(of did: String) async -> [UInt8] { Array(await world.repositoryExport(of: did).body) }
    /// Record writes in order (`putRecord`, `createRecord`, `deleteRecord`), with the URI written.
    public func writes() async -> [(method: String, uri: String)] { await world.writes }
    /// As the account `did` revoking the app's access in its settings: its OAuth grants end (a refresh is refused
    /// with `invalid_grant`).
    public func revokeOAuthGrants(of did: String) async { await world.revokeOAuthGrants(of: did) }
    /// How many OAuth grants of `did` are live (not revoked).
    public func oauthGrantsLive(of did: String) async -> Int { await world.oauth.grants.values.filter { $0.did == did && !$0.revoked }.count }
    /// What the OAuth server refused so far, as `endpoint: error: description`, oldest first.
    public func oauthRefusals() async -> [String] { await world.oauth.refusals }
    /// Tokens the OAuth server issued, by grant type (`authorization_code`, `refresh_token`).
    public func oauthTokensIssued() async -> [String: Int] { await world.oauth.tokensIssued }

    // MARK: - HTTP

    private struct Call: Sendable {
        var caller: String?
        var query: [(String, String)]
        var input: BlueskyAPI.JSONValue
        var authorization: String?

        func parameter(_ name: String) -> String? { query.first { $0.0 == name }?.1 }
        func parameters(_ name: String) -> [String] { query.filter { $0.0 == name }.map(\.1) }
        var limit: Int { parameter("limit").flatMap { Int($0) } ?? 50 }
    }

    private enum Auth { case none, optional, required, refresh }

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        serve("com.atproto.server.createSession", .procedure, auth: .none, on: router) { world, call in
            guard let identifier = call.input["identifier"]?.stringValue, let password = call.input["password"]?.stringValue else {
                return .error(400, "InvalidRequest", "Input must have the properties \"identifier\" and \"password\"")
            }
            return await world.createSession(identifier: identifier, password: password)
        }
        serve("com.atproto.server.refreshSession", .procedure, auth: .refresh, on: router) { world, call in
            await world.refreshSession(did: call.caller ?? "", refreshToken: String((call.authorization ?? "").dropFirst(7)))
        }
        serve("com.atproto.identity.resolveHandle", .query, auth: .none, on: router) { world, call in
            await world.resolveHandle(call.parameter("handle") ?? "")
        }
        serve("com.atproto.server.getSession", .query, auth: .required, on: router) { world, call in await world.getSession(of: call.caller ?? "") }
        serve("com.atproto.identity.resolveIdentity", .query, auth: .none, on: router) { world, call in
            await world.resolveIdentity(call.parameter("identifier") ?? "")
        }
        serve("app.bsky.actor.getProfile", .query, auth: .optional, on: router) { world, call in await world.getProfile(call.parameter("actor") ?? "")
        }
        serve("app.bsky.feed.getAuthorFeed", .query, auth: .optional, on: router) { world, call in
            await world.authorFeed(
                actor: call.parameter("actor") ?? "", filter: call.parameter("filter"), limit: min(100, max(1, call.limit)),
                cursor: call.parameter("cursor"))
        }
        serve("app.bsky.feed.getActorLikes", .query, auth: .required, on: router) { world, call in
            await world.actorLikes(
                caller: call.caller ?? "", actor: call.parameter("actor") ?? "", limit: min(100, max(1, call.limit)),
                cursor: call.parameter("cursor"))
        }
        serve("app.bsky.feed.getTimeline", .query, auth: .required, on: router) { world, call in
            await world.timeline(caller: call.caller ?? "", limit: min(100, max(1, call.limit)), cursor: call.parameter("cursor"))
        }
        serve("app.bsky.notification.listNotifications", .query, auth: .required, on: router) { world, call in
            await world.notifications(
                caller: call.caller ?? "", reasons: call.parameters("reasons"), limit: min(100, max(1, call.limit)),
                cursor: call.parameter("cursor"))
        }
        serve("app.bsky.feed.getPosts", .query, auth: .optional, on: router) { world, call in await world.posts(uris: call.parameters("uris")) }
        serve("com.atproto.sync.getRepo", .query, auth: .none, on: router) { world, call in
            await world.repositoryExport(of: call.parameter("did") ?? "")
        }
        serve("com.atproto.repo.getRecord", .query, auth: .none, on: router) { world, call in
            await world.getRecord(
                repo: call.parameter("repo") ?? "", collection: call.parameter("collection") ?? "", rkey: call.parameter("rkey") ?? "")
        }
        for method in ["com.atproto.repo.putRecord", "com.atproto.repo.createRecord"] {
            serve(method, .procedure, auth: .required, on: router) { world, call in
                await world.write(caller: call.caller ?? "", input: call.input, method: method)
            }
        }
        serve("com.atproto.repo.deleteRecord", .procedure, auth: .required, on: router) { world, call in
            await world.deleteRecord(caller: call.caller ?? "", input: call.input)
        }
        let world = world
        serveOAuth(on: router)
        // For the demo's script and report, as every fake has them: what clients did, and the clock.
        // The PLC directory's `GET /<did>`: an account's DID document (the fake is its own directory).
        router.get("/:did") { _, context in
            let did = context.parameters.get("did") ?? ""
            guard did.hasPrefix("did:plc:"), await world.did(of: did) != nil else {
                return Self.response(.error(404, "NotFound", "DID not registered: \(did)"))
            }
            return Self.response(.json(await world.didDocument(of: did)))
        }
        router.get("/admin/state") { _, _ in Self.response(.json(await world.adminState())) }
        router.post("/admin/clock") { request, _ in
            var request = request
            let body = (try? await request.collectBody(upTo: 1 << 16)).map { Data(buffer: $0) } ?? Data()
            guard let adjustment = FakeClockAdjustment(body: body) else {
                return Self.response(.error(400, "InvalidRequest", FakeClockAdjustment.expected))
            }
            await adjustment.apply(to: world)
            return Self.response(.json(["now": FakeBlueskyWorld.time(await world.now)]))
        }
        router.on(RouterPath("/xrpc/:nsid"), method: .get) { _, context in
            await world.countRequest("unknown")
            return Self.response(.error(501, "MethodNotImplemented", "Method Not Implemented: \(context.parameters.get("nsid") ?? "")"))
        }
        router.on(RouterPath("/xrpc/:nsid"), method: .post) { _, context in
            await world.countRequest("unknown")
            return Self.response(.error(501, "MethodNotImplemented", "Method Not Implemented: \(context.parameters.get("nsid") ?? "")"))
        }
        return router
    }

    private func serve(
        _ nsid: String, _ kind: XRPCKind, auth: Auth, on router: Router<BasicRequestContext>,
        _ handle: @escaping @Sendable (FakeBlueskyWorld, Call) async -> FakeBlueskyResponse
    ) {
        let world = world
        router.on(RouterPath("/xrpc/\(nsid)"), method: kind == .query ? .get : .post) { request, _ in
            var request = request
            await world.countRequest(nsid)
            let authorization = request.headers[.authorization]
            var caller: String?
            switch auth {
            case .none: break
            case .optional, .required, .refresh:
                if auth == .optional && authorization == nil { break }
                let authenticated =
                    if let authorization, authorization.hasPrefix("DPoP "), auth != .refresh {
                        await world.authenticateDPoP(
                            authorization, proof: request.headers[HTTPField.Name("DPoP")!], method: kind == .query ? "GET" : "POST", nsid: nsid)
                    } else {
                        await world.authenticate(authorization, refresh: auth == .refresh)
                    }
                switch authenticated {
                case .success(let did): caller = did
                case .failure(let refusal): return Self.response(refusal)
                }
            }
            var input = BlueskyAPI.JSONValue.object([:])
            if kind == .procedure {
                let body = (try? await request.collectBody(upTo: 1 << 20)).map { Data(buffer: $0) } ?? Data()
                if !body.isEmpty {
                    guard let decoded = try? JSONDecoder().decode(BlueskyAPI.JSONValue.self, from: body), case .object = decoded else {
                        return Self.response(.error(400, "InvalidRequest", "Input must be a JSON object"))
                    }
                    input = decoded
                }
            }
            var fault = await world.takeFault(for: nsid)
            if fault == nil, nsid.hasPrefix("com.atproto.repo."), kind == .procedure, await world.drawLostAnswer() { fault = .dropAfterHandling }
            if fault == .unavailable { return Self.response(.error(503, "UpstreamFailure", "Service Unavailable")) }
            if fault == .notImplemented { return Self.response(.error(501, "MethodNotImplemented", "Method Not Implemented")) }
            if case .rateLimited(let seconds)? = fault {
                var refusal = FakeBlueskyResponse.error(429, "RateLimitExceeded", "Rate Limit Exceeded")
                let reset = await world.now.addingTimeInterval(seconds).timeIntervalSince1970
                refusal.headers = [
                    ("ratelimit-limit", "3000"), ("ratelimit-remaining", "0"), ("ratelimit-reset", String(Int(reset.rounded(.up)))),
                    ("ratelimit-policy", "3000;w=300"),
                ]
                return Self.response(refusal)
            }
            let result = await handle(
                world, Call(caller: caller, query: Self.queryParameters(request.uri.query), input: input, authorization: authorization))
            if fault == .malformed { return Self.response(FakeBlueskyResponse(status: 200, body: Data("{\"feed\": [{\"post\": ".utf8))) }
            if fault == .dropAfterHandling {
                // The work is done; half the answer is sent, then the connection is closed.
                let data = result.body
                var headers = HTTPFields()
                headers[.contentLength] = String(data.count)
                return Response(
                    status: .init(code: result.status), headers: headers,
                    body: ResponseBody(contentLength: data.count) { writer in
                        try await writer.write(ByteBuffer(bytes: data.prefix(data.count / 2)))
                        throw CancellationError()
                    })
            }
            return Self.response(result)
        }
    }

    /// The OAuth authorization server's routes (`FakeBlueskyWorld+OAuth`).
    private func serveOAuth(on router: Router<BasicRequestContext>) {
        let world = world
        router.get("/.well-known/oauth-protected-resource") { _, _ in
            await world.countRequest("oauth-protected-resource")
            return Self.response(await world.protectedResourceMetadata())
        }
        router.get("/.well-known/oauth-authorization-server") { _, _ in
            await world.countRequest("oauth-authorization-server")
            return Self.response(await world.authorizationServerMetadata())
        }
        router.post("/oauth/par") { request, _ in
            await world.countRequest("oauth/par")
            let form = await Self.form(of: request)
            // A web app's client_id is its metadata's address: read before the request is looked at.
            let clientID = form["client_id"] ?? ""
            let fetched = FakeBlueskyClient.isMetadataAddress(clientID) ? await FakeBlueskyClient.fetch(clientID) : nil
            return Self.response(await world.pushAuthorizationRequest(form, proof: request.headers[HTTPField.Name("DPoP")!], fetched: fetched))
        }
        router.get("/oauth/authorize") { request, _ in
            await world.countRequest("oauth/authorize")
            return Self.response(await world.authorizationPage(Self.formFields(request.uri.query ?? "")))
        }
        router.post("/oauth/authorize") { request, _ in
            await world.countRequest("oauth/authorize")
            return Self.response(await world.authorize(await Self.form(of: request)))
        }
        router.post("/oauth/revoke") { request, _ in
            await world.countRequest("oauth/revoke")
            let form = await Self.form(of: request)
            return Self.response(await world.revoke(form, proof: request.headers[HTTPField.Name("DPoP")!]))
        }
        router.post("/oauth/token") { request, _ in
            await world.countRequest("oauth/token")
            let form = await Self.form(of: request)
            return Self.response(await world.token(form, proof: request.headers[HTTPField.Name("DPoP")!]))
        }
    }

    /// A form body's fields (`application/x-www-form-urlencoded`).
    private static func form(of request: Request) async -> [String: String] {
        var request = request
        let body = (try? await request.collectBody(upTo: 1 << 16)).map { Data(buffer: $0) } ?? Data()
        return formFields(String(decoding: body, as: UTF8.self))
    }

    /// `a=1&b=two+words` decoded, `+` a space as in a browser's form; the last of a repeated name wins.
    static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let name = parts.first, !name.isEmpty { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }

    private static func response(_ result: FakeBlueskyResponse) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        for (name, value) in result.headers { if let field = HTTPField.Name(name) { headers[field] = value } }
        return Response(status: .init(code: result.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: result.body)))
    }

    /// The query's parameters in order, decoded (a name repeats for an array).
    private static func queryParameters(_ query: String?) -> [(String, String)] {
        var components = URLComponents()
        components.percentEncodedQuery = query
        return (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }
}
