public import BotClock
public import Foundation
import HTTPTypes
import Hummingbird
public import Logging
import NIOCore
public import ServiceLifecycle
public import SocialNetwork

/// `mirror_bot web`, the front door: a person signs in as themselves on their network, from a phone's browser. This
/// first part serves the sign-in and the person's page; the rest of the door (the bot's account, the archive, the
/// preview, the fleet's mirror) is to come (issue 46).
///
/// Sessions in HttpOnly, SameSite=Lax cookies (`Secure` and `__Host-` on https); a CSRF token in every form; the
/// network's state and PKCE, a state good once and only in the browser that started it; a new session id at sign-in;
/// no secret in a page or a log line.
public struct FrontDoorServer: Service {
    /// Where it listens and how people reach it.
    public struct Settings: Sendable {
        /// The address to bind.
        public var host: String
        /// The TCP port; 0 picks a free one.
        public var port: Int
        /// The address people reach it at (`PUBLIC_URL`): the networks send browsers back to its `/sign-in/callback`.
        public var publicURL: URL
        /// The networks a person can sign in on here: key, name, flow.
        public var networks: [(key: String, name: String, flow: any WebSignIn)]
        /// The clock sessions lapse on.
        public var clock: any BotClock = SystemBotClock()

        /// Settings from their parts.
        public init(host: String, port: Int, publicURL: URL, networks: [(key: String, name: String, flow: any WebSignIn)]) {
            self.host = host
            self.port = port
            self.publicURL = publicURL
            self.networks = networks
        }
    }

    let settings: Settings
    let logger: Logger
    let onStarted: @Sendable (Int) async -> Void
    let sessions: DoorSessions

    /// A door with `settings`; `onStarted` gets the bound port.
    public init(settings: Settings, logger: Logger, onStarted: @escaping @Sendable (Int) async -> Void = { _ in }) {
        self.settings = settings
        self.logger = logger
        self.onStarted = onStarted
        sessions = DoorSessions(clock: settings.clock)
    }

    /// Serves until the service group shuts down.
    public func run() async throws {
        let onStarted = onStarted
        let port = settings.port
        let application = Application(
            router: router(),
            configuration: ApplicationConfiguration(address: .hostname(settings.host, port: settings.port), serverName: "mirror_bot"),
            onServerRunning: { channel in await onStarted(channel.localAddress?.port ?? port) },
            logger: logger)
        try await application.run()
    }

    /// The cookie's name: `__Host-` (bound to this host, path `/`, `Secure`) on https.
    var cookieName: String { isSecure ? "__Host-mirror_session" : "mirror_session" }
    var isSecure: Bool { settings.publicURL.scheme == "https" }

    func cookie(_ id: String) -> String {
        "\(cookieName)=\(id); Path=/; HttpOnly; SameSite=Lax" + (isSecure ? "; Secure" : "")
    }

