public import AsyncHTTPClient
public import BotClock
public import BotCore
public import Foundation
import HTTPCore
public import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import SocialNetwork
import Synchronization

/// Sends X API v2 requests signed with OAuth 1.0a as the human or the bot, through `HTTPCore` (rate limits waited
/// out on the injected clock, 5xx and dropped connections retried as far as each endpoint may be repeated), and
/// reads X's answers: its refusals, its usage cap, its partial errors, its bill. Every failure is a typed `XAPIError`;
/// every call is counted.
public final class XClient: Sendable {
    /// How the client talks to X.
    public struct Configuration: Sendable {
        /// `X_API_BASE_URL`.
        public var baseURL: URL
        /// The credentials of each account the client may act as.
        public var credentials: [Account: AccountCredentials]
        /// When and how often to try again.
        public var retry: RetryPolicy
        /// Longest wait for one answer.
        public var requestTimeout: Duration
        /// Largest body accepted.
        public var maxResponseBytes: Int

        /// A configuration; the defaults suit the real API.
        public init(
            baseURL: URL, credentials: [Account: AccountCredentials], retry: RetryPolicy = RetryPolicy(),
            requestTimeout: Duration = .seconds(30), maxResponseBytes: Int = 16 << 20
        ) {
            self.baseURL = baseURL
            self.credentials = credentials
            self.retry = retry
            self.requestTimeout = requestTimeout
            self.maxResponseBytes = maxResponseBytes
        }
    }

    /// Bounds on retrying.
    public struct RetryPolicy: Sendable {
        /// Attempts for 5xx answers and dropped connections, the first included.
        public var maxAttempts: Int
        /// Backoff before the second attempt; doubled for each further one.
        public var initialBackoff: Duration
        /// Longest backoff.
        public var maxBackoff: Duration
        /// How many times a 429 is waited out before giving up.
        public var maxRateLimitWaits: Int
        /// A 429 whose window resets later than this is not waited for.
        public var longestRateLimitWait: Duration
        /// The same for a write (a post, a like, a deletion): a write runs to its end through a shutdown, which must
        /// not wait for a window's reset. Past it the write fails as rate-limited, not carried out.
        public var longestWriteRateLimitWait: Duration

        /// The defaults: 4 attempts, 1 s doubling to at most 60 s, up to 3 rate-limit windows of at most 16 minutes
        /// (5 seconds for a write).
        public init(
            maxAttempts: Int = 4, initialBackoff: Duration = .seconds(1), maxBackoff: Duration = .seconds(60),
            maxRateLimitWaits: Int = 3, longestRateLimitWait: Duration = .seconds(16 * 60),
            longestWriteRateLimitWait: Duration = .seconds(5)
        ) {
            self.maxAttempts = maxAttempts
            self.initialBackoff = initialBackoff
            self.maxBackoff = maxBackoff
            self.maxRateLimitWaits = maxRateLimitWaits
            self.longestRateLimitWait = longestRateLimitWait
            self.longestWriteRateLimitWait = longestWriteRateLimitWait
        }

