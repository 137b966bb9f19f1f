public import AsyncHTTPClient
public import BotClock
public import Foundation
public import Logging
import NIOCore
import NIOFoundationCompat
public import NIOHTTP1
import NIOPosix

/// The loop every API client runs a request through: send, read the answer, and cope with what the network does.
/// Dropped connections and 5xx are retried with bounded exponential backoff and jitter, as far as the request's
/// `Repeatability` allows (a create is never sent twice unless it surely never left); a 429 is waited out on the
/// injected clock when its window resets soon enough; a cancellation is a `CancellationError`; every attempt is
/// metered through the call's hooks; what the core decides ends as an `HTTPCallFailure`, which each client names in
/// its own errors. The clients keep their endpoint types, their signing and their reading of answers on top of it.
public struct HTTPCore: Sendable {
    /// Bounds on retrying and waiting.
    public struct Policy: Sendable {
        /// Attempts for 5xx answers and dropped connections, the first included.
        public var maxAttempts: Int
        /// Backoff before the second attempt; doubled for each further one.
        public var initialBackoff: Duration
        /// Longest backoff.
        public var maxBackoff: Duration
        /// How many times a 429 is waited out before giving up.
        public var maxRateLimitWaits: Int
        /// A read's 429 whose window resets later than this is not waited for.
        public var longestReadWait: Duration
        /// The same for a write: a write runs to its end through a shutdown, which must not wait for a window's reset.
        public var longestWriteWait: Duration
        /// The shortest wait for a window's reset (a server whose reset is a moment away is given this much).
        public var shortestRateLimitWait: TimeInterval
        /// The wait when the window's reset is already past on the client's clock (the clocks disagree).
        public var waitWhenResetIsPast: TimeInterval
        /// Longest wait for one answer.
        public var requestTimeout: Duration
        /// Largest body accepted.
        public var maxResponseBytes: Int
        /// Whether a write that failed on every attempt (dropped, unreadable, 5xx other than 503) may have been carried
        /// out, and is reported so (`outcomeUnknown`, for the caller to read back) rather than as the failure itself.
        public var exhaustedWritesAreUncertain: Bool

        /// A policy from its parts; the defaults: 4 attempts, 1 s doubling to at most 60 s, up to 3 rate-limit windows
        /// of at most 16 minutes (5 seconds for a write).
        public init(
            maxAttempts: Int = 4, initialBackoff: Duration = .seconds(1), maxBackoff: Duration = .seconds(60),
            maxRateLimitWaits: Int = 3, longestReadWait: Duration = .seconds(16 * 60), longestWriteWait: Duration = .seconds(5),
            shortestRateLimitWait: TimeInterval = 0, waitWhenResetIsPast: TimeInterval = 15, requestTimeout: Duration = .seconds(30),
            maxResponseBytes: Int = 16 << 20, exhaustedWritesAreUncertain: Bool = false
        ) {
            self.maxAttempts = maxAttempts
            self.initialBackoff = initialBackoff
            self.maxBackoff = maxBackoff
            self.maxRateLimitWaits = maxRateLimitWaits
            self.longestReadWait = longestReadWait
            self.longestWriteWait = longestWriteWait
            self.shortestRateLimitWait = shortestRateLimitWait
            self.waitWhenResetIsPast = waitWhenResetIsPast
            self.requestTimeout = requestTimeout
            self.maxResponseBytes = maxResponseBytes
            self.exhaustedWritesAreUncertain = exhaustedWritesAreUncertain
        }

        /// The longest rate-limit wait for a read or a write, in seconds.
        public func longestWait(forWrite isWrite: Bool) -> TimeInterval { (isWrite ? longestWriteWait : longestReadWait).seconds }
    }

    /// How the API's name reads in log lines ("X API", "Mastodon").
    public let service: String
    /// How the server is named in a failure's reason ("X", "the instance").
    public let server: String
    /// The bounds.
    public let policy: Policy
    private let httpClient: HTTPClient
    private let clock: any BotClock
    private let logger: Logger

    /// A core for `service` on `httpClient`, waiting on `clock`.
    public init(service: String, server: String, policy: Policy, httpClient: HTTPClient, clock: any BotClock, logger: Logger) {
        self.service = service
        self.server = server
        self.policy = policy
        self.httpClient = httpClient
        self.clock = clock
        self.logger = logger
    }

