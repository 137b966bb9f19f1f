public import AsyncHTTPClient
public import BotClock
public import BotCore
import CoreMetrics
public import Foundation
public import HTTPCore
public import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// A Bluesky account the bot acts as or reads: its handle, and its app password when it must log in.
public struct BlueskyAccess: Sendable, Equatable {
    /// The handle, without the @ (`alice.bsky.social`).
    public var handle: String
    /// An app password (Settings → Privacy and security → App passwords); nil: the account is only read, publicly, or
    /// signed in by OAuth.
    public var appPassword: String?
    /// Whether the account signed in by atproto OAuth (`mirror_bot auth bluesky --account human`): its session is the
    /// one kept in the store, renewed at its authorization server, never made by a login here.
    public var signsInWithOAuth: Bool
    /// Access from its parts.
    public init(handle: String, appPassword: String?, signsInWithOAuth: Bool = false) {
        self.handle = handle
        self.appPassword = appPassword
        self.signsInWithOAuth = signsInWithOAuth
    }
}

/// Sends XRPC requests to Bluesky. An account with an app password acts through a session: the stored one when there
/// is one, renewed with `refreshSession` when its access token expires, and a new login (`createSession`, limited to
/// 300 a day) only when there is none or it can no longer be renewed; its requests go to the PDS its DID document
/// names. An account without one is read through the public AppView, unauthenticated. Rate limits are read from
/// the `ratelimit-*` headers and waited out on the injected clock; 5xx and dropped connections are retried for
/// queries and for writes that are repeatable (`putRecord` at a chosen key, `deleteRecord`).
public final class BlueskyClient: Sendable {
    /// How the client talks to Bluesky.
    public struct Configuration: Sendable {
        /// Where accounts log in (`BLUESKY_SERVICE_URL`, default the public entryway `https://bsky.social`).
        public var service: URL
        /// Where public reads go without a session (`https://public.api.bsky.app`).
        public var publicAppView: URL
        /// Each account's handle and app password.
        public var accounts: [Account: BlueskyAccess]
        /// Attempts for 5xx answers and dropped connections, the first included.
        public var maxAttempts: Int
        /// Backoff before the second attempt; doubled for each further one.
        public var initialBackoff: Duration
        /// A rate-limit window that resets later than this is not waited for (reads).
        public var longestRateLimitWait: Duration
        /// The same for a write, which runs to its end through a shutdown.
        public var longestWriteRateLimitWait: Duration
        /// Longest wait for one answer.
        public var requestTimeout: Duration

        /// The public entryway.
        public static let entryway = URL(string: "https://bsky.social")!
        /// The public AppView.
        public static let appView = URL(string: "https://public.api.bsky.app")!

        /// A configuration; the defaults suit the real network.
        public init(
            service: URL = Self.entryway, publicAppView: URL? = nil, accounts: [Account: BlueskyAccess], maxAttempts: Int = 4,
            initialBackoff: Duration = .seconds(1), longestRateLimitWait: Duration = .seconds(6 * 60),
            longestWriteRateLimitWait: Duration = .seconds(5), requestTimeout: Duration = .seconds(30)
        ) {
            self.service = service
            self.publicAppView = publicAppView ?? (service == Self.entryway ? Self.appView : service)
            self.accounts = accounts
            self.maxAttempts = maxAttempts
            self.initialBackoff = initialBackoff
            self.longestRateLimitWait = longestRateLimitWait
            self.longestWriteRateLimitWait = longestWriteRateLimitWait
            self.requestTimeout = requestTimeout
        }
    }

    /// The configuration.
    public let configuration: Configuration
    let clock: any BotClock
    let logger: Logger
    private let sessions: SessionKeeper
    private let windows = Mutex<[String: (remaining: Int, resetsAt: Date)]>([:])
    private let tally = CallTally()
    private let core: HTTPCore
    /// The latest `DPoP-Nonce` of each server an OAuth session's requests go to, by origin.
    private let dpopNonces = Mutex<[String: String]>([:])
    private let oauth: BlueskyOAuth

