public import FakeKit
public import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
public import Logging
import MisskeyAPI
import NIOCore
import NIOFoundationCompat
import ServiceLifecycle

/// A fake Misskey instance on loopback, serving the endpoints mirror_bot uses from memory, as Misskey's OpenAPI
/// document and its source describe them: `POST /api/<endpoint>` with a JSON body and the token as `i`, permissions
/// checked (`PERMISSION_DENIED`), errors as `{"error": {message, code, id, kind}}`, paging by `sinceId`/`untilId`
/// (newest first with `untilId`, oldest first with `sinceId` alone, as Misskey does), visibility (`followers` and
/// `specified` notes shown only to whom they are for), notes hidden until their time, `notes/create`'s limit (300 an
/// hour, then 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`), reactions once per note (`ALREADY_REACTED`), MiAuth, and
/// faults on demand or at seeded rates (503, 429, an answer lost after the work was done, an unreadable answer).
public final class FakeMisskeyServer: Sendable {
    let world: FakeMisskeyWorld
    private let logger: Logger

    /// A server holding `seed`.
    public init(seed: FakeMisskeySeed, logger: Logger = Logger(label: "fake-misskey")) {
        world = FakeMisskeyWorld(seed: seed)
        self.logger = logger
    }

    /// Serves on `host`:`port` (0 picks a free port) until the task is cancelled; `onStarted` gets the bound port.
    public func run(host: String = "127.0.0.1", port: Int = 0, onStarted: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await application(host: host, port: port, onStarted: onStarted).run()
    }

