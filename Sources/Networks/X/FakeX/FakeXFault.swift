public import Foundation

/// A failure the fake server produces on demand, for the next matching API requests.
public struct FakeXFault: Codable, Sendable, Equatable {
    /// What goes wrong.
    public enum Kind: String, Codable, Sendable {
        /// 503 Service Unavailable with a problem body.
        case serviceUnavailable = "503"
        /// 500 Internal Server Error with a problem body.
        case internalServerError = "500"
        /// The connection is closed halfway through the body (the headers promised more).
        case closeMidResponse = "close"
        /// A complete 200 whose JSON is cut short.
        case truncatedJSON = "truncate"
        /// 429 with problem type `.../usage-capped`.
        case usageCapped = "usage-capped"
        /// 429 "Too Many Requests": the caller's 15-minute window for the endpoint used up (`x-rate-limit-remaining: 0`,
        /// `x-rate-limit-reset` at the window's end), though the fake's own count of it is not.
        case rateLimited = "429"
        /// 403 "You are not permitted to perform this action." (an app or token without the permission).
        case forbidden = "403"
        /// The connection is closed before the request is carried out (nothing is made), after the status line.
        case closeBeforeHandling = "drop"
        /// The request is carried out, then its answer is held back for `holdSeconds` (by default
        /// `FakeXFault.hangSeconds`) of real time (a network that stops answering).
        case hangAfterHandling = "hang"
    }

    /// A fault as a request met it (queued or drawn at random): which endpoint, which caller, when on the fake's clock.
    public struct Injected: Sendable, Equatable {
        /// The endpoint's name, a create's kind included (`POST /2/tweets (post)`).
        public var endpoint: String
        /// The user id of the account that made the request.
        public var userID: String
        /// What went wrong.
        public var kind: Kind
        /// When, on the fake's clock.
        public var at: Date
        /// Whether it was queued (`FakeXServer.add(fault:)`) rather than drawn by the chaos.
        public var wasQueued: Bool
    }

    /// How long a `hangAfterHandling` answer is held back, in real seconds, unless the fault says: longer than the
    /// bot's graceful shutdown.
    public static let hangSeconds = 20

    /// What goes wrong.
    public var kind: Kind
    /// How many requests it hits.
    public var count: Int
    /// Only requests to this endpoint (`GET /2/users/:id/tweets`; `POST /2/tweets (post)` or `POST /2/tweets (reply)`
    /// for creates of one kind); all when nil.
    public var endpoint: String?
    /// For `hangAfterHandling`: how long the answer is held back, in real seconds; nil for `FakeXFault.hangSeconds`.
    public var holdSeconds: Double?

    /// A fault from its parts.
    public init(kind: Kind, count: Int = 1, endpoint: String? = nil, holdSeconds: Double? = nil) {
        self.kind = kind
        self.count = count
        self.endpoint = endpoint
        self.holdSeconds = holdSeconds
    }
}
