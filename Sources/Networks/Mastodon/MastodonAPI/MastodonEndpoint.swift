/// One Mastodon API endpoint: its method, path, query and body, and the type of its successful response. Each is a
/// small type in `Endpoints/`, named after the API reference's method.
public protocol MastodonEndpoint: Sendable {
    /// The decoded body of a successful response.
    associatedtype Response: Decodable & Sendable

    /// The endpoint as the reference names it, such as `GET /api/v1/accounts/:id/statuses`.
    static var name: String { get }
    /// `GET`, `POST` or `DELETE`.
    var method: MastodonMethod { get }
    /// The path with ids filled in.
    var path: String { get }
    /// Query parameters, in order.
    var query: [(String, String)] { get }
    /// The JSON body, for `POST`s.
    var body: [String: MastodonBodyValue]? { get }
    /// The `Idempotency-Key` header: the instance makes one status for any number of requests with the same key
    /// (for an hour), so a create with one may be sent again after a dropped connection.
    var idempotencyKey: String? { get }
    /// Whether sending it twice does no harm: reads, and creates that carry an idempotency key.
    var isIdempotent: Bool { get }
}

extension MastodonEndpoint {
    /// No query.
    public var query: [(String, String)] { [] }
    /// No body.
    public var body: [String: MastodonBodyValue]? { nil }
    /// No key.
    public var idempotencyKey: String? { nil }
    /// Reads and keyed creates.
    public var isIdempotent: Bool { method == .GET || idempotencyKey != nil }
}

/// An endpoint that answers a page of items, with `Link` headers to the next (older) and previous (newer) pages.
public protocol MastodonPagedEndpoint: MastodonEndpoint where Response == [Item] {
    /// One item of a page.
    associatedtype Item: Decodable & Sendable
    /// `limit`: items a page (the reference's default and maximum differ by endpoint).
    var limit: Int { get set }
}

/// The HTTP methods mirror_bot sends.
public enum MastodonMethod: String, Sendable {
    /// A read.
    case GET
    /// A create or an action.
    case POST
    /// A deletion.
    case DELETE
}

/// A JSON value in a request body.
public enum MastodonBodyValue: Sendable, Equatable {
    /// A string.
    case string(String)
    /// A boolean.
    case bool(Bool)
    /// An array of strings (`redirect_uris`).
    case strings([String])

    /// The value for `JSONSerialization`.
    var foundationValue: Any {
        switch self {
        case .string(let text): text
        case .bool(let flag): flag
        case .strings(let texts): texts
        }
    }
}