    private func application(host: String, port: Int, onStarted: @escaping @Sendable (Int) async -> Void) -> some Service {
        let world = world
        let application = Application(
            router: router(), server: .http1WebSocketUpgrade { request, _, _ in try await Self.streaming(request, world: world) },
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "fake-misskey"),
            onServerRunning: { channel in await onStarted(channel.localAddress?.port ?? port) }, logger: logger)
        return ServiceGroup(configuration: .init(services: [application, StreamCloser(world: world)], logger: logger))
    }

    /// Ends every open stream when the server shuts down.
    private struct StreamCloser: Service {
        let world: FakeMisskeyWorld
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
    /// Sets the clock when the next API request arrives.
    public func armClock(_ date: Date, speed: Double) async { await world.armClock(date, speed: speed) }
    /// Moves the clock forward.
    public func advanceClock(by seconds: TimeInterval) async { await world.advanceClock(by: seconds) }
    /// Adds notes (visible once the clock reaches their time).
    public func add(notes: [FakeMisskeySeed.Note]) async { await world.add(notes: notes) }
    /// Queues a fault.
    public func add(fault: FakeMisskeyFault) async { await world.add(fault: fault) }
    /// Loses the answers of that share of writes (after the work) and answers that share of reads with 503, drawn
    /// from `seed`.
    public func setFaultRates(lostAnswers: Double, failedReads: Double, seed: UInt64) async {
        await world.setFaultRates(lostAnswers: lostAnswers, failedReads: failedReads, seed: seed)
    }
    /// Sets how many notes an account may create an hour.
    public func setCreateLimit(_ perHour: Int) async { await world.setCreateLimit(perHour) }
    /// Deletes a note, as its author deleting it; false when unknown.
    @discardableResult
    public func delete(noteID: String) async -> Bool { await world.delete(noteID: noteID) }
    /// The note `id`, if it is there.
    public func note(_ id: String) async -> FakeMisskeySeed.Note? { await world.note(id) }
    /// Notes created through the API, in order.
    public func posted() async -> [FakeMisskeySeed.Note] { await world.posted }
    /// The ids of notes deleted through the API, in order.
    public func deletedByAPI() async -> [String] { await world.deletedByAPI }
    /// Reactions made through the API, in order.
    public func reacted() async -> [(userID: String, noteID: String, reaction: String)] { await world.reacted }
    /// API requests received, by endpoint name.
    public func requestCounts() async -> [String: Int] { await world.requestCounts }
    /// The notes posted through the API as the persona's posts, for the checks and the demo's report.
    public func postedAsPosts() async -> [FakePersona.Post] { await world.postedAsPosts() }
    /// Approves the MiAuth session `session` as the account `accountID` with `permissions` (the consent page's button).
    @discardableResult
    public func approveMiAuth(session: String, accountID: String, permissions: [String]) async -> Bool {
        await world.approveMiAuth(session: session, accountID: accountID, permissions: permissions)
    }
    /// As the account `accountID` revoking the apps it allowed: every token of its answers 401 from now on.
    public func revokeTokens(of accountID: String) async { await world.revokeTokens(of: accountID) }
    /// Makes the streaming endpoint accept (true) or refuse (false) connections.
    public func setStreamingAvailable(_ available: Bool) async { await world.setStreamingAvailable(available) }
    /// Cuts every open stream, as a network drop or a restart of the instance does.
    public func cutStreams() async { await world.cutStreams() }
    /// Streams opened so far.
    public func streamsOpened() async -> Int { await world.streamsOpened }

    // MARK: - HTTP

    /// What each endpoint needs: its permission (nil: none) and whether a token is required.
    private static let endpoints: [(name: String, permission: String?, required: Bool, isWrite: Bool)] = [
        (GetI.name, "read:account", true, false), (ShowUser.name, nil, false, false), (GetMeta.name, nil, false, false),
        (GetUserNotes.name, nil, false, false), (GetMentions.name, "read:account", true, false), (GetTimeline.name, "read:account", true, false),
        (ShowNote.name, nil, false, false), (CreateNote.name, "write:notes", true, true), (DeleteNote.name, "write:notes", true, true),
        (CreateReaction.name, "write:reactions", true, true), (GetUserReactions.name, nil, false, false),
    ]

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        let world = world
        for endpoint in Self.endpoints {
            router.post(RouterPath("/api/" + endpoint.name)) { request, _ in
                var request = request
                await world.countRequest(endpoint.name)
                let data = (try? await request.collectBody(upTo: 1 << 20)).map { Data(buffer: $0) } ?? Data()
                guard let body = FakeMisskeyParameters(data) else {
                    return Self.response(FakeMisskeyWorld.error(400, "INVALID_PARAM", "Invalid param.", id: "3d81ceae-475f-4600-b2a8-2bc116157532"))
                }
                let caller: FakeMisskeyWorld.Caller?
                switch await world.authenticate(body.string("i"), permission: endpoint.permission, required: endpoint.required) {
                case .success(let authenticated): caller = authenticated
                case .failure(let refusal): return Self.response(refusal)
                }
                let fault = await world.takeFault(for: endpoint.name, isWrite: endpoint.isWrite)
                switch fault?.kind {
                case .serviceUnavailable?:
                    return Self.response(FakeMisskeyResponse(status: 503, body: .object([("error", .string("Service Unavailable"))])))
                case .rateLimited?:
                    var refusal = FakeMisskeyWorld.error(
                        429, "RATE_LIMIT_EXCEEDED", "Rate limit exceeded. Please try again later.",
                        id: "d5826d14-3982-4d2e-8011-b9e9f02499ef")
                    refusal.headers = [("Retry-After", String(fault?.retryAfter ?? 30))]
                    return Self.response(refusal)
                case .malformed?:
                    return Response(
                        status: .ok, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: "<html>502 Bad Gateway")))
                case .dropAfterHandling?, nil:
                    break
                }
                let result = await Self.handle(endpoint.name, body: body, caller: caller, world: world)
                if fault?.kind == .dropAfterHandling {
                    // The work is done; half the answer is sent, then the connection is closed.
                    let bytes = result.body?.data() ?? Data("{}".utf8)
                    return Response(
                        status: .init(code: result.status == 204 ? 200 : result.status), headers: [.contentLength: String(bytes.count)],
                        body: ResponseBody(contentLength: bytes.count) { writer in
                            try await writer.write(ByteBuffer(bytes: bytes.prefix(bytes.count / 2)))
                            throw CancellationError()
                        })
                }
                return Self.response(result)
            }
        }
        router.post("/api/miauth/:session/check") { _, context in
            await world.countRequest(CheckMiAuthSession.name)
            return Self.response(await world.checkMiAuth(session: context.parameters.get("session") ?? ""))
        }
        router.get("/miauth/:session") { request, context in
            // The consent page a person opens: the fake names the app and its permissions; approval comes through
            // /admin/miauth (or approveMiAuth), as the person's click would.
            let permissions = request.uri.queryParameters.get("permission") ?? ""
            return Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: ResponseBody(
                    byteBuffer: ByteBuffer(
                        string:
                            "<!doctype html><title>MiAuth</title><p>\(request.uri.queryParameters.get("name") ?? "An app") asks for \(permissions) (session \(context.parameters.get("session") ?? "")).</p>"
                    )))
        }
        addAdminRoutes(to: router)
        return router
    }

    private static func handle(_ name: String, body: FakeMisskeyParameters, caller: FakeMisskeyWorld.Caller?, world: FakeMisskeyWorld) async
        -> FakeMisskeyResponse
    {
        switch name {
        case GetI.name: return await world.me(caller!)
        case ShowUser.name: return await world.showUser(body)
        case GetMeta.name: return await world.meta()
        case GetUserNotes.name: return await world.userNotes(body, caller: caller)
        case GetMentions.name: return await world.mentions(body, caller: caller!)
        case GetTimeline.name: return await world.timeline(body, caller: caller!)
        case ShowNote.name: return await world.showNote(body, caller: caller)
        case CreateNote.name: return await world.createNote(body, caller: caller!)
        case DeleteNote.name: return await world.deleteNote(body, caller: caller!)
        case CreateReaction.name: return await world.react(body, caller: caller!)
        case GetUserReactions.name: return await world.userReactions(body, caller: caller)
        default: return FakeMisskeyWorld.error(404, "UNKNOWN_API_ENDPOINT", "Unknown API endpoint.", id: "2ca3b769-540a-4f08-9dd5-b5a825b6d0f1")
        }
    }

    /// `/admin/state` and `/admin/clock` in the fakes' shape (for the demo's script and report), and `/admin/miauth`
    /// (`{"session", "account_id", "permissions"}`: the person's approval).
    private func addAdminRoutes(to router: Router<BasicRequestContext>) {
        let world = world
        router.get("/admin/state") { _, _ in Self.response(FakeMisskeyResponse(status: 200, body: await world.adminState())) }
        router.post("/admin/clock") { request, _ in
            var request = request
            let body = (try? await request.collectBody(upTo: 1 << 16)).map { Data(buffer: $0) } ?? Data()
            guard let adjustment = FakeClockAdjustment(body: body) else {
                return Self.response(FakeMisskeyResponse(status: 400, body: .object([("error", .string(FakeClockAdjustment.expected))])))
            }
            await adjustment.apply(to: world)
            return Self.response(FakeMisskeyResponse(status: 200, body: .object([("now", .time(await world.now))])))
        }
        router.post("/admin/miauth") { request, _ in
            var request = request
            let data = (try? await request.collectBody(upTo: 1 << 16)).map { Data(buffer: $0) } ?? Data()
            guard let body = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], let session = body["session"] as? String,
                let accountID = body["account_id"] as? String, let permissions = body["permissions"] as? [String],
                await world.approveMiAuth(session: session, accountID: accountID, permissions: permissions)
            else {
                return Self.response(
                    FakeMisskeyResponse(status: 400, body: .object([("error", .string("expected {session, account_id, permissions}"))])))
            }
            return Self.response(FakeMisskeyResponse(status: 200, body: .object([("ok", .bool(true))])))
        }
    }

    /// `GET /streaming?i=<token>` upgraded to a WebSocket: after `{"type":"connect","body":{"channel":"main","id":…}}`,
    /// a `mention` or `reply` event (`{"type":"channel","body":{"id":…,"type":…,"body":<note>}}`) for each note made
    /// after the connection, as the instance's clock reveals them, until the stream is cut (the connection drops),
    /// the server shuts down or the client leaves. An unknown token, or streaming turned off, is no upgrade.
    private static func streaming(_ request: HTTPRequest, world: FakeMisskeyWorld) async throws
        -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>
    {
        let path = request.path ?? ""
        guard path.hasPrefix("/streaming") else { return .dontUpgrade }
        await world.countRequest("streaming")
        let token = URLComponents(string: path)?.queryItems?.first { $0.name == "i" }?.value
        guard await world.streamingAvailable, case .success(let caller?) = await world.authenticate(token, permission: "read:account", required: true)
        else {
            return .dontUpgrade
        }
        await world.countStreamOpened()
        let generation = await world.streamGeneration
        let opened = await world.newestNoteID()
        let accountID = String(caller.account.id.split(separator: "#").first ?? "")
        return .upgrade([:]) { inbound, outbound, _ in
            // The client connects to the main channel first.
            var channelID: String?
            var messages = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
            while channelID == nil, let message = try await messages.next() {
                guard case .text(let text) = message, let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
                    object["type"] as? String == "connect", let body = object["body"] as? [String: Any], body["channel"] as? String == "main"
                else { continue }
                channelID = body["id"] as? String ?? "main"
            }
            guard let channelID else { return }
            // Events go out from a task of their own, while what the client sends is read here and dropped: reading is
            // also what answers its pings and takes its pongs (unread, the server's pings went unanswered and it closed
            // every stream after a minute). A cut or the end of the streams closes the connection, which ends the reading.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var last = opened
                    while await world.streamsOpen {
                        guard await world.streamGeneration == generation else {  // cut: the connection drops
                            return try await outbound.close(.goingAway, reason: "cut")
                        }
                        let rings = await world.bell.rings
                        let (events, newest, realSecondsToNext) = await world.mainEvents(of: accountID, after: last)
                        for event in events {
                            let frame = JSONValue.object([
                                ("type", .string("channel")),
                                ("body", .object([("id", .string(channelID)), ("type", .string(event.type)), ("body", event.note)])),
                            ])
                            try await outbound.write(.text(String(decoding: frame.data(), as: UTF8.self)))
                            last = event.id
                        }
                        last = newest ?? last
                        // Asleep until a note is made, the clock is set or reveals the next note, or the streams are cut.
                        await world.bell.wait(after: rings, upTo: realSecondsToNext)
                        try Task.checkCancellation()
                    }
                    try await outbound.close(.goingAway, reason: "the server is shutting down")
                }
                while try await messages.next() != nil {}
                group.cancelAll()  // the client left
            }
        }
    }

    static func response(_ result: FakeMisskeyResponse) -> Response {
        var headers = HTTPFields()
        for (name, value) in result.headers { if let field = HTTPField.Name(name) { headers[field] = value } }
        guard let body = result.body else { return Response(status: .init(code: result.status), headers: headers) }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .init(code: result.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body.data())))
    }
}
