/// One X API v2 endpoint: its method, path and query, and the type of its successful response.
/// Each endpoint is a small type in `Endpoints/`, named after the API reference's operation.
public protocol XEndpoint: Sendable {
    /// The decoded body of a successful response.
    associatedtype Response: Decodable & Sendable

    /// The endpoint as the reference names it, such as `GET /2/users/:id/tweets`; usage is counted by it.
    static var name: String { get }
    /// `GET` or `POST`.
    var method: HTTPMethodName { get }
    /// The path with ids filled in, such as `/2/users/2244994945/tweets`.
    var path: String { get }
    /// Query parameters, in order.
    var query: [(String, String)] { get }
    /// The JSON body, for `POST`s.
    var body: [String: JSONBodyValue]? { get }
    /// Whether sending it twice does no harm, so that a dropped connection may be retried.
    static var isIdempotent: Bool { get }

    /// How many posts the response carries (reads are billed per post).
    static func postsRead(in response: Response) -> Int
}

extension XEndpoint {
    /// No body.
    public var body: [String: JSONBodyValue]? { nil }
    /// Reads are idempotent.
    public static var isIdempotent: Bool { true }
    /// No posts.
    public static func postsRead(in response: Response) -> Int { 0 }
}

/// An endpoint that returns pages of posts followed by `pagination_token`.
public protocol XPagedEndpoint: XEndpoint where Response == XTweetPage {
    /// `pagination_token`.
    var paginationToken: String? { get set }
}

extension XPagedEndpoint {
    /// The posts of the page.
    public static func postsRead(in response: XTweetPage) -> Int { response.tweets.count }
}

/// HTTP methods the client sends.
public enum HTTPMethodName: String, Sendable {
    /// Read.
    case GET
    /// Create.
    case POST
}

/// A JSON body value (the bodies mirror_bot sends are small objects of strings).
public indirect enum JSONBodyValue: Sendable, Equatable {
    /// A string.
    case string(String)
    /// A nested object.
    case object([String: JSONBodyValue])

    var foundationValue: Any {
        switch self {
        case .string(let text): text
        case .object(let fields): fields.mapValues(\.foundationValue)
        }
    }
}

/// The fields and expansions mirror_bot asks for on every post lookup.
enum PostFields {
    static let tweetFields = "author_id,conversation_id,created_at,entities,in_reply_to_user_id,referenced_tweets"
    static let query: [(String, String)] = [
        ("tweet.fields", tweetFields), ("expansions", "author_id"), ("user.fields", "username"),
    ]
}

/// What `exclude` may leave out of a timeline.
public enum TimelineExclusion: String, Sendable, CaseIterable, Comparable {
    /// Replies.
    case replies
    /// Retweets.
    case retweets
    /// Alphabetical, as the parameter lists them.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Builds the common timeline query.
func timelineQuery(sinceID: String?, untilID: String?, maxResults: Int, paginationToken: String?,
                   exclude: Set<TimelineExclusion> = []) -> [(String, String)] {
    var query: [(String, String)] = [("max_results", String(maxResults))]
    if let sinceID { query.append(("since_id", sinceID)) }
    if let untilID { query.append(("until_id", untilID)) }
    if let paginationToken { query.append(("pagination_token", paginationToken)) }
    if !exclude.isEmpty { query.append(("exclude", exclude.sorted().map(\.rawValue).joined(separator: ","))) }
    return query + PostFields.query
}