    /// A client keeping sessions in `sessionStore`; `clock` decides how waiting is done (tests inject a manual one).
    public init(
        configuration: Configuration, sessionStore: any BlueskySessionStore, httpClient: HTTPClient = HTTPClient.shared,
        clock: any BotClock = SystemBotClock(), logger: Logger
    ) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        sessions = SessionKeeper(store: sessionStore, clock: clock)
        oauth = BlueskyOAuth(httpClient: httpClient, timeout: configuration.requestTimeout)
        core = HTTPCore(
            service: "Bluesky", server: "Bluesky",
            policy: HTTPCore.Policy(
                maxAttempts: configuration.maxAttempts, initialBackoff: configuration.initialBackoff, maxBackoff: .seconds(60), maxRateLimitWaits: 3,
                longestReadWait: configuration.longestRateLimitWait, longestWriteWait: configuration.longestWriteRateLimitWait,
                shortestRateLimitWait: 5, waitWhenResetIsPast: 6, requestTimeout: configuration.requestTimeout, maxResponseBytes: 16 << 20,
                exhaustedWritesAreUncertain: true), httpClient: httpClient, clock: clock, logger: logger)
    }

    /// Each method's calls as each account (`public` for reads without one) so far, by method then account.
    public var callCounts: [CallTally.Count] { tally.counts }

    /// The session of `account`: the one in use, else the stored one, else a new login.
    public func session(of account: Account) async throws -> BlueskySession {
        try await sessions.session(of: account) { [self] in try await logIn(account) }
    }

    /// Sends `method` as `account` (with its session), or publicly through the AppView when `account` is nil, and
    /// returns its output. An access token the server no longer takes is renewed once, and the method sent again.
    public func send<Method: XRPCMethod>(_ method: Method, as account: Account?) async throws -> Method.Output {
        guard let account else { return try await call(method, at: configuration.publicAppView, credential: nil, account: nil) }
        let session = try await session(of: account)
        do {
            return try await call(method, with: session, as: account)
        } catch let error as BlueskyAPIError where error.isExpiredSession {
            let renewed = try await sessions.renew(account, replacing: session) { [self] stale in try await renew(account, stale) }
            return try await call(method, with: renewed, as: account)
        }
    }

    /// `method` with `session`'s access token: a bearer token, or for an OAuth session a DPoP-bound one with its proof
    /// (sent once more with the server's nonce when it asks for one).
    private func call<Method: XRPCMethod>(_ method: Method, with session: BlueskySession, as account: Account) async throws -> Method.Output {
        let base = session.pds ?? configuration.service
        guard let binding = session.oauth else { return try await call(method, at: base, credential: .bearer(session.accessJwt), account: account) }
        let credential = Credential.dpop(token: session.accessJwt, key: try DPoPKey(rawRepresentation: binding.dpopKey))
        do {
            return try await call(method, at: base, credential: credential, account: account)
        } catch let error as BlueskyAPIError where error.isNonceRequired {
            return try await call(method, at: base, credential: credential, account: account)
        }
    }

    /// How a request is authorized.
    enum Credential {
        /// `Authorization: Bearer …` (an app password's session).
        case bearer(String)
        /// `Authorization: DPoP …` with a proof signed by `key` (an OAuth session).
        case dpop(token: String, key: DPoPKey)
    }

    /// The DID of `handle`, nil when no account has it.
    public func did(ofHandle handle: String) async throws -> String? {
        do {
            return try await send(ResolveHandle(handle: handle), as: nil).did
        } catch let error as BlueskyAPIError where error.isNotFound || error.isUnresolvableHandle {
            return nil
        }
    }

    // MARK: - Sessions

    /// Logs `account` in with its app password (`createSession`).
    private func logIn(_ account: Account) async throws -> BlueskySession {
        guard let access = configuration.accounts[account] else { throw BlueskyAPIError.notConfigured(account: account, what: "handle") }
        if access.signsInWithOAuth, access.appPassword == nil {
            throw BlueskyAPIError.grantRefused(
                account: account, detail: "no OAuth sign-in of the \(account)'s is kept in the store, or it no longer opens")
        }
        guard let password = access.appPassword else { throw BlueskyAPIError.notConfigured(account: account, what: "app password") }
        let output: SessionOutput
        do {
            output = try await call(
                CreateSession(identifier: access.handle, password: password), at: configuration.service, credential: nil, account: account)
        } catch BlueskyAPIError.rejected(_, let status, let error, let message) where status == 401 || error == "AuthenticationRequired" {
            throw BlueskyAPIError.loginRefused(account: account, detail: message)
        }
        if output.active == false {
            throw BlueskyAPIError.loginRefused(account: account, detail: "the account is \(output.status ?? "not active")")
        }
        Counter(label: "mirror_bot_bluesky_logins_total", dimensions: [("account", account.rawValue)]).increment()
        logger.notice(
            "Bluesky: the \(account) logged in as @\(output.handle) (\(output.did)); the session is kept and renewed, not logged in again at each start"
        )
        return output.session
    }

    /// Renews `stale` with its refresh token; logs in again when the server no longer takes that either.
    private func renew(_ account: Account, _ stale: BlueskySession) async throws -> BlueskySession {
        if let binding = stale.oauth { return try await renew(account, stale, at: binding) }
        do {
            let output = try await call(
                RefreshSession(), at: stale.pds ?? configuration.service, credential: .bearer(stale.refreshJwt), account: account)
            var session = output.session
            if session.pds == nil { session.pds = stale.pds }
            logger.info("Bluesky: the \(account)'s session renewed")
            return session
        } catch let error as BlueskyAPIError where error.isExpiredSession || error.isUnauthorized {
            logger.notice("Bluesky: the \(account)'s stored session can no longer be renewed (\(error)); logging in again")
            return try await logIn(account)
        }
    }

    /// Renews an OAuth session at its authorization server with its refresh token (spent: the new one is kept), the
    /// proof signed by its DPoP key. A refused grant is `grantRefused`; a server that does not answer, `transport`.
    private func renew(_ account: Account, _ stale: BlueskySession, at binding: BlueskySession.OAuthBinding) async throws -> BlueskySession {
        let tokens: BlueskyOAuth.Tokens
        do {
            tokens = try await oauth.refresh(
                stale.refreshJwt, clientID: binding.clientID, tokenEndpoint: binding.tokenEndpoint,
                key: try DPoPKey(rawRepresentation: binding.dpopKey), now: clock.now(),
                client: try binding.clientKey.map { try ConfidentialClient(clientID: binding.clientID, rawKey: $0) }, issuer: binding.issuer)
        } catch let error as BlueskyOAuthError where error.isGrantRefused {
            // Past the server's limits on a loopback client's sign-in, or said to have run out: a lapse, not the
            // person taking it back.
            // A confidential client's own refusal (its assertion, its key) is no withdrawal either.
            if error.isLapse || binding.isPastLimits(at: clock.now()) || (binding.clientKey != nil && error.isClientRefused) {
                logger.notice("Bluesky: the \(account)'s OAuth sign-in lapsed (\(error)); it was not taken back, and a new sign-in renews it")
                throw BlueskyAPIError.grantLapsed(account: account, detail: error.description)
            }
            logger.notice("Bluesky: the \(account)'s OAuth sign-in can no longer be renewed (\(error))")
            throw BlueskyAPIError.grantRefused(account: account, detail: error.description)
        } catch let error as BlueskyOAuthError {
            if case .unreachable = error {
                // The refresh token may have been spent with the answer lost: the next renewal, refused as replayed, is
                // then a lapse.
                logger.warning(
                    "Bluesky: renewing the \(account)'s OAuth sign-in had no answer (\(error)); whether its refresh token was spent is unknown")
            }
            throw BlueskyAPIError.transport(method: "OAuth token refresh", reason: error.description, attempts: 1)
        }
        guard tokens.sub == stale.did else {
            throw BlueskyAPIError.grantRefused(account: account, detail: "the renewed grant is \(tokens.sub)'s, not \(stale.did)'s")
        }
        var session = stale
        session.accessJwt = tokens.accessToken
        session.refreshJwt = tokens.refreshToken ?? stale.refreshJwt
        session.oauth?.renewedAt = clock.now()
        logger.info("Bluesky: the \(account)'s OAuth session renewed")
        return session
    }

    // MARK: - Requests

    /// Sends `method` to `base` with `bearer`, through the core's retries and rate-limit waits.
    private func call<Method: XRPCMethod>(_ method: Method, at base: URL, credential: Credential?, account: Account?) async throws -> Method.Output {
        let name = Method.nsid
        let url = try Self.url(for: method, at: base)
        let body: Data? = Method.kind == .procedure && !(method.input is NoInput) ? try JSONEncoder.xrpc.encode(method.input) : nil
        let windowKey = "\(account?.rawValue ?? "public")"
        let origin = "\(url.scheme ?? "")://\(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")"
        let isWrite = Method.kind == .procedure
        let call = HTTPCall<Method.Output>(
            name: name, repeatability: !isWrite ? .read : method.isRepeatable ? .idempotentWrite : .create, isWrite: isWrite,
            makeRequest: {
                var request = HTTPClientRequest(url: url.absoluteString)
                request.method = isWrite ? .POST : .GET
                switch credential {
                case .bearer(let token)?: request.headers.add(name: "Authorization", value: "Bearer \(token)")
                case .dpop(let token, let key)?:
                    request.headers.add(name: "Authorization", value: "DPoP \(token)")
                    let nonce = self.dpopNonces.withLock { $0[origin] }
                    request.headers.add(
                        name: "DPoP",
                        value: try key.proof(method: isWrite ? "POST" : "GET", url: url, nonce: nonce, accessToken: token, now: self.clock.now()))
                case nil: break
                }
                request.headers.add(name: "User-Agent", value: "mirror_bot")
                if let body {
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.body = .bytes(ByteBuffer(bytes: body))
                }
                return request
            },
            beforeEachAttempt: { [self] in try await waitForWindow(windowKey, method: name, isWrite: isWrite) },
            onSend: { [self] in
                tally.sent(name, by: account?.rawValue ?? "public")
                Counter(
                    label: "mirror_bot_api_calls_total",
                    dimensions: [("endpoint", name), ("account", account?.rawValue ?? "public"), ("outcome", "sent")]
                ).increment()
            },
            onFailure: { [tally] in tally.failed(name, by: account?.rawValue ?? "public") },
            observe: { [self] headers in
                if let nonce = headers.first(name: "DPoP-Nonce") { dpopNonces.withLock { $0[origin] = nonce } }
                let window = Self.window(in: headers)
                if let window { windows.withLock { $0[windowKey] = window } }
                return window?.resetsAt
            },
            decode: { [self] _, _, data in
                do {
                    let decoded = try JSONDecoder().decode(Method.Output.self, from: data.isEmpty ? Data("{}".utf8) : data)
                    tally.succeeded(name, by: account?.rawValue ?? "public", at: clock.now())
                    return .value(decoded)
                } catch {
                    return .unreadable("\(data.count) bytes: \(error)")
                }
            },
            refusal: { status, _, data in
                let body = try? JSONDecoder().decode(XRPCErrorBody.self, from: data)
                let message = body?.message ?? body?.error ?? String(decoding: data.prefix(200), as: UTF8.self)
                return BlueskyAPIError.rejected(method: name, status: status, error: body?.error, message: message)
            })
        do {
            return try await core.send(call)
        } catch let failure as HTTPCallFailure {
            throw BlueskyAPIError(failure, endpoint: name)
        }
    }

    /// `<base>/xrpc/<nsid>?<parameters>`.
    static func url<Method: XRPCMethod>(for method: Method, at base: URL) throws -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw BlueskyAPIError.malformedResponse(method: Method.nsid, reason: "\(base) is not a URL")
        }
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + "/xrpc/" + Method.nsid
        if !method.parameters.isEmpty { components.queryItems = method.parameters.map { URLQueryItem(name: $0.0, value: $0.1) } }
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else {
            throw BlueskyAPIError.malformedResponse(method: Method.nsid, reason: "could not form a URL on \(base)")
        }
        return url
    }

    /// `ratelimit-remaining` and `ratelimit-reset` (seconds since 1970), when both are there.
    private static func window(in headers: HTTPHeaders) -> (remaining: Int, resetsAt: Date)? {
        guard let remaining = headers.first(name: "ratelimit-remaining").flatMap({ Int($0) }),
            let reset = headers.first(name: "ratelimit-reset").flatMap({ Double($0) })
        else { return nil }
        return (remaining, Date(timeIntervalSince1970: reset))
    }

    /// Before sending: when the last answer said nothing is left, wait for the window's reset (or refuse, past the
    /// longest wait).
    private func waitForWindow(_ key: String, method: String, isWrite: Bool) async throws {
        guard let window = windows.withLock({ $0[key] }), window.remaining <= 0 else { return }
        let now = clock.now()
        guard window.resetsAt > now else { return }
        let longest = isWrite ? configuration.longestWriteRateLimitWait : configuration.longestRateLimitWait
        guard window.resetsAt.timeIntervalSince(now) <= Double(longest.components.seconds) else {
            throw BlueskyAPIError.rateLimited(method: method, resetsAt: window.resetsAt)
        }
        logger.info("Bluesky: nothing left in this rate-limit window; waiting for its reset")
        try await clock.sleep(until: window.resetsAt.addingTimeInterval(1))
        windows.withLock { $0[key] = nil }
    }
}