    /// The session id the request's cookie carries.
    func sessionID(_ request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2, pair[0] == cookieName { return pair[1] }
            }
        }
        return nil
    }

    /// Whether the server a person typed names this machine or a private network (`localhost`, `10.…`, `192.168.…`,
    /// `[::1]`, `fd…`): what a door on the internet must not be made to call. A public name that resolves to a private
    /// address is not caught here.
    public static func namesPrivateNetwork(_ server: String) -> Bool {
        let typed = server.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let host = URL(string: typed.contains("://") ? typed : "https://" + typed)?.host()?.lowercased() else { return false }
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        if name == "localhost" || [".localhost", ".local", ".internal", ".lan", ".home.arpa"].contains(where: name.hasSuffix) { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        let bytes = octets.compactMap { UInt8($0) }
        if octets.count == 4, bytes.count == 4 {
            switch (bytes[0], bytes[1]) {
            case (0, _), (10, _), (127, _), (169, 254), (192, 168): return true
            case (172, 16...31), (100, 64...127): return true
            default: return false
            }
        }
        let address = name.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if address.contains(":") {
            return address == "::1" || address == "::" || address.hasPrefix("fc") || address.hasPrefix("fd") || address.hasPrefix("fe80")
                || address.hasPrefix("::ffff:")
        }
        return false
    }

    static func html(_ status: HTTPResponse.Status, _ body: String, cookie: String? = nil) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func redirect(_ location: String, cookie: String? = nil) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: .seeOther, headers: headers)
    }

    /// A form's fields (`application/x-www-form-urlencoded`, at most 8 KiB).
    static func form(_ request: Request) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: 8_192)
        var fields: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            if let name = parts.first { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(DoorHeaders())
        let sessions = sessions
        let settings = settings
        let logger = logger
        router.get("/") { request, _ in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            if let session = await sessions.session(sessionID(request)), session.person != nil { return Self.redirect("/me") }
            if let id = sessionID(request), let session = await sessions.session(id) {
                return Self.html(
                    .ok, DoorPages.start(text, csrf: session.csrf, networks: settings.networks.map { ($0.key, $0.name, $0.flow.serverExample) }))
            }
            let (id, session) = await sessions.open()
            return Self.html(
                .ok, DoorPages.start(text, csrf: session.csrf, networks: settings.networks.map { ($0.key, $0.name, $0.flow.serverExample) }),
                cookie: cookie(id))
        }
        router.post("/sign-in") { request, _ in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            let fields = try await Self.form(request)
            guard let id = sessionID(request), let session = await sessions.session(id), let csrf = fields["csrf"], csrf == session.csrf else {
                return Self.html(.forbidden, DoorPages.refused(text, "This form has expired: open the start page again."))
            }
            guard let network = settings.networks.first(where: { $0.key == fields["network"] }) else {
                return Self.html(.badRequest, DoorPages.refused(text, "Choose one of the networks listed."))
            }
            // A door on the internet never calls this machine or a private network for whoever fills in the form.
            if isSecure, Self.namesPrivateNetwork(fields["server"] ?? "") {
                return Self.html(.badRequest, DoorPages.refused(text, "That server is on a private network: give your server's public name."))
            }
            let state = DoorSessions.token()
            let callback = settings.publicURL.appending(path: "sign-in/callback")
            do {
                let pending = try await network.flow.begin(
                    for: .human, server: fields["server"] ?? "", redirect: callback, state: state, logger: logger)
                guard await sessions.start(pending, network: network.key, networkName: network.name, state: state, in: id) else {
                    return Self.html(.tooManyRequests, DoorPages.refused(text, "Too many sign-ins were started from this browser: wait ten minutes."))
                }
                logger.info("web: a sign-in started on \(network.name)")
                return Self.redirect(pending.address.absoluteString)
            } catch let refusal as AuthorizationRefused {
                return Self.html(.badRequest, DoorPages.refused(text, refusal.description))
            }
        }
        router.get("/sign-in/callback") { request, _ in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            let query = request.uri.queryParameters
            guard let state = query["state"].map(String.init),
                let started = await sessions.take(state: state, in: sessionID(request))
            else {
                return Self.html(
                    .badRequest,
                    DoorPages.refused(text, "This sign-in was not started in this browser, was used already, or has expired: start again."))
            }
            // A network that refused says so (OAuth's `error`); one that shows no code (MiAuth) is asked for the token.
            guard query["error"] == nil else {
                return Self.html(.badRequest, DoorPages.refused(text, "\(started.networkName) did not approve the sign-in: start again."))
            }
            do {
                let authorized = try await started.pending.finish(code: query["code"].map(String.init) ?? "")
                let person = DoorSession.Person(
                    network: started.network, networkName: started.networkName, handle: authorized.handle, account: authorized.networkAccount)
                let id = await sessions.signIn(person, replacing: sessionID(request))
                logger.info("web: a person signed in on \(started.networkName)")
                return Self.redirect("/me", cookie: cookie(id))
            } catch let refusal as AuthorizationRefused {
                return Self.html(.badRequest, DoorPages.refused(text, refusal.description))
            }
        }
        router.get("/me") { request, _ in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            guard let session = await sessions.session(sessionID(request)), let person = session.person else { return Self.redirect("/") }
            return Self.html(.ok, DoorPages.person(text, csrf: session.csrf, person: person))
        }
        router.post("/sign-out") { request, _ in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            let fields = try await Self.form(request)
            guard let id = sessionID(request), let session = await sessions.session(id), fields["csrf"] == session.csrf else {
                return Self.html(.forbidden, DoorPages.refused(text, "This form has expired: open the page again."))
            }
            await sessions.close(id)
            return Self.redirect("/", cookie: "\(cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax" + (isSecure ? "; Secure" : ""))
        }
        return router
    }
}

/// Every answer's defences: no framing, no sniffing, no referrer (a callback's code stays out of other sites' logs),
/// no caching, and pages that load nothing but themselves. Forms post here; their answers may send the browser on to
/// a network's sign-in page.
struct DoorHeaders: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
