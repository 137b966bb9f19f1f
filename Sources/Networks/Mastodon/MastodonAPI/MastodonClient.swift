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
import NIOPosix
import Synchronization

/// Where an account lives and the bearer token that acts as it.
public struct MastodonAccess: Sendable, Equatable {
    /// The instance, such as `https://mastodon.social`.
    public var instance: URL
    /// The access token (Preferences → Development → the application's token).
    public var token: String
    /// Access from its parts.
    public init(instance: URL, token: String) {
        self.instance = instance
        self.token = token
    }
}

/// Sends Mastodon API requests with each account's bearer token to that account's instance, and copes with what
/// instances do: the rate limit (300 calls per 5 minutes) is read from the `X-RateLimit-*` headers and waited out
/// on the injected clock; 5xx and dropped connections are retried with bounded backoff for reads and for creates
/// that carry an `Idempotency-Key`; every other failure is a typed `MastodonAPIError`. A `Link` URL is followed
/// only on the account's own instance, so a token never leaves it.
public final class MastodonClient: Sendable {
    /// How the client talks to the instances.
    public struct Configuration: Sendable {
        /// Each account's instance and token.
        public var accounts: [Account: MastodonAccess]
        /// Attempts for 5xx answers and dropped connections, the first included.
        public var maxAttempts: Int
        /// Backoff before the second attempt; doubled for each further one, at most a minute.
        public var initialBackoff: Duration
        /// A rate-limit window that resets later than this is not waited for.
        public var longestRateLimitWait: Duration
        /// The same for a write (a status, a favourite, a deletion): a write runs to its end through a shutdown, which
        /// must not wait for a window's reset. Past it the write fails as rate-limited, not carried out.
        public var longestWriteRateLimitWait: Duration = .seconds(5)
        /// Longest wait for one answer.
        public var requestTimeout: Duration

        /// A configuration; the defaults suit real instances.
        public init(
            accounts: [Account: MastodonAccess], maxAttempts: Int = 4, initialBackoff: Duration = .seconds(1),
            longestRateLimitWait: Duration = .seconds(6 * 60), requestTimeout: Duration = .seconds(30)
        ) {
            self.accounts = accounts
            self.maxAttempts = maxAttempts
            self.initialBackoff = initialBackoff
            self.longestRateLimitWait = longestRateLimitWait
            self.requestTimeout = requestTimeout
        }
    }

    /// An answer: the decoded body and its `Link` header.
    public struct Answer<Response: Sendable>: Sendable {
        /// The body.
        public var response: Response
        /// The links to the next and previous pages.
        public var links: LinkHeader
    }

    /// The configuration.
    public let configuration: Configuration
    let clock: any BotClock
    let logger: Logger
    /// The last rate-limit headers, per account (Mastodon's limit is per account and instance, not per endpoint).
    private let windows = Mutex<[Account: (remaining: Int, resetsAt: Date)]>([:])
    private let tally = CallTally()
    /// The loop every request runs through: retries, rate-limit waits, cancellation.
    private let core: HTTPCore

