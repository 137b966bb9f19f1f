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

/// Where an account lives and the token that acts as it.
public struct MisskeyAccess: Sendable, Equatable {
    /// The instance, such as `https://misskey.io`.
    public var instance: URL
    /// The access token (MiAuth's, or Settings → API).
    public var token: String
    /// Access from its parts.
    public init(instance: URL, token: String) {
        self.instance = instance
        self.token = token
    }
}

/// Sends Misskey API requests (`POST /api/<endpoint>`, JSON, the account's token as `i`) to each account's instance,
/// and copes with what instances do: a 429 `RATE_LIMIT_EXCEEDED` is waited out on the injected clock for as long as
/// its `Retry-After` says (when that is short enough); 5xx and dropped connections are retried with bounded backoff
/// for reads and idempotent writes; a `notes/create` whose answer was lost is never sent again (Misskey takes no
/// idempotency key): it is `outcomeUnknown`, for the caller to read back. Every other failure is a typed
/// `MisskeyAPIError` with the instance's error code.
public final class MisskeyClient: Sendable {
    /// How the client talks to the instances.
    public struct Configuration: Sendable {
        /// Each account's instance and token.
        public var accounts: [Account: MisskeyAccess]
        /// Attempts for 5xx answers and dropped connections, the first included.
        public var maxAttempts: Int
        /// Backoff before the second attempt; doubled for each further one, at most a minute.
        public var initialBackoff: Duration
        /// A rate-limit window that resets later than this is not waited for.
        public var longestRateLimitWait: Duration
        /// The same for a write: a write runs to its end through a shutdown, which must not wait for a window.
        public var longestWriteRateLimitWait: Duration
        /// Longest wait for one answer.
        public var requestTimeout: Duration

        /// A configuration; the defaults suit real instances.
        public init(
            accounts: [Account: MisskeyAccess], maxAttempts: Int = 4, initialBackoff: Duration = .seconds(1),
            longestRateLimitWait: Duration = .seconds(6 * 60), longestWriteRateLimitWait: Duration = .seconds(5),
            requestTimeout: Duration = .seconds(30)
        ) {
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
    let httpClient: HTTPClient
    private let tally = CallTally()
    private let core: HTTPCore

    /// A client; `clock` decides how waiting is done (tests inject a manual one).
    public init(configuration: Configuration, httpClient: HTTPClient = HTTPClient.shared, clock: any BotClock = SystemBotClock(), logger: Logger) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.httpClient = httpClient
        core = HTTPCore(
            service: "Misskey", server: "the instance",
            policy: HTTPCore.Policy(
                maxAttempts: configuration.maxAttempts, initialBackoff: configuration.initialBackoff, maxBackoff: .seconds(60), maxRateLimitWaits: 3,
                longestReadWait: configuration.longestRateLimitWait, longestWriteWait: configuration.longestWriteRateLimitWait,
                shortestRateLimitWait: 1, waitWhenResetIsPast: 5, requestTimeout: configuration.requestTimeout, maxResponseBytes: 16 << 20,
                exhaustedWritesAreUncertain: true), httpClient: httpClient, clock: clock, logger: logger)
    }

    /// Each endpoint's calls as each account so far, by endpoint then account.
    public var callCounts: [CallTally.Count] { tally.counts }

    /// Sends `endpoint` as `account` and returns its decoded answer.
    public func send<Endpoint: MisskeyEndpoint>(_ endpoint: Endpoint, as account: Account) async throws -> Endpoint.Response {
        guard let access = configuration.accounts[account] else { throw MisskeyAPIError.notConfigured(account: account) }
        return try await send(endpoint, to: access.instance, token: Endpoint.sendsToken ? access.token : nil, caller: account)
    }