    /// Sends `call` until it is answered or fails as its policy says; returns what its `decode` made of a 2xx answer.
    /// Throws `CancellationError` when cancelled, `HTTPCallFailure` for what the core decided, and the call's own
    /// errors (its 4xx refusals, what its decoding throws).
    public func send<Result: Sendable>(_ call: HTTPCall<Result>) async throws -> Result {
        var attempt = 0
        var rateLimitWaits = 0
        while true {
            try Task.checkCancellation()
            // Asked before what comes before each attempt (a billed call's reservation), so that nothing is reserved for a
            // write that will not be sent.
            if call.isWrite { _ = try WriteDeadline.limit(policy.requestTimeout) }
            try await call.beforeEachAttempt()
            attempt += 1
            let request = try call.makeRequest()
            // A write is given no longer than this process's lease on the bot has left, and is not sent with too little.
            let timeLimit = call.isWrite ? try WriteDeadline.limit(policy.requestTimeout) : policy.requestTimeout
            call.onSend()

            let status: Int
            let headers: HTTPHeaders
            let data: Data
            do {
                let response = try await httpClient.execute(request, timeout: .milliseconds(Int64(timeLimit / .milliseconds(1))))
                status = Int(response.status.code)
                headers = response.headers
                data = Data(buffer: try await response.body.collect(upTo: policy.maxResponseBytes))
            } catch {
                // Cancelled (a shutdown past its graceful limit): AsyncHTTPClient says so with its own error. A create
                // cut that way is left to the caller's record of what it was sending, read back at the next start.
                if error is CancellationError || Task.isCancelled { throw CancellationError() }
                call.onFailure()
                let reason = Self.describeTransportError(error)
                if call.repeatability == .create && !Self.requestWasNotSent(error) { throw HTTPCallFailure.outcomeUnknown(reason: reason) }
                guard attempt < policy.maxAttempts else {
                    // A write may have been carried out by an attempt whose answer was lost: the caller reads back.
                    if policy.exhaustedWritesAreUncertain && call.isWrite { throw HTTPCallFailure.outcomeUnknown(reason: reason) }
                    throw HTTPCallFailure.transport(reason: reason, attempts: attempt)
                }
                logger.notice("\(service) \(call.name) failed (\(reason)); retrying", metadata: ["attempt": "\(attempt)"])
                try await clock.sleep(for: backoff(afterAttempt: attempt))
                continue
            }
            let windowResetsAt = call.observe(headers)

            switch status {
            case 200..<300:
                switch try await call.decode(status, headers, data) {
                case .value(let value):
                    return value
                case .unreadable(let reason):
                    call.onFailure()
                    let uncertain = HTTPCallFailure.outcomeUnknown(reason: "its \(status) answer could not be read (\(reason))")
                    switch call.repeatability {
                    case .read:
                        throw HTTPCallFailure.malformed(reason: reason)
                    case .create:
                        // Carried out, but its id is unreadable: the caller reads back what was made.
                        throw uncertain
                    case .idempotentWrite:
                        // Carried out; asked again, the server answers the same (liking twice, or the same key, changes nothing).
                        guard attempt < policy.maxAttempts else {
                            if policy.exhaustedWritesAreUncertain { throw uncertain }
                            throw HTTPCallFailure.malformed(reason: reason)
                        }
                        logger.notice(
                            "\(service) \(call.name) answered \(status) unreadably (\(reason)); asking again", metadata: ["attempt": "\(attempt)"])
                        continue
                    }
                }

            case 429:
                call.onFailure()
                if let refusal = await call.refusalOf429(data) { throw refusal }
                let resetsAt = windowResetsAt ?? clock.now().addingTimeInterval(60)
                // A reset already past on this clock means the clocks disagree: wait a short while rather than not at all.
                let untilReset = resetsAt.timeIntervalSince(clock.now())
                let wait = untilReset > 0 ? max(untilReset, policy.shortestRateLimitWait) + 1 : policy.waitWhenResetIsPast
                guard rateLimitWaits < policy.maxRateLimitWaits, wait <= policy.longestWait(forWrite: call.isWrite) else {
                    throw HTTPCallFailure.rateLimited(resetsAt: windowResetsAt)
                }
                rateLimitWaits += 1
                attempt -= 1  // waiting out a window is not a failed attempt
                logger.notice(
                    "\(service) \(call.name) is rate-limited; waiting \(Int(wait.rounded(.up))) s for the window to reset\(untilReset > 0 ? "" : " (its reset time is already past on this clock)")"
                )
                try await clock.sleep(for: .milliseconds(Int64(wait * 1000)))

            case 500..<600 where status != 501:  // 501: the server does not serve the method at all; asking again will not help
                call.onFailure()
                // A 503 means the server did not take the request; other 5xx may have done the work, so a create is not
                // sent again: the caller reads back whether it was made.
                guard call.repeatability != .create || status == 503 else {
                    throw HTTPCallFailure.outcomeUnknown(reason: "\(server) answered \(status)")
                }
                guard attempt < policy.maxAttempts else {
                    if policy.exhaustedWritesAreUncertain && call.isWrite && status != 503 {
                        throw HTTPCallFailure.outcomeUnknown(reason: "\(server) answered \(status) \(attempt) times")
                    }
                    throw HTTPCallFailure.serverError(status: status, attempts: attempt)
                }
                logger.notice("\(service) \(call.name) answered \(status); retrying", metadata: ["attempt": "\(attempt)"])
                try await clock.sleep(for: backoff(afterAttempt: attempt))

            default:
                call.onFailure()
                throw await call.refusal(status, headers, data)
            }
        }
    }