    /// A client; `clock` decides how waiting is done (tests inject a manual one).
    public init(
        configuration: Configuration, httpClient: HTTPClient = HTTPClient.shared, clock: any BotClock = SystemBotClock(),
        logger: Logger
    ) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        // Mastodon's window is the account's; a write answered with no certainty may have been made (the caller reads
        // it back), and a reset a moment away is given five seconds.
        core = HTTPCore(
            service: "Mastodon", server: "the instance",
            policy: HTTPCore.Policy(
                maxAttempts: configuration.maxAttempts, initialBackoff: configuration.initialBackoff, maxBackoff: .seconds(60), maxRateLimitWaits: 3,
                longestReadWait: configuration.longestRateLimitWait, longestWriteWait: configuration.longestWriteRateLimitWait,
                shortestRateLimitWait: 5, waitWhenResetIsPast: 6, requestTimeout: configuration.requestTimeout, maxResponseBytes: 16 << 20,
                exhaustedWritesAreUncertain: true), httpClient: httpClient, clock: clock, logger: logger)
    }

    /// Each endpoint's calls as each account so far, by endpoint then account.
    public var callCounts: [CallTally.Count] { tally.counts }

    /// Sends `endpoint` as `account` and returns its decoded answer.
    public func send<Endpoint: MastodonEndpoint>(_ endpoint: Endpoint, as account: Account) async throws -> Endpoint.Response {
        try await answer(endpoint, as: account).response
    }

    /// Sends `endpoint` as `account`, or the page at `url` (a `Link` of an earlier answer), and returns the decoded
    /// body with its links.
    public func answer<Endpoint: MastodonEndpoint>(_ endpoint: Endpoint, as account: Account, at url: URL? = nil) async throws
        -> Answer<Endpoint.Response>
    {
        guard let access = configuration.accounts[account] else { throw MastodonAPIError.notConfigured(account: account) }
        return try await answer(endpoint, on: access.instance, token: access.token, as: account, at: url)
    }

    /// Sends `endpoint` to `instance` with `token`, or with no `Authorization` when nil (the OAuth endpoints an
    /// application calls before it has a token: `POST /api/v1/apps`, `/oauth/token`, `/oauth/revoke`), counted and
    /// rate-limited as `account`'s calls; returns its decoded answer.
    public func send<Endpoint: MastodonEndpoint>(_ endpoint: Endpoint, to instance: URL, token: String?, as account: Account) async throws
        -> Endpoint.Response
    {
        try await answer(endpoint, on: instance, token: token, as: account, at: nil).response
    }

    private func answer<Endpoint: MastodonEndpoint>(_ endpoint: Endpoint, on instance: URL, token: String?, as account: Account, at url: URL?)
        async throws
        -> Answer<Endpoint.Response>
    {
        let name = Endpoint.name
        let target = try url.map { try Self.onInstance($0, of: instance, endpoint: name) } ?? Self.url(for: endpoint, on: instance)
        let body = try endpoint.body.map { try JSONSerialization.data(withJSONObject: $0.mapValues(\.foundationValue), options: [.sortedKeys]) }
        let (method, key) = (endpoint.method, endpoint.idempotencyKey)
        let repeatability: Repeatability = method == .GET ? .read : endpoint.isIdempotent ? .idempotentWrite : .create
        let call = HTTPCall<Answer<Endpoint.Response>>(
            name: name, repeatability: repeatability, isWrite: method != .GET,
            makeRequest: {
                var request = HTTPClientRequest(url: target.absoluteString)
                request.method = HTTPMethod(rawValue: method.rawValue)
                if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
                request.headers.add(name: "User-Agent", value: "mirror_bot")
                if let key { request.headers.add(name: "Idempotency-Key", value: key) }
                if let body {
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.body = .bytes(ByteBuffer(bytes: body))
                }
                return request
            },
            beforeEachAttempt: { [self] in try await waitForWindow(of: account, endpoint: name, longest: longestWait(for: method)) },
            onSend: { [self] in
                tally.sent(name, by: account.rawValue)
                Counter(label: "mirror_bot_api_calls_total", dimensions: [("endpoint", name), ("account", account.rawValue), ("outcome", "sent")])
                    .increment()
            },
            onFailure: { [tally] in tally.failed(name, by: account.rawValue) },
            observe: { [self] headers in
                let window = Self.window(in: headers)
                if let window { windows.withLock { $0[account] = window } }
                return window?.resetsAt
            },
            decode: { [self] _, headers, data in
                do {
                    let decoded = try MastodonJSON.decoder().decode(Endpoint.Response.self, from: data)
                    tally.succeeded(name, by: account.rawValue, at: clock.now())
                    return .value(Answer(response: decoded, links: LinkHeader(headers.first(name: "link"))))
                } catch {
                    return .unreadable("\(data.count) bytes: \(error)")
                }
            },
            refusal: { status, _, data in Self.refusal(status: status, body: data, account: account, endpoint: name) })
        do {
            return try await core.send(call)
        } catch let failure as HTTPCallFailure {
            throw MastodonAPIError(failure, endpoint: name)
        }
    }

    /// The pages of `endpoint`, newest first, following each answer's `next` link until the last page, an empty
    /// one, or `maxItems` items.
    public func pages<Endpoint: MastodonPagedEndpoint>(_ endpoint: Endpoint, as account: Account, maxItems: Int? = nil)
        -> MastodonPages<Endpoint>
    {
        MastodonPages(client: self, endpoint: endpoint, account: account, maxItems: maxItems)
    }

    // MARK: - Helpers

    /// The error for a 4xx answer, with the instance's words: an OAuth error (one with `error_description`) as such.
    static func refusal(status: Int, body data: Data, account: Account, endpoint name: String) -> MastodonAPIError {
        let body = try? JSONDecoder().decode(MastodonErrorBody.self, from: data)
        if let body, let description = body.errorDescription {
            return .oauthRefused(endpoint: name, status: status, error: body.error, description: description)
        }
        let detail = body.map { $0.error } ?? String(decoding: data.prefix(200), as: UTF8.self)
        switch status {
        case 401: return .unauthorized(account: account, endpoint: name, detail: detail)
        case 403: return .forbidden(account: account, endpoint: name, detail: detail)
        case 404, 410: return .notFound(endpoint: name)
        default: return .rejected(endpoint: name, status: status, detail: detail)
        }
    }

    private static func url<Endpoint: MastodonEndpoint>(for endpoint: Endpoint, on instance: URL) throws -> URL {
        guard var components = URLComponents(url: instance, resolvingAgainstBaseURL: false) else {
            throw MastodonAPIError.malformedResponse(endpoint: Endpoint.name, reason: "\(instance) is not a URL")
        }
        components.path = components.path.trimmingSuffix("/") + endpoint.path
        if !endpoint.query.isEmpty { components.queryItems = endpoint.query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        // `+` is a space to Rails: a query value's plus signs are sent encoded.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else {
            throw MastodonAPIError.malformedResponse(endpoint: Endpoint.name, reason: "could not form a URL on \(instance)")
        }
        return url
    }

    /// `url` when it is on the account's instance (scheme, host and port); else an error, and the token is not sent.
    private static func onInstance(_ url: URL, of instance: URL, endpoint: String) throws -> URL {
        guard url.scheme == instance.scheme, url.host == instance.host, url.port == instance.port else {
            throw MastodonAPIError.malformedResponse(endpoint: endpoint, reason: "a Link to \(url.host ?? "?"), not the account's instance")
        }
        return url
    }

    /// `X-RateLimit-Remaining` and `X-RateLimit-Reset` (an ISO 8601 time), when both are there.
    private static func window(in headers: HTTPHeaders) -> (remaining: Int, resetsAt: Date)? {
        guard let remaining = headers.first(name: "x-ratelimit-remaining").flatMap({ Int($0) }),
            let reset = headers.first(name: "x-ratelimit-reset"),
            let resetsAt = ISO8601Time.date(from: reset)
        else { return nil }
        return (remaining, resetsAt)
    }

    /// Before sending: when the last answer said no calls are left, wait for the window's reset.
    private func waitForWindow(of account: Account, endpoint: String, longest: TimeInterval) async throws {
        guard let window = windows.withLock({ $0[account] }), window.remaining <= 0 else { return }
        let now = clock.now()
        guard window.resetsAt > now else { return }
        guard window.resetsAt.timeIntervalSince(now) <= longest else {
            throw MastodonAPIError.rateLimited(endpoint: endpoint, resetsAt: window.resetsAt)
        }
        logger.info("Mastodon: no calls left for the \(account) in this window; waiting for its reset")
        try await clock.sleep(until: window.resetsAt.addingTimeInterval(1))
        windows.withLock { $0[account] = nil }
    }

    /// The longest rate-limit wait for a request with `method`, in seconds.
    private func longestWait(for method: MastodonMethod) -> TimeInterval {
        let longest = method == .GET ? configuration.longestRateLimitWait : configuration.longestWriteRateLimitWait
        return Double(longest.components.seconds) + Double(longest.components.attoseconds) / 1e18
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
