public import BotClock
import BotCore
public import Foundation
import HTTPTypes
import Hummingbird
public import Logging
import NIOCore
public import ServiceLifecycle
public import SocialNetwork

#if canImport(Glibc)
    import Glibc
#endif

/// `mirror_bot web`, the front door: a person signs in as themselves on their network, from a phone's browser, then
/// with their bot's account, and makes their mirror, a fleet's bot (started paused, with their consent recorded); on
/// their page they start, pause and delete it. The archive upload and the preview are to come (issue 46).
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
        /// Where people's mirrors are made (the fleet's bots); nil where the door only signs people in.
        public var mirrors: (any DoorMirrors)?
        /// Who may make a new mirror here (`DOOR_SIGN_UP`).
        public var signUp = DoorSignUp.open
        /// The largest archive a person may upload, in bytes (an X archive with its photos and videos runs to gigabytes:
        /// only its data files are read, so a larger one can be imported with `mirror_bot bots exec … import`).
        public var uploadLimit = 1 << 30
        /// The files of each network's archive export a person uploads, by the network's name (`Mastodon`:
        /// `outbox.json / likes.json`), as its page names them.
        public var archiveFiles: [String: String] = [:]
        /// Whether clients are named by the last `X-Forwarded-For` entry (a platform's router, as on a Heroku dyno)
        /// rather than by the connection's address.
        public var behindRouter = false
        /// Where uploads are kept while they are imported (removed after).
        public var uploadFolder = FileManager.default.temporaryDirectory
        /// The most archives taken at once (one per person), each only with room for it on `uploadFolder`'s disk.
        public var concurrentUploads = 4
        /// How long an upload's answer waits for its import before it shows the import's progress instead.
        public var importAnswerWithin: Duration = .seconds(20)
        /// The networks (their keys) whose posts say who sees them: the door offers that choice there.
        public var visibilityNetworks: Set<String> = []
        /// What the operator's page reads and does; nil where there is none.
        public var operations: (any DoorOperations)?
        /// The operator's password (`DOOR_OPERATOR_PASSWORD`); nil: no operator's page.
        public var operatorPassword: String?

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
    let attempts: SignInAttempts
    let uploads: UploadSlots
    /// The archives being imported, one per person.
    let imports: ArchiveImports
    /// Wrong operator's passwords per client: 10 in 15 minutes, then refused until the window ends.
    let operatorFailures: FailedLogins

    /// A door with `settings`; `onStarted` gets the bound port.
    public init(settings: Settings, logger: Logger, onStarted: @escaping @Sendable (Int) async -> Void = { _ in }) {
        self.settings = settings
        self.logger = logger
        self.onStarted = onStarted
        sessions = DoorSessions(clock: settings.clock)
        attempts = SignInAttempts(clock: settings.clock)
        let folder = settings.uploadFolder
        uploads = UploadSlots(limit: settings.concurrentUploads, freeBytes: { UploadSlots.freeBytes(of: folder) })
        imports = ArchiveImports(clock: settings.clock)
        let clock = settings.clock
        operatorFailures = FailedLogins(now: { clock.now() })
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
    var cookieName: String { Self.cookieName(secure: isSecure) }
    static func cookieName(secure: Bool) -> String { secure ? "__Host-mirror_session" : "mirror_session" }
    /// The cookie that ends a browser's session.
    static func expiredCookie(secure: Bool) -> String {
        "\(cookieName(secure: secure))=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }
    var isSecure: Bool { settings.publicURL.scheme == "https" }

    func cookie(_ id: String) -> String { Self.cookie(id, secure: isSecure) }

    /// The cookie naming session `id`, for a door on https (`secure`) or not.
    static func cookie(_ id: String, secure: Bool) -> String {
        "\(cookieName(secure: secure))=\(id); Path=/; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    /// The session id the request's cookie carries.
    func sessionID(_ request: Request) -> String? { Self.sessionIDOf(request, secure: isSecure) }

    /// The session id `request`'s cookie carries, for a door on https (`secure`) or not.
    static func sessionIDOf(_ request: Request, secure: Bool) -> String? {
        let name = cookieName(secure: secure)
        for header in request.headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2, pair[0] == name { return pair[1] }
            }
        }
        return nil
    }

    /// Whether the server a person typed names this machine or a private network (`localhost`, `10.…`, `192.168.…`,
    /// `127.1`, `2130706433`, `[::1]`, `fd…`, an IPv4 address mapped into IPv6): what a door on the internet must not be
    /// made to call. Addresses are read as the resolver reads them (`inet_aton`, `inet_pton`). A public name that
    /// resolves to a private address is not caught here.
    public static func namesPrivateNetwork(_ server: String) -> Bool { PrivateHost.named(in: server) }

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

    /// A change to the signed-in person's mirror: the form read, its CSRF token checked, a door with mirrors; `body`
    /// answers. A refusal of the mirrors is shown in its words; any other failure in a line of the log, and a page
    /// that says to try again.
    static func change(
        _ request: Request, sessions: DoorSessions, settings: Settings, logger: Logger,
        _ body: (any DoorMirrors, DoorSession, String, [String: String], DoorText) async throws -> Response
    ) async throws -> Response {
        let text = DoorText.preferred(request.headers[.acceptLanguage])
        let fields = try await form(request)
        guard let id = sessionIDOf(request, secure: settings.publicURL.scheme == "https"), let session = await sessions.session(id),
            fields["csrf"] == session.csrf, session.person != nil
        else {
            return html(.forbidden, DoorPages.refused(text, "This form has expired: open the page again."))
        }
        guard let mirrors = settings.mirrors else { return html(.notFound, DoorPages.refused(text, text.noFleet)) }
        do {
            return try await body(mirrors, session, id, fields, text)
        } catch let refused as DoorMirrorRefused {
            return html(.badRequest, DoorPages.refused(text, refused.description))
        } catch {
            logger.error("web: a change to a person's mirror failed: \(error)")
            return html(
                .serviceUnavailable,
                DoorPages.refused(text, "That could not be done just now: open your page again in a minute to see where it stands."))
        }
    }

    /// The start page's notice: at a door by invitation, whether this browser brought one.
    static func notice(_ session: DoorSession, _ settings: Settings, _ text: DoorText) -> String? {
        guard settings.signUp == .invitations else { return nil }
        return session.invitation == nil ? text.byInvitation : text.invitationReady
    }

    /// An invitation's code in what a person brought: the code, or its whole link (`…/?invitation=CODE`) pasted.
    static func invitationCode(in given: String) -> String {
        let trimmed = given.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.contains("invitation="), let components = URLComponents(string: trimmed),
            let code = components.queryItems?.first(where: { $0.name == "invitation" })?.value
        {
            return String(code.prefix(200))
        }
        return String(trimmed.prefix(200))
    }

    /// The person's choices as a form gives them (`tz` one of the listed zones, `style`, `likes`, `visibility` where the
    /// network's posts say who sees them, `blocked` words); nil when they are not from the lists or past the limits.
    static func choices(_ fields: [String: String], offersVisibility: Bool) -> MirrorChoices? {
        let zone = fields["tz"] ?? ""
        guard MirrorChoices.timeZones.contains(zone), let style = MirrorChoices.Style(rawValue: fields["style"] ?? ""),
            let blocked = MirrorChoices.blockedWords(in: fields["blocked"] ?? "")
        else { return nil }
        // Where the network's posts say who sees them: the one chosen (unlisted when the form has none); elsewhere none.
        var visibility: MirrorChoices.Visibility?
        if offersVisibility {
            let given = fields["visibility"] ?? ""
            guard let chosen = given.isEmpty ? .unlisted : MirrorChoices.Visibility(rawValue: given) else { return nil }
            visibility = chosen
        }
        return MirrorChoices(timeZone: zone, style: style, likes: fields["likes"] == "on", visibility: visibility, blockedWords: blocked)
    }

    /// What a form whose choices are not from the lists, or past the limits, is answered.
    static let choicesRefused =
        "Choose a time zone, what your mirror posts and who sees it from the lists; give at most 100 blocked words of up to 60 characters."

    /// Whether the network `key`'s posts say who sees them (the door offers the choice there).
    static func offersVisibility(_ key: String?, _ settings: Settings) -> Bool { key.map(settings.visibilityNetworks.contains) ?? false }

    /// An upload as it arrived: the file, in a folder of its own, or why it was refused.
    enum Upload {
        /// The file, kept in a folder of its own (removed by the caller), and its size in bytes.
        case received(URL, bytes: Int)
        /// Refused, with the status and the sentence for the person.
        case refused(HTTPResponse.Status, String)
    }

    /// What an import of `file` into `person`'s mirror came to, as the page that says so (what was imported, or why
    /// not); the upload's folder is removed after.
    static func importOutcome(
        _ file: URL, person: DoorAccount, mirrors: any DoorMirrors, text: DoorText, settings: Settings, logger: Logger
    ) async -> ArchiveImports.Outcome {
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        do {
            guard let result = try await mirrors.importArchive(of: person, at: file.path, now: settings.clock.now()) else {
                return .init(status: .notFound, html: DoorPages.refused(text, "You have no mirror here."))
            }
            logger.notice("web: a person imported an archive on \(person.networkName): their mirror's archive holds \(result.archived) posts")
            return .init(status: .ok, html: DoorPages.imported(text, result))
        } catch let refused as DoorMirrorRefused {
            // Not in its words: they name the archive's account, and the door's lines name nobody.
            logger.notice("web: a person's archive was refused on \(person.networkName) (another's, or not one it reads); the page says why")
            return .init(status: .unprocessableContent, html: DoorPages.refused(text, refused.description))
        } catch {
            logger.error("web: a person's archive could not be imported: \(error)")
            return .init(
                status: .serviceUnavailable,
                html: DoorPages.refused(text, "Your archive could not be imported just now: nothing was stored. Try again in a minute."))
        }
    }

    /// Reads an archive's upload (`multipart/form-data`: the form's `csrf`, then the file `archive`) into a new folder
    /// under `settings.uploadFolder`, a piece at a time, refusing it past `settings.uploadLimit` bytes, before the token
    /// is checked, or when the body is not the form it claims. Nothing of a refused upload is kept.
    static func receiveArchive(_ request: Request, csrf: String, settings: Settings) async throws -> Upload {
        guard var reader = MultipartReader(contentType: request.headers[.contentType] ?? "") else {
            return .refused(.badRequest, "Send the archive with the form on your page.")
        }
        let limit = settings.uploadLimit
        let tooLarge =
            "That file is larger than this door takes (\(limit >> 20) MiB). Upload the archive without its media, or ask the operator to import it."
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit + 65_536 { return .refused(.contentTooLarge, tooLarge) }
        let folder = settings.uploadFolder.appending(path: "mirror_bot-upload-" + DoorSessions.token(), directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var kept = false
        defer { if !kept { try? FileManager.default.removeItem(at: folder) } }
        var current: String?
        var field: [UInt8] = []
        var tokenChecked = false
        var file: (url: URL, handle: FileHandle)?
        var received: URL?
        var written = 0
        defer { try? file?.handle.close() }
        do {
            for try await chunk in request.body {
                // Copied out whole (one memcpy), not a byte at a time.
                let bytes = chunk.withUnsafeReadableBytes { Array($0) }
                for event in try reader.feed(bytes) {
                    switch event {
                    case .part(let name, let filename):
                        current = name
                        field = []
                        guard name == "archive" else { continue }
                        guard tokenChecked else { return .refused(.forbidden, "This form has expired: open the page again.") }
                        guard received == nil, file == nil else { return .refused(.badRequest, "Upload one archive at a time.") }
                        let url = folder.appending(path: Self.uploadName(filename))
                        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
                        }
                        file = (url, try FileHandle(forWritingTo: url))
                    case .bytes(let bytes):
                        if current == "archive", let open = file {
                            written += bytes.count
                            guard written <= limit else { return .refused(.contentTooLarge, tooLarge) }
                            try open.handle.write(contentsOf: bytes)
                        } else {
                            field += bytes
                            guard field.count <= 1_024 else { return .refused(.badRequest, "Send the archive with the form on your page.") }
                        }
                    case .partEnd:
                        if current == "csrf" { tokenChecked = String(decoding: field, as: UTF8.self) == csrf }
                        if current == "archive", let open = file {
                            try open.handle.close()
                            received = open.url
                            file = nil
                        }
                        current = nil
                    }
                }
            }
        } catch let malformed as MultipartMalformed {
            return .refused(.badRequest, "The upload was not a whole form (\(malformed.description)): send it again.")
        }
        guard reader.isFinished else { return .refused(.badRequest, "The upload ended before the whole file arrived: send it again.") }
        guard tokenChecked else { return .refused(.forbidden, "This form has expired: open the page again.") }
        guard let received, written > 0 else { return .refused(.badRequest, "Choose your archive's file, then upload it.") }
        kept = true
        return .received(received, bytes: written)
    }

    /// The name an upload is kept under: the browser's file name reduced to letters, digits, `.`, `-` and `_` (the
    /// importer reads a single data file by its name: `tweets.js`, `outbox.json`), `archive` where nothing or only an
    /// extension is left.
    static func uploadName(_ filename: String?) -> String {
        let base = (filename ?? "").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let safe = String(
            base.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }.suffix(100)
                .map(Character.init))
        if safe.allSatisfy({ $0 == "." }) { return "archive" }
        return safe.hasPrefix(".") ? "archive" + safe : safe
    }

    func router() -> Router<DoorRequestContext> {
        let router = Router(context: DoorRequestContext.self)
        router.middlewares.add(DoorHeaders())
        let sessions = sessions
        let attempts = attempts
        let uploads = uploads
        let imports = imports
        let settings = settings
        let logger = logger
        router.get("/") { request, context in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            // An invitation's link: checked, kept in the browser's session, and off the address bar.
            if settings.signUp == .invitations, let given = request.uri.queryParameters["invitation"].map(String.init) {
                guard await attempts.allow(context.client(of: request, behindRouter: settings.behindRouter)) else {
                    return Self.html(.tooManyRequests, DoorPages.refused(text, "Too many tries from your address: wait ten minutes."))
                }
                let code = Self.invitationCode(in: given)
                do {
                    guard let operations = settings.operations, try await operations.isOpenInvitation(code) else {
                        logger.notice("web: an invitation was brought that is not open (used, withdrawn, expired or none)")
                        return Self.html(.notFound, DoorPages.refused(text, text.invitationNotOpen))
                    }
                } catch {
                    logger.error("web: an invitation could not be checked: \(error)")
                    return Self.html(
                        .serviceUnavailable, DoorPages.refused(text, "Your invitation cannot be checked just now: try again in a minute."))
                }
                var opened: String?
                let id: String
                if let known = sessionID(request), await sessions.session(known) != nil {
                    id = known
                } else {
                    id = await sessions.open().id
                    opened = cookie(id)
                }
                await sessions.noteInvitation(code, in: id)
                logger.info("web: an invitation was brought")
                return Self.redirect("/", cookie: opened)
            }
            if let session = await sessions.session(sessionID(request)), session.person != nil { return Self.redirect("/me") }
            let networks = settings.networks.map { ($0.key, $0.name, $0.flow.serverExample) }
            if let id = sessionID(request), let session = await sessions.session(id) {
                return Self.html(
                    .ok,
                    DoorPages.start(
                        text, csrf: session.csrf, networks: networks, notice: Self.notice(session, settings, text),
                        asksInvitation: settings.signUp == .invitations && session.invitation == nil))
            }
            let (id, session) = await sessions.open()
            return Self.html(
                .ok,
                DoorPages.start(
                    text, csrf: session.csrf, networks: networks, notice: Self.notice(session, settings, text),
                    asksInvitation: settings.signUp == .invitations),
                cookie: cookie(id))
        }
        // What a network reads of the door itself (atproto's client metadata and key set): public, the same for all.
        for document in settings.networks.flatMap(\.flow.documents) {
            let body = document.body
            router.get(RouterPath(document.path)) { _, _ in
                var headers = HTTPFields()
                headers[.contentType] = "application/json"
                headers[.cacheControl] = "public, max-age=300"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
            }
        }
        router.post("/sign-in") { request, context in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            // Sign-ins started from one address are limited, whatever its browsers' cookies (each sign-in asks a server).
            let client = context.client(of: request, behindRouter: settings.behindRouter)
            guard await attempts.allow(client) else {
                logger.warning("web: sign-ins refused from one address: more than \(SignInAttempts.perWindow) in ten minutes")
                return Self.html(.tooManyRequests, DoorPages.refused(text, "Too many sign-ins were started from your address: wait ten minutes."))
            }
            let fields = try await Self.form(request)
            guard let id = sessionID(request), let session = await sessions.session(id), let csrf = fields["csrf"], csrf == session.csrf else {
                return Self.html(.forbidden, DoorPages.refused(text, "This form has expired: open the start page again."))
            }
            // The bot's account is signed in by a person signed in already, on their network.
            let account: Account = fields["account"] == "bot" ? .bot : .human
            if account == .bot, session.person == nil {
                return Self.html(.forbidden, DoorPages.refused(text, "Sign in as yourself first, then with the bot's account."))
            }
            if account == .bot, settings.signUp == .closed {
                return Self.html(.forbidden, DoorPages.refused(text, text.signUpClosed))
            }
            if account == .bot, settings.signUp == .invitations, session.invitation == nil {
                return Self.html(.forbidden, DoorPages.refused(text, text.byInvitation))
            }
            guard let network = settings.networks.first(where: { $0.key == fields["network"] }),
                account == .human || network.key == session.person?.network
            else {
                return Self.html(.badRequest, DoorPages.refused(text, "Choose one of the networks listed."))
            }
            // A door for some servers only signs in nobody else.
            if account == .human, case .servers(let allowed) = settings.signUp {
                let typed = (fields["server"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                let server = URL(string: typed.contains("://") ? typed : "https://" + typed).map(FleetServers.name(of:))
                guard let server, allowed.contains(server) else {
                    return Self.html(
                        .forbidden, DoorPages.refused(text, "This door makes mirrors for people on \(allowed.sorted().joined(separator: ", ")) only.")
                    )
                }
            }
            // A door on the internet never calls this machine or a private network for whoever fills in the form.
            if isSecure, Self.namesPrivateNetwork(fields["server"] ?? "") {
                return Self.html(.badRequest, DoorPages.refused(text, "That server is on a private network: give your server's public name."))
            }
            let state = DoorSessions.token()
            let callback = settings.publicURL.appending(path: "sign-in/callback")
            do {
                let pending = try await network.flow.begin(
                    for: account, server: fields["server"] ?? "", redirect: callback, state: state, logger: logger)
                guard await sessions.start(pending, for: account, network: network.key, networkName: network.name, state: state, in: id) else {
                    return Self.html(.tooManyRequests, DoorPages.refused(text, "Too many sign-ins were started from this browser: wait ten minutes."))
                }
                logger.info("web: a sign-in started on \(network.name)\(account == .bot ? " (a bot's account)" : "")")
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
                var fields: [String: String] = [:]
                for (name, value) in query { fields[String(name)] = String(value) }
                let authorized = try await started.pending.finish(callback: fields)
                let signIn = DoorSignIn(variables: authorized.variables, keeping: authorized.keeping, release: authorized.release)
                let account = DoorAccount(
                    network: started.network, networkName: started.networkName, handle: authorized.handle, account: authorized.networkAccount)
                if started.account == .bot {
                    guard let id = sessionID(request), let person = await sessions.session(id)?.person else {
                        // Its person's session is gone: the grant is not kept, nor left live where it can be taken back.
                        _ = await authorized.release?()
                        return Self.redirect("/")
                    }
                    guard account.account != person.account else {
                        // Not kept, and not left live where the network can take it back.
                        if let release = authorized.release, await !release() {
                            logger.warning("web: a refused bot sign-in's grant on \(started.networkName) could not be revoked: it lapses on its own")
                        }
                        return Self.html(
                            .badRequest,
                            DoorPages.refused(text, "That is your own account: sign in with the bot's account, the one your mirror posts as."))
                    }
                    await sessions.signInBot(account, with: signIn, in: id)
                    logger.info("web: a bot's account signed in on \(started.networkName)")
                    return Self.redirect("/me")
                }
                let id = await sessions.signIn(account, with: signIn, replacing: sessionID(request))
                logger.info("web: a person signed in on \(started.networkName)")
                return Self.redirect("/me", cookie: cookie(id))
            } catch let refusal as AuthorizationRefused {
                return Self.html(.badRequest, DoorPages.refused(text, refusal.description))
            }
        }
        router.get("/me") { request, _ in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            guard let session = await sessions.session(sessionID(request)), let person = session.person else { return Self.redirect("/") }
            let asksInvitation = settings.signUp == .invitations && session.invitation == nil
            do {
                let mirror = try await settings.mirrors?.mirror(of: person)
                return Self.html(
                    .ok,
                    DoorPages.person(
                        text, csrf: session.csrf, person: person, bot: session.bot, mirror: mirror,
                        whyNoMirrors: settings.signUp == .closed
                            ? text.signUpClosed
                            : settings.mirrors == nil ? text.noFleet : asksInvitation ? text.byInvitation : nil,
                        serverExample: settings.networks.first { $0.key == person.network }?.flow.serverExample,
                        archiveFiles: settings.archiveFiles[person.networkName], asksInvitation: asksInvitation,
                        offersVisibility: Self.offersVisibility(person.network, settings)))
            } catch {
                logger.error("web: a person's mirror could not be read: \(error)")
                return Self.html(.serviceUnavailable, DoorPages.refused(text, "Your mirror cannot be read just now: try again in a minute."))
            }
        }
        // The mirror's changes: each for the signed-in person's own mirror (found by their account, never by anything
        // the form says), each with the session's CSRF token.
        router.post("/mirror") { request, _ in
            try await Self.change(request, sessions: sessions, settings: settings, logger: logger) { mirrors, session, id, fields, text in
                guard settings.signUp != .closed else { return Self.html(.forbidden, DoorPages.refused(text, text.signUpClosed)) }
                guard let person = session.person, let bot = session.bot, session.personSignIn != nil, session.botSignIn != nil else {
                    return Self.html(.badRequest, DoorPages.refused(text, "Sign in with both accounts first: yours, then the bot's."))
                }
                guard fields["agree"] == "yes" else {
                    return Self.html(.badRequest, DoorPages.refused(text, "Your mirror is made only once you agree to what it does."))
                }
                guard let choices = Self.choices(fields, offersVisibility: Self.offersVisibility(session.person?.network, settings)) else {
                    return Self.html(.badRequest, DoorPages.refused(text, Self.choicesRefused))
                }
                let invitation = settings.signUp == .invitations ? session.invitation : nil
                if settings.signUp == .invitations, invitation == nil { return Self.html(.forbidden, DoorPages.refused(text, text.byInvitation)) }
                // Out of the session while the mirror is made: a sign-out meanwhile gives back nothing the mirror holds.
                guard let signIns = await sessions.takeSignIns(in: id) else {
                    return Self.html(.conflict, DoorPages.refused(text, "Your mirror is being made already: open your page."))
                }
                do {
                    _ = try await mirrors.create(
                        person: person, personSignIn: signIns.person, bot: bot, botSignIn: signIns.bot, choices: choices, invitation: invitation,
                        how: "the front door \(settings.publicURL.absoluteString) (\(person.networkName)'s sign-in in their browser)",
                        now: settings.clock.now())
                } catch {
                    await sessions.putBack(signIns, in: id)
                    // An invitation that opens nothing is forgotten: the page asks for another.
                    if let refused = error as? DoorMirrorRefused, refused.description == DoorMirrorRefused.invitationNotOpen.description {
                        await sessions.noteInvitation(nil, in: id)
                    }
                    throw error
                }
                await sessions.dropSignIns(in: id)
                logger.notice("web: a person made their mirror on \(person.networkName) (paused until they start it)")
                return Self.redirect("/me")
            }
        }
        router.post("/mirror/choices") { request, _ in
            try await Self.change(request, sessions: sessions, settings: settings, logger: logger) { mirrors, session, _, fields, text in
                guard let choices = Self.choices(fields, offersVisibility: Self.offersVisibility(session.person?.network, settings)) else {
                    return Self.html(.badRequest, DoorPages.refused(text, Self.choicesRefused))
                }
                guard let person = session.person, try await mirrors.change(choices, of: person) != nil else {
                    return Self.html(.notFound, DoorPages.refused(text, "You have no mirror here."))
                }
                logger.notice("web: a person changed their mirror's choices on \(person.networkName)")
                return Self.redirect("/me")
            }
        }
        for (path, paused) in [("/mirror/start", false), ("/mirror/pause", true)] {
            router.post(RouterPath(path)) { request, _ in
                try await Self.change(request, sessions: sessions, settings: settings, logger: logger) { mirrors, session, _, _, text in
                    guard let person = session.person, try await mirrors.setPaused(paused, of: person) != nil else {
                        return Self.html(.notFound, DoorPages.refused(text, "You have no mirror here."))
                    }
                    logger.notice("web: a person \(paused ? "paused" : "started") their mirror on \(person.networkName)")
                    return Self.redirect("/me")
                }
            }
        }
        // The person's download: read-only, their own mirror's, found by their session alone.
        router.get("/mirror/download") { request, _ in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            guard let session = await sessions.session(sessionID(request)), let person = session.person else { return Self.redirect("/") }
            guard let mirrors = settings.mirrors else { return Self.html(.notFound, DoorPages.refused(text, text.noFleet)) }
            do {
                guard let data = try await mirrors.download(of: person, now: settings.clock.now()) else {
                    return Self.html(.notFound, DoorPages.refused(text, "You have no mirror here."))
                }
                logger.notice("web: a person downloaded what their mirror keeps on \(person.networkName) (\(data.count) bytes)")
                var headers = HTTPFields()
                headers[.contentType] = "application/json; charset=utf-8"
                headers[.contentDisposition] = "attachment; filename=\"mirror_bot-\(person.network)-\(DoorPages.fileSafe(person.handle)).json\""
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
            } catch {
                logger.error("web: a person's download failed: \(error)")
                return Self.html(.serviceUnavailable, DoorPages.refused(text, "Your download cannot be made just now: try again in a minute."))
            }
        }
        // The person's archive, streamed to a file of its own as it arrives (never whole in memory), then imported into
        // their own mirror; the form's token is its first part, checked before any of the file is taken.
        router.post("/mirror/archive") { request, _ in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            guard let session = await sessions.session(sessionID(request)), let person = session.person else {
                return Self.html(.forbidden, DoorPages.refused(text, "This form has expired: open the page again."))
            }
            guard let mirrors = settings.mirrors else { return Self.html(.notFound, DoorPages.refused(text, text.noFleet)) }
            // Taken only with a slot free, and room on the disk for it beside the others in flight.
            let whose = person.network + "\n" + person.account
            let declared = request.headers[.contentLength].flatMap(Int.init).map { min(max($0, 0), settings.uploadLimit) } ?? settings.uploadLimit
            if let refusal = await uploads.take(for: whose, bytes: declared) {
                logger.warning(
                    "web: an archive was turned away: \(refusal == .noRoom ? "no room on the disk" : refusal == .busy ? "as many uploads as the door takes are in flight" : "the person's own upload is in flight")"
                )
                return Self.html(
                    .serviceUnavailable,
                    DoorPages.refused(
                        text,
                        refusal == .yoursInFlight
                            ? "Your other upload is still on its way: wait for its page."
                            : "The door is taking other archives just now: try again in a minute."))
            }
            // The slot is held until the import ends: it bounds the imports in flight too.
            let began = ContinuousClock.now
            let file: URL
            do {
                switch try await Self.receiveArchive(request, csrf: session.csrf, settings: settings) {
                case .refused(let status, let reason):
                    await uploads.release(whose)
                    return Self.html(status, DoorPages.refused(text, reason))
                case .received(let url, let bytes):
                    file = url
                    logger.info("web: an archive of \(bytes >> 20) MiB was received in \(ContinuousClock.now - began); importing it")
                }
            } catch {
                await uploads.release(whose)
                throw error
            }
            // Imported beside the answer: a large archive's page would otherwise outlast a platform's router (Heroku
            // gives an answer 30 s); the answer waits for it a while, then shows its progress.
            await imports.start(
                for: whose, { await Self.importOutcome(file, person: person, mirrors: mirrors, text: text, settings: settings, logger: logger) },
                afterwards: { await uploads.release(whose) })
            if let outcome = await imports.outcome(for: whose, waitingUpTo: settings.importAnswerWithin) {
                return Self.html(outcome.status, outcome.html)
            }
            return Self.redirect("/mirror/archive/progress")
        }
        // An import still running: how far it is (the mirror's archive as it grows), the page looking again every 2 s
        // (no script: the page's own refresh); once it ended, what it came to.
        router.get("/mirror/archive/progress") { request, _ in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            guard let session = await sessions.session(sessionID(request)), let person = session.person, let mirrors = settings.mirrors else {
                return Self.redirect("/")
            }
            let whose = person.network + "\n" + person.account
            switch await imports.progress(for: whose) {
            case .none: return Self.redirect("/me")
            case .finished(let outcome): return Self.html(outcome.status, outcome.html)
            case .running(let since):
                let archived = try? await mirrors.archiveCount(of: person)
                let seconds = max(0, Int(settings.clock.now().timeIntervalSince(since)))
                return Self.html(.ok, DoorPages.importing(text, seconds: seconds, archived: archived ?? nil))
            }
        }
        // The preview: read-only, their own mirror's, found by their session alone.
        router.get("/mirror/preview") { request, _ in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            guard let session = await sessions.session(sessionID(request)), let person = session.person else { return Self.redirect("/") }
            guard let mirrors = settings.mirrors else { return Self.html(.notFound, DoorPages.refused(text, text.noFleet)) }
            do {
                guard let preview = try await mirrors.preview(of: person, now: settings.clock.now()) else {
                    return Self.html(.notFound, DoorPages.refused(text, "You have no mirror here."))
                }
                return Self.html(.ok, DoorPages.preview(text, preview))
            } catch {
                logger.error("web: a person's preview failed: \(error)")
                return Self.html(.serviceUnavailable, DoorPages.refused(text, "Your preview cannot be drawn just now: try again in a minute."))
            }
        }
        router.post("/mirror/delete") { request, _ in
            try await Self.change(request, sessions: sessions, settings: settings, logger: logger) { mirrors, session, id, fields, text in
                guard fields["confirm"] == "delete" else {
                    return Self.html(.badRequest, DoorPages.refused(text, "Tick the box to say you mean it: nothing was deleted."))
                }
                guard let person = session.person, let deletion = try await mirrors.delete(of: person, now: settings.clock.now()) else {
                    return Self.html(.notFound, DoorPages.refused(text, "You have no mirror here."))
                }
                logger.notice(
                    "web: a person deleted their mirror on \(person.networkName): \(deletion.keys) word-count keys and the schema \(deletion.schema) removed"
                )
                // Signed out with it: the session's sign-ins went with the mirror; a new mirror starts from a new sign-in.
                await sessions.close(id)
                return Self.html(.ok, DoorPages.deleted(text, deletion), cookie: Self.expiredCookie(secure: settings.publicURL.scheme == "https"))
            }
        }
        addOperatorRoutes(to: router)
        router.post("/sign-out") { request, _ in
            let text = DoorText.preferred(request.headers[.acceptLanguage])
            let fields = try await Self.form(request)
            guard let id = sessionID(request), let session = await sessions.session(id), fields["csrf"] == session.csrf else {
                return Self.html(.forbidden, DoorPages.refused(text, "This form has expired: open the page again."))
            }
            await sessions.close(id)
            return Self.redirect("/", cookie: Self.expiredCookie(secure: isSecure))
        }
        return router
    }
}

/// The door's request context: Hummingbird's, plus the address of the client that connected.
struct DoorRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's own.
    var coreContext: CoreRequestContextStorage
    /// The client's address (the platform's router, behind one).
    let remoteAddress: SocketAddress?

    /// The context of a request on `source`'s connection.
    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Who is asking (`ClientAddress`, as the status page names it).
    func client(of request: Request, behindRouter: Bool) -> String {
        ClientAddress.of(
            forwardedFor: request.headers[HTTPField.Name("X-Forwarded-For")!], connectedFrom: remoteAddress?.ipAddress, behindRouter: behindRouter)
    }
}

/// Sign-ins started per client address: at most `perWindow` in ten minutes, each address's window sliding; at most
/// `maxClients` addresses remembered (the oldest forgotten first).
actor SignInAttempts {
    /// The most sign-ins one address starts in `window`.
    static let perWindow = 30
    /// The window.
    static let window: TimeInterval = 600
    /// The most addresses remembered.
    static let maxClients = 10_000

    private var started: [String: [Date]] = [:]
    private let clock: any BotClock

    init(clock: any BotClock) { self.clock = clock }

    /// Whether `client` may start one more sign-in now; counts it when it may.
    func allow(_ client: String) -> Bool {
        let now = clock.now()
        var times = (started[client] ?? []).filter { now.timeIntervalSince($0) < Self.window }
        guard times.count < Self.perWindow else {
            started[client] = times
            return false
        }
        times.append(now)
        if started[client] == nil, started.count >= Self.maxClients {
            started = started.filter { $0.value.contains { now.timeIntervalSince($0) < Self.window } }
            if started.count >= Self.maxClients, let oldest = started.min(by: { ($0.value.last ?? now) < ($1.value.last ?? now) })?.key {
                started[oldest] = nil
            }
        }
        started[client] = times
        return true
    }
}

/// Who may make a new mirror at a door.
public enum DoorSignUp: Sendable, Equatable {
    /// Anyone signed in as themselves.
    case open
    /// Only people on these servers (as `FleetServers.name(of:)` names them); nobody else signs in.
    case servers(Set<String>)
    /// Whoever brings an invitation the operator made (its link): anyone signs in, a mirror is made only with one.
    case invitations
    /// Nobody new: people who have a mirror still sign in to see, pause or delete it.
    case closed
}

/// Every answer's defences: no framing, no sniffing, no referrer (a callback's code stays out of other sites' logs),
/// no caching, and pages that load nothing but themselves. Forms post here; their answers may send the browser on to
/// a network's sign-in page.
struct DoorHeaders: RouterMiddleware {
    typealias Context = DoorRequestContext

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