    /// The wait before attempt `attempt + 1`: exponential, bounded, with jitter that spreads the retries of many bots.
    func backoff(afterAttempt attempt: Int) -> Duration {
        let exponential = min(policy.maxBackoff.seconds, policy.initialBackoff.seconds * pow(2, Double(attempt - 1)))
        return .milliseconds(Int64(exponential * Double.random(in: 0.5...1.0) * 1000))
    }

    /// Whether `error` surely came before the request left (no connection was made, or it was refused).
    static func requestWasNotSent(_ error: any Error) -> Bool {
        if let httpError = error as? HTTPClientError {
            return [.connectTimeout, .getConnectionFromPoolTimeout, .tlsHandshakeTimeout].contains(httpError)
        }
        // A refused connection (nothing listens, or the server is restarting) carried nothing.
        if let ioError = error as? IOError, ioError.errnoCode == ECONNREFUSED { return true }
        return error is NIOConnectionError
    }

    /// A transport error in words.
    static func describeTransportError(_ error: any Error) -> String {
        if let connectionError = error as? NIOConnectionError {
            return "could not connect to \(connectionError.host):\(connectionError.port)"
                + (connectionError.connectionErrors.first.map { " (\($0.error))" } ?? "")
        }
        return String(describing: error)
    }
}

/// Whether a request may be sent again after a failure that may have reached the server.
public enum Repeatability: Sendable, Equatable {
    /// A read: sent again freely.
    case read
    /// A write the server carries out once however often it arrives (a like, a deletion, a create with an
    /// idempotency key).
    case idempotentWrite
    /// A create without a key: sent again only when it surely never left.
    case create
}

/// What a client's reading of a 2xx answer made of it.
public enum DecodedAnswer<Value: Sendable>: Sendable {
    /// The answer.
    case value(Value)
    /// It could not be read, and why.
    case unreadable(String)
}