extension BlueskyAPIError {
    /// A 401: the token (or password) is not taken at all.
    var isUnauthorized: Bool {
        guard case .rejected(_, let status, let error, _) = self else { return false }
        return status == 401 || error == "AuthenticationRequired"
    }

    /// `resolveHandle`'s answer for a handle no account has.
    var isUnresolvableHandle: Bool {
        guard case .rejected(_, 400, let error, let message) = self else { return false }
        return error == "InvalidRequest" && message.lowercased().contains("unable to resolve handle")
    }
}

extension JSONEncoder {
    /// Keys sorted, slashes unescaped: the same bytes for the same input.
    static var xrpc: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// Each account's session in use: loaded from the store once, made by a login when there is none, renewed by one
/// task at a time (a refresh token works once: two renewals at once would spend it twice), and through the store, which
/// lets one renewal at a time through among every client on it. A renewal refused for good is not asked again with the
/// same refresh token: the next ask reads the store, where a new sign-in puts a new one.
actor SessionKeeper {
    private let store: any BlueskySessionStore
    private let clock: any BotClock
    private var current: [Account: BlueskySession] = [:]
    private var pending: [Account: Task<BlueskySession, any Error>] = [:]
    private var refused: [Account: (refreshJwt: String, error: BlueskyAPIError)] = [:]

    init(store: any BlueskySessionStore, clock: any BotClock) {
        self.store = store
        self.clock = clock
    }

    /// The session of `account`: in use, stored, or made by `logIn` (and stored).
    func session(of account: Account, logIn: @escaping @Sendable () async throws -> BlueskySession) async throws -> BlueskySession {
        if let session = current[account] {
            guard let refusal = refused[account], refusal.refreshJwt == session.refreshJwt else { return session }
            // Refused for good: nothing is sent with it; a session stored since (a new sign-in) replaces it.
            guard let stored = try await store.session(of: account), stored.refreshJwt != session.refreshJwt else { throw refusal.error }
            current[account] = stored
            refused[account] = nil
            return stored
        }
        if let task = pending[account] { return try await task.value }
        let store = store
        let task = Task<BlueskySession, any Error> {
            if let stored = try await store.session(of: account) { return stored }
            let made = try await logIn()
            try await store.save(made, of: account)
            return made
        }
        return try await settle(task, for: account)
    }

    /// A renewal of `stale` by `renew` (stored); when another task or client renewed it already, that session.
    func renew(
        _ account: Account, replacing stale: BlueskySession,
        by renew: @escaping @Sendable (BlueskySession) async throws -> BlueskySession
    ) async throws -> BlueskySession {
        if let task = pending[account] { return try await task.value }
        if let session = current[account], session.accessJwt != stale.accessJwt { return session }
        let (store, clock) = (store, clock)
        let refusedBefore = refused[account]
        let task = Task<BlueskySession, any Error> {
            if let refusedBefore, refusedBefore.refreshJwt == stale.refreshJwt {
                // Refused for good before: only a session stored since (a new sign-in) is worth trying.
                guard let stored = try await store.session(of: account), stored.refreshJwt != stale.refreshJwt else { throw refusedBefore.error }
                return stored
            }
            return try await store.renew(account, replacing: stale, clock: clock, by: renew)
        }
        do {
            return try await settle(task, for: account)
        } catch let error as BlueskyAPIError {
            switch error {
            case .grantRefused, .grantLapsed, .loginRefused: refused[account] = (stale.refreshJwt, error)
            default: break
            }
            throw error
        }
    }

    private func settle(_ task: Task<BlueskySession, any Error>, for account: Account) async throws -> BlueskySession {
        pending[account] = task
        defer { pending[account] = nil }
        let session = try await task.value
        current[account] = session
        refused[account] = nil
        return session
    }
}