    /// Sends `endpoint` to `instance` with `token` (none for MiAuth's check), counted as `caller`'s.
    public func send<Endpoint: MisskeyEndpoint>(_ endpoint: Endpoint, to instance: URL, token: String?, caller: Account?) async throws
        -> Endpoint.Response
    {
        let name = Endpoint.name
        var parameters = endpoint.parameters
        if let token { parameters["i"] = .string(token) }
        let body = try MisskeyJSON.encoder().encode(parameters)
        var base = instance.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let target = base + "/api/" + endpoint.path
        let who = caller?.rawValue ?? "public"
        let call = HTTPCall<Endpoint.Response>(
            name: name, repeatability: Endpoint.repeatability, isWrite: Endpoint.repeatability != .read,
            makeRequest: {
                var request = HTTPClientRequest(url: target)
                request.method = .POST
                request.headers.add(name: "User-Agent", value: "mirror_bot")
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: body))
                return request
            },
            onSend: { [tally] in
                tally.sent(name, by: who)
                Counter(label: "mirror_bot_api_calls_total", dimensions: [("endpoint", name), ("account", who), ("outcome", "sent")]).increment()
            },
            onFailure: { [tally] in tally.failed(name, by: who) },
            observe: { [clock] headers in
                // A 429 says when to come back in `Retry-After` (seconds); other answers carry no window.
                headers.first(name: "retry-after").flatMap { Double($0) }.map { clock.now().addingTimeInterval($0) }
            },
            decode: { [tally, clock] _, _, data in
                if data.isEmpty || data.allSatisfy({ $0 == 0x20 || $0 == 0x0A }), let nothing = MisskeyNoContent() as? Endpoint.Response {
                    tally.succeeded(name, by: who, at: clock.now())
                    return .value(nothing)
                }
                do {
                    let decoded = try MisskeyJSON.decoder().decode(Endpoint.Response.self, from: data)
                    tally.succeeded(name, by: who, at: clock.now())
                    return .value(decoded)
                } catch {
                    return .unreadable("\(data.count) bytes: \(error)")
                }
            },
            refusal: { status, _, data in Self.refusal(status: status, body: data, account: caller, endpoint: name) })
        do {
            return try await core.send(call)
        } catch let failure as HTTPCallFailure {
            throw MisskeyAPIError(failure, endpoint: name)
        }
    }

    /// The pages of `endpoint`, newest first, each below the last's oldest item, until a short or empty page or
    /// `maxItems` items.
    public func pages<Endpoint: MisskeyPagedEndpoint>(_ endpoint: Endpoint, as account: Account, maxItems: Int? = nil) -> MisskeyPages<Endpoint> {
        MisskeyPages(client: self, endpoint: endpoint, account: account, maxItems: maxItems)
    }

    /// The error for a 4xx answer, with the instance's code and words.
    static func refusal(status: Int, body data: Data, account: Account?, endpoint name: String) -> MisskeyAPIError {
        let error = (try? JSONDecoder().decode(MisskeyErrorBody.self, from: data))?.error
        let code = error?.code ?? "HTTP \(status)"
        let detail = error?.message ?? String(decoding: data.prefix(200), as: UTF8.self)
        switch (status, code) {
        case (401, _), (403, "AUTHENTICATION_FAILED"), (_, "CREDENTIAL_REQUIRED"):
            return .unauthorized(account: account ?? .bot, endpoint: name, detail: "\(code): \(detail)")
        case (403, _): return .forbidden(account: account ?? .bot, endpoint: name, code: code, detail: detail)
        case (_, "NO_SUCH_NOTE"), (_, "NO_SUCH_USER"), (410, _): return .notFound(endpoint: name, code: code)
        default: return .rejected(endpoint: name, status: status, code: code, detail: detail)
        }
    }
}

/// The pages of a paged endpoint, newest first: Misskey answers a page between two ids newest first, so each request
/// carries an upper bound (`untilId`: the oldest item of the page before, or, when only what is newer than `sinceId`
/// is wanted, an id above every id of the instance), and the items are put newest first whatever order they came in.
public struct MisskeyPages<Endpoint: MisskeyPagedEndpoint>: AsyncSequence, Sendable {
    /// A page's items.
    public typealias Element = [Endpoint.Item]

    let client: MisskeyClient
    /// The first request.
    public let endpoint: Endpoint
    let account: Account
    let maxItems: Int?

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let pages: MisskeyPages
        var untilID: String?
        var done = false
        var read = 0

        /// The next page, or nil after the last.
        public mutating func next() async throws -> [Endpoint.Item]? {
            if done { return nil }
            if let maxItems = pages.maxItems, read >= maxItems { return nil }
            var endpoint = pages.endpoint
            if let maxItems = pages.maxItems { endpoint.limit = Swift.min(endpoint.limit, maxItems - read) }
            endpoint.untilID = untilID ?? endpoint.untilID ?? endpoint.sinceID.map(MisskeyIDs.ceiling(above:))
            var items = try await pages.client.send(endpoint, as: pages.account)
            let limit = endpoint.limit
            items.sort { MisskeyIDs.isNewer(Endpoint.id(of: $0), than: Endpoint.id(of: $1)) }
            if let sinceID = endpoint.sinceID { items.removeAll { !MisskeyIDs.isNewer(Endpoint.id(of: $0), than: sinceID) } }
            if let maxItems = pages.maxItems, items.count > maxItems - read { items = Array(items.prefix(maxItems - read)) }
            read += items.count
            untilID = items.last.map(Endpoint.id(of:))
            done = items.count < limit || untilID == nil
            return items.isEmpty ? nil : items
        }
    }

    /// An iterator from the first page.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pages: self) }
}