/// One request as its client sends it through `HTTPCore`: how it is made and signed (anew for each attempt), how
/// it may be repeated, and the client's hooks: metering, rate-limit windows, reading the answer, refusals.
public struct HTTPCall<Result: Sendable>: Sendable {
    /// The endpoint's name as the reference gives it (`GET /2/tweets/:id`).
    public var name: String
    /// Whether it may be sent again.
    public var repeatability: Repeatability
    /// Whether it changes something (its rate-limit wait is the write's).
    public var isWrite: Bool
    /// The request of one attempt, signed.
    public var makeRequest: @Sendable () throws -> HTTPClientRequest
    /// Before each attempt (a window known to be used up is waited for here).
    public var beforeEachAttempt: @Sendable () async throws -> Void
    /// An attempt is about to be sent.
    public var onSend: @Sendable () -> Void
    /// An attempt failed (no answer, an unreadable one, an error status).
    public var onFailure: @Sendable () -> Void
    /// Reads an answer's rate-limit headers; returns when the window resets, when they say.
    public var observe: @Sendable (HTTPHeaders) -> Date?
    /// Reads a 2xx answer (metering its success).
    public var decode: @Sendable (_ status: Int, HTTPHeaders, Data) async throws -> DecodedAnswer<Result>
    /// The refusal a 429 carries that is not a window to wait out (X's usage cap), if it is one.
    public var refusalOf429: @Sendable (Data) async -> (any Error)?
    /// The error for any other status (4xx), in the client's words.
    public var refusal: @Sendable (_ status: Int, HTTPHeaders, Data) async -> any Error

    /// A call from its parts.
    public init(
        name: String, repeatability: Repeatability, isWrite: Bool, makeRequest: @escaping @Sendable () throws -> HTTPClientRequest,
        beforeEachAttempt: @escaping @Sendable () async throws -> Void = {}, onSend: @escaping @Sendable () -> Void = {},
        onFailure: @escaping @Sendable () -> Void, observe: @escaping @Sendable (HTTPHeaders) -> Date?,
        decode: @escaping @Sendable (_ status: Int, HTTPHeaders, Data) async throws -> DecodedAnswer<Result>,
        refusalOf429: @escaping @Sendable (Data) async -> (any Error)? = { _ in nil },
        refusal: @escaping @Sendable (_ status: Int, HTTPHeaders, Data) async -> any Error
    ) {
        self.name = name
        self.repeatability = repeatability
        self.isWrite = isWrite
        self.makeRequest = makeRequest
        self.beforeEachAttempt = beforeEachAttempt
        self.onSend = onSend
        self.onFailure = onFailure
        self.observe = observe
        self.decode = decode
        self.refusalOf429 = refusalOf429
        self.refusal = refusal
    }
}

/// What the core decided about a call, for its client to name in its own errors.
public enum HTTPCallFailure: Error, Sendable, Equatable {
    /// No answer after `attempts` tries.
    case transport(reason: String, attempts: Int)
    /// A write that may or may not have been carried out: the caller reads back.
    case outcomeUnknown(reason: String)
    /// 5xx after `attempts` tries.
    case serverError(status: Int, attempts: Int)
    /// Rate-limited past what is waited for; the window resets at `resetsAt`, when known.
    case rateLimited(resetsAt: Date?)
    /// A 2xx answer that could not be read.
    case malformed(reason: String)
}

/// A client's error type, with a case for each of the core's decisions: `init(_:endpoint:)` names a decision in it.
public protocol HTTPCallFailureNaming: Error {
    /// No answer after `attempts` tries.
    static func transport(endpoint: String, reason: String, attempts: Int) -> Self
    /// A write that may or may not have been carried out.
    static func outcomeUnknown(endpoint: String, reason: String) -> Self
    /// 5xx after `attempts` tries.
    static func serverError(endpoint: String, status: Int, attempts: Int) -> Self
    /// Rate-limited past what is waited for.
    static func rateLimited(endpoint: String, resetsAt: Date?) -> Self
    /// A 2xx answer that could not be read.
    static func malformedResponse(endpoint: String, reason: String) -> Self
}

extension HTTPCallFailureNaming {
    /// The core's decision about a call to `endpoint`, in the client's words.
    public init(_ failure: HTTPCallFailure, endpoint: String) {
        switch failure {
        case .transport(let reason, let attempts): self = .transport(endpoint: endpoint, reason: reason, attempts: attempts)
        case .outcomeUnknown(let reason): self = .outcomeUnknown(endpoint: endpoint, reason: reason)
        case .serverError(let status, let attempts): self = .serverError(endpoint: endpoint, status: status, attempts: attempts)
        case .rateLimited(let resetsAt): self = .rateLimited(endpoint: endpoint, resetsAt: resetsAt)
        case .malformed(let reason): self = .malformedResponse(endpoint: endpoint, reason: reason)
        }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