        /// The longest rate-limit wait for a request with `method`.
        func longestWait(for method: HTTPMethodName) -> TimeInterval {
            let longest = method == .GET ? longestRateLimitWait : longestWriteRateLimitWait
            return Double(longest.components.seconds) + Double(longest.components.attoseconds) / 1e18
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// The calls made so far, and X's bill for them.
    public let usage: UsageMeter
    /// What X refused for good, not asked again until its recheck.
    public let refusals: XRefusals
    /// The day's budget every call is checked against; nil spends without a limit (one-shot commands that asked).
    public let budget: DailyBudget?
    private let refusalStore: (any XRefusalStore)?
    private let httpClient: HTTPClient
    private let clock: any BotClock
    private let logger: Logger
    private let rateLimits = Mutex<[String: RateLimitStatus]>([:])
    /// The loop every request runs through: retries, rate-limit waits, cancellation.
    private let core: HTTPCore

    /// The HTTP client all `XClient`s share by default: it does not retry failed connections itself (the X client
    /// does, with its own backoff on its injected clock) and gives up connecting after 10 seconds.
    public static let sharedHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// A client; `clock` decides how waiting is done (tests inject a manual one). With a `budget`, every call is
    /// checked against it first; `refusalStore` keeps the lasting refusals across restarts.
    public init(
        configuration: Configuration, httpClient: HTTPClient = XClient.sharedHTTPClient, clock: any BotClock = SystemBotClock(),
        usage: UsageMeter = UsageMeter(), refusals: XRefusals = XRefusals(), budget: DailyBudget? = nil,
        refusalStore: (any XRefusalStore)? = nil, logger: Logger
    ) {
        self.configuration = configuration
        self.httpClient = httpClient
        self.clock = clock
        self.usage = usage
        self.refusals = refusals
        self.budget = budget
        self.refusalStore = refusalStore
        self.logger = logger
        let retry = configuration.retry
        core = HTTPCore(
            service: "X API", server: "X",
            policy: HTTPCore.Policy(
                maxAttempts: retry.maxAttempts, initialBackoff: retry.initialBackoff, maxBackoff: retry.maxBackoff,
                maxRateLimitWaits: retry.maxRateLimitWaits, longestReadWait: retry.longestRateLimitWait,
                longestWriteWait: retry.longestWriteRateLimitWait,
                shortestRateLimitWait: 0, waitWhenResetIsPast: Self.pauseWhenResetIsPast, requestTimeout: configuration.requestTimeout,
                maxResponseBytes: configuration.maxResponseBytes), httpClient: httpClient, clock: clock, logger: logger)
    }

    /// The fingerprint of each configured account's app, as refusals record it.
    public var appFingerprints: [Account: String] {
        configuration.credentials.mapValues { XRefusals.appFingerprint($0.consumerKey) }
    }

    /// The rate-limit window of an endpoint for an account, as last reported by X.
    public func rateLimit(for endpointName: String, account: Account) -> RateLimitStatus? {
        rateLimits.withLock { $0[endpointName + " " + account.rawValue] }
    }

    /// Sends `endpoint` as `account` for `work` and returns its decoded answer.
    ///
    /// Not sent (an error at once) when X refused this kind of call and its recheck is not due, or when its worst
    /// case does not fit what is left of the day's budget for `work` (a paged read is first asked for fewer posts).
    public func send<Endpoint: XEndpoint>(
        _ endpoint: Endpoint, as account: Account,
        for work: Work = .posts
    ) async throws -> Endpoint.Response {
        guard let credentials = configuration.credentials[account] else {
            throw XAPIError.unauthorized(account: account, endpoint: Endpoint.name, detail: "no credentials configured")
        }
        let name = Endpoint.name
        let app = XRefusals.appFingerprint(credentials.consumerKey)
        var endpoint = endpoint
        // What X refused before is not asked again until its recheck; the recheck is this one call.
        let earlier = refusals.refusal(for: name, capability: Endpoint.capability, account: account)
        if let earlier, clock.now() < earlier.recheckAt { throw XAPIError.refused(earlier) }
        if let budget { try fit(&endpoint, into: budget, for: work) }
        // Its worst case counted and written down before it is sent: a crash during the call loses no spend.
        let reservation = try await budget?.reserve(
            usage.prices.cost(of: endpoint.billing.worstCase), work: work, endpoint: name,
            reading: endpoint.billing.write == nil, at: clock.now())
        defer { budget?.settle(reservation) }

        let url = try requestURL(for: endpoint)
        let body = try endpoint.body.map { try JSONSerialization.data(withJSONObject: $0.mapValues(\.foundationValue), options: [.sortedKeys]) }
        let method = endpoint.method
        let sent = endpoint  // as fitted to the budget
        let repeatability: Repeatability = method == .GET ? .read : Endpoint.isIdempotent ? .idempotentWrite : .create
        let call = HTTPCall<Endpoint.Response>(
            name: name, repeatability: repeatability, isWrite: method != .GET,
            makeRequest: {
                var request = HTTPClientRequest(url: url.absoluteString)
                request.method = HTTPMethod(rawValue: method.rawValue)
                request.headers.add(
                    name: "Authorization",
                    value: OAuth1.authorizationHeader(
                        method: method.rawValue, url: url, credentials: credentials,
                        nonce: OAuth1.makeNonce(), timestamp: Int(Date().timeIntervalSince1970)))  // OAuth needs the real time
                request.headers.add(name: "User-Agent", value: "mirror_bot")
                if let body {
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.body = .bytes(ByteBuffer(bytes: body))
                }
                return request
            },
            beforeEachAttempt: { [self] in try await waitForRateLimitWindow(name, account: account, method: method) },
            onFailure: { [usage] in usage.recordFailure(endpoint: name, account: account) },
            observe: { [self] headers in
                let limit = RateLimitStatus(
                    limit: headers.first(name: "x-rate-limit-limit"),
                    remaining: headers.first(name: "x-rate-limit-remaining"),
                    reset: headers.first(name: "x-rate-limit-reset"))
                if let limit { rateLimits.withLock { $0[name + " " + account.rawValue] = limit } }
                return limit?.resetsAt
            },
            decode: { [self] _, _, data in
                let decoded: Endpoint.Response
                do {
                    decoded = try XJSON.decoder().decode(Endpoint.Response.self, from: data)
                } catch {
                    // X may bill a body it sent even if it arrived broken: counted as a failure, nothing billed.
                    return .unreadable(Self.describeDecodingError(error, bytes: data.count))
                }
                usage.recordSuccess(
                    endpoint: name, account: account, app: credentials.consumerKey,
                    resources: Endpoint.billedResources(in: decoded), write: sent.billing.write,
                    postsRead: Endpoint.postsRead(in: decoded), at: clock.now())
                if let earlier, let cleared = refusals.clear(account: account, scope: earlier.scope) {
                    logger.notice("X accepts \(cleared.subject) again (refused since \(cleared.since.formatted(.iso8601)))")
                    await storeLastingRefusals()
                }
                if let problems = Self.onlyErrors(in: data) { throw XAPIError.partialErrors(endpoint: name, problems) }
                return .value(decoded)
            },
            refusalOf429: { [self] data in
                guard let problem = Self.problem(in: data), problem.kind == "usage-capped" || (problem.type ?? "").hasSuffix("usage-capped") else {
                    return nil
                }
                await noteRefusal(status: 429, problem: problem, endpoint: sent, account: account, app: app)
                return XAPIError.usageCapped(endpoint: name, detail: problem.description)
            },
            refusal: { [self] status, _, data in
                let problem =
                    Self.problem(in: data) ?? XProblem(type: nil, title: "HTTP \(status)", detail: String(decoding: data.prefix(200), as: UTF8.self))
                await noteRefusal(status: status, problem: problem, endpoint: sent, account: account, app: app)
                if status == 401 { return XAPIError.unauthorized(account: account, endpoint: name, detail: problem.description) }
                if status == 402 { return XAPIError.creditsExhausted(endpoint: name, detail: problem.description) }
                if status == 403, (problem.type ?? "").hasSuffix("/client-forbidden") || problem.reason == "client-not-enrolled" {
                    return XAPIError.notEnrolled(endpoint: name, problem)
                }
                if status == 403, (problem.detail ?? "").localizedCaseInsensitiveContains("duplicate content") { return XAPIError.duplicateContent }
                return XAPIError.problem(endpoint: name, status: status, problem)
            })
        do {
            return try await core.send(call)
        } catch let failure as HTTPCallFailure {
            throw XAPIError(failure, endpoint: name)
        }
    }

    /// Makes `endpoint` fit what is left of the day's budget for `work`: as it is, or asking for fewer posts; else
    /// throws the budget's shed error.
    private func fit<Endpoint: XEndpoint>(_ endpoint: inout Endpoint, into budget: DailyBudget, for work: Work) throws {
        let now = clock.now()
        let prices = usage.prices
        let billing = endpoint.billing
        let headroom = budget.headroom(for: work, at: now, reading: billing.write == nil)
        let worstCase = prices.cost(of: billing.worstCase)
        if worstCase <= headroom + 1e-9 { return }
        // The price of one more post returned: the post, and its author when authors are expanded.
        let perPost =
            (billing.ownedPosts > 0 ? prices.ownedPostRead : 0) + (billing.posts > 0 ? prices.postRead : 0)
            + (billing.users > 0 && billing.mostPosts > 0 ? prices.userRead : 0)
        let writeCost = prices.cost(of: XCallBilling(write: billing.write).worstCase)
        if perPost > 0, headroom - writeCost > 0, endpoint.limitPosts(to: Int(((headroom - writeCost) / perPost + 1e-6).rounded(.down))) {
            return
        }
        // What the least of this call costs: one post of a paged read (as asked for fewer), else the whole call.
        throw budget.shed(work, endpoint: Endpoint.name, needed: perPost > 0 ? writeCost + perPost : worstCase, at: now)
    }

    /// Records what an error answer means for later calls, logging a refusal the first time only.
    private func noteRefusal<Endpoint: XEndpoint>(status: Int, problem: XProblem, endpoint: Endpoint, account: Account, app: String) async {
        guard
            let refusal = XRefusals.refusal(
                status: status, problem: problem, endpoint: Endpoint.name, capability: Endpoint.capability,
                account: account, app: app, at: clock.now())
        else { return }
        if refusals.record(refusal) {
            logger.warning(
                "X refused \(refusal.endpoint) as the \(account) (HTTP \(status): \(refusal.detail)). Not asking again for \(refusal.subject) until \(refusal.recheckAt.formatted(.iso8601)), then once \(refusal.kind == .notEnrolled ? "a day" : "an hour"); \(refusal.remedy)."
            )
        } else {
            logger.debug("X still refuses \(refusal.subject); next check at \(refusal.recheckAt.formatted(.iso8601))")
        }
        if refusal.kind == .notEnrolled { await storeLastingRefusals() }
    }

    private func storeLastingRefusals() async {
        guard let refusalStore else { return }
        do {
            try await refusalStore.save(refusals.lasting)
        } catch {
            logger.error("Could not store what X refused (\(error)); a restart will ask X once more.")
        }
    }

    /// The pages of a paged endpoint, newest first, following `next_token` until the last page or until
    /// `maxPosts` posts have been read.
    public func pages<Endpoint: XPagedEndpoint>(
        _ endpoint: Endpoint, as account: Account, for work: Work = .posts,
        maxPosts: Int? = nil
    ) -> XPageSequence<Endpoint> {
        XPageSequence(client: self, endpoint: endpoint, account: account, work: work, maxPosts: maxPosts)
    }

    // MARK: - Helpers

    private func requestURL<Endpoint: XEndpoint>(for endpoint: Endpoint) throws -> URL {
        var text = configuration.baseURL.absoluteString
        if text.hasSuffix("/") { text.removeLast() }
        text += endpoint.path
        if !endpoint.query.isEmpty {
            text += "?" + endpoint.query.map { "\(PercentEncoding.encode($0.0))=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else {
            throw XAPIError.malformedResponse(endpoint: Endpoint.name, reason: "could not form a URL from \(text)")
        }
        return url
    }

    /// Seconds to wait after a 429 whose reset time is not in the future on this clock (the clocks disagree).
    static let pauseWhenResetIsPast: TimeInterval = 15

    /// Before sending: when the last answer said the window is used up, wait for its reset instead of being refused.
    private func waitForRateLimitWindow(_ name: String, account: Account, method: HTTPMethodName) async throws {
        guard let status = rateLimit(for: name, account: account), status.remaining <= 0 else { return }
        let now = clock.now()
        guard status.resetsAt > now else { return }
        guard status.resetsAt.timeIntervalSince(now) <= configuration.retry.longestWait(for: method) else {
            throw XAPIError.rateLimited(endpoint: name, resetsAt: status.resetsAt)
        }
        logger.info("X API \(name): no calls left in this window; waiting for its reset")
        try await clock.sleep(until: status.resetsAt.addingTimeInterval(1))
        rateLimits.withLock { $0[name + " " + account.rawValue] = nil }
    }

    private static func problem(in data: Data) -> XProblem? {
        guard let problem = try? JSONDecoder().decode(XProblem.self, from: data), problem.title != nil || problem.type != nil else {
            // Some errors come as {"errors": [problem]}.
            return onlyErrors(in: data)?.first
        }
        return problem
    }

    /// The `errors` of a body that has `errors` and no `data`.
    private static func onlyErrors(in data: Data) -> [XProblem]? {
        struct Envelope: Decodable {
            var errors: [XProblem]?
            var data: IgnoredValue?
            var meta: IgnoredValue?
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data), envelope.data == nil, envelope.meta == nil,
            let errors = envelope.errors, !errors.isEmpty
        else { return nil }
        return errors
    }

    private struct IgnoredValue: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    private static func describeDecodingError(_ error: any Error, bytes: Int) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            "\(bytes) bytes that are not valid JSON (\(context.debugDescription))"
        case DecodingError.keyNotFound(let key, let context):
            "missing \(([key] + context.codingPath.reversed()).reversed().map(\.stringValue).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "unexpected value at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default:
            String(describing: error)
        }
    }
}
