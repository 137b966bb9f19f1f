/// One X API v2 endpoint: its method, path and query, and the type of its successful response.
/// Each endpoint is a small type in `Endpoints/`, named after the API reference's operation.
public protocol XEndpoint: Sendable {
    /// The decoded body of a successful response.
    associatedtype Response: Decodable & Sendable

    /// The endpoint as the reference names it, such as `GET /2/users/:id/tweets`; usage is counted by it.
    static var name: String { get }
    /// `GET`, `POST` or `DELETE`.
    var method: HTTPMethodName { get }
    /// The path with ids filled in, such as `/2/users/2244994945/tweets`.
    var path: String { get }
    /// Query parameters, in order.
    var query: [(String, String)] { get }
    /// The JSON body, for `POST`s.
    var body: [String: JSONBodyValue]? { get }
    /// Whether sending it twice does no harm, so that a dropped connection may be retried.
    static var isIdempotent: Bool { get }
    /// The capability X may refuse this endpoint as a whole for (an app not enrolled for likes), if any.
    static var capability: XCapability? { get }

    /// What one call may be billed at most: the posts and users it may return, the write it makes.
    var billing: XCallBilling { get }
    /// Asks for at most `count` posts; false when the endpoint cannot return that few (then nothing changes).
    mutating func limitPosts(to count: Int) -> Bool

    /// How many posts the response carries.
    static func postsRead(in response: Response) -> Int
    /// The ids of the posts and users the response returns, which X bills.
    static func billedResources(in response: Response) -> XBilledResources
}

extension XEndpoint {
    /// No body.
    public var body: [String: JSONBodyValue]? { nil }
    /// Reads are idempotent.
    public static var isIdempotent: Bool { true }
    /// No capability of its own.
    public static var capability: XCapability? { nil }
    /// Nothing billed.
    public var billing: XCallBilling { XCallBilling() }
    /// A call that returns no posts can always be made "smaller".
    public mutating func limitPosts(to count: Int) -> Bool { count >= billing.mostPosts }
    /// No posts.
    public static func postsRead(in response: Response) -> Int { 0 }
    /// Nothing billed.
    public static func billedResources(in response: Response) -> XBilledResources { XBilledResources() }
}

/// An endpoint that returns pages of posts followed by `pagination_token`.
public protocol XPagedEndpoint: XEndpoint where Response == XTweetPage {
    /// `pagination_token`.
    var paginationToken: String? { get set }
    /// `max_results`.
    var maxResults: Int { get set }
    /// The smallest `max_results` the endpoint accepts.
    static var smallestPage: Int { get }
    /// Whose posts these are, for billing: the account's own ("owned reads") or anyone's.
    static var postOwnership: XPostOwnership { get }
    /// The fields asked for, and whether authors are expanded (each is a billed user read).
    var fields: PostFields { get }
}

extension XPagedEndpoint {
    /// The posts of the page.
    public static func postsRead(in response: XTweetPage) -> Int { response.tweets.count }
    /// The posts of the page and the authors it expanded.
    public static func billedResources(in response: XTweetPage) -> XBilledResources {
        XBilledResources(
            ownedPosts: postOwnership == .own ? response.tweets.map(\.id) : [],
            posts: postOwnership == .anyone ? response.tweets.map(\.id) : [],
            users: response.includes?.users?.map(\.id) ?? [])
    }
    /// At most `maxResults` posts, and as many authors when they are expanded.
    public var billing: XCallBilling {
        XCallBilling(
            ownedPosts: Self.postOwnership == .own ? maxResults : 0, posts: Self.postOwnership == .anyone ? maxResults : 0,
            users: fields.expandsAuthors ? maxResults : 0)
    }
    /// Lowers `max_results` to `count`, when the endpoint accepts pages that small.
    public mutating func limitPosts(to count: Int) -> Bool {
        guard count >= Self.smallestPage else { return false }
        maxResults = min(maxResults, count)
        return true
    }
}

/// Whose posts an endpoint returns, which decides their price.
public enum XPostOwnership: Sendable {
    /// The authenticated account's own posts, mentions or likes: "owned reads". mirror_bot reads only its own
    /// accounts' timelines, each with that account's tokens.
    case own
    /// Anyone's (the home timeline).
    case anyone
}

/// The most one call may be billed: the posts and users it may return, the write it makes.
public struct XCallBilling: Sendable, Equatable {
    /// Own posts it may return.
    public var ownedPosts = 0
    /// Other posts it may return.
    public var posts = 0
    /// Users it may return.
    public var users = 0
    /// The write it makes, if any.
    public var write: XWrite?

    /// A billing from its parts.
    public init(ownedPosts: Int = 0, posts: Int = 0, users: Int = 0, write: XWrite? = nil) {
        self.ownedPosts = ownedPosts
        self.posts = posts
        self.users = users
        self.write = write
    }

    /// The most posts the call may return.
    public var mostPosts: Int { ownedPosts + posts }

    /// The bill if every resource the call may return were billed.
    public var worstCase: XBill {
        var bill = XBill(ownedPostReads: ownedPosts, postReads: posts, userReads: users)
        switch write {
        case .post(let withURL)?: if withURL { bill.postsCreatedWithURL = 1 } else { bill.postsCreated = 1 }
        case .interactionCreate?: bill.interactionsCreated = 1
        case .interactionDelete?: bill.interactionsDeleted = 1
        case nil: break
        }
        return bill
    }
}

/// A billed write.
public enum XWrite: Sendable, Equatable {
    /// A post, with or without a URL in its text.
    case post(withURL: Bool)
    /// A like.
    case interactionCreate
    /// An unlike.
    case interactionDelete
}

/// The resources a response returned, by id, as X bills them (each once per UTC day).
public struct XBilledResources: Sendable, Equatable {
    /// Own posts returned.
    public var ownedPosts: [String] = []
    /// Other posts returned.
    public var posts: [String] = []
    /// Users returned.
    public var users: [String] = []

    /// Resources from their parts.
    public init(ownedPosts: [String] = [], posts: [String] = [], users: [String] = []) {
        self.ownedPosts = ownedPosts
        self.posts = posts
        self.users = users
    }
}

/// Something X may refuse an app as a whole: an endpoint family its access level does not include.
public enum XCapability: String, Sendable, Codable, CaseIterable {
    /// Liking and unliking (`POST /2/users/:id/likes`, `DELETE /2/users/:id/likes/:tweet_id`): not in self-serve
    /// (pay-per-use) access since 2026-04-20.
    case likes
}

/// HTTP methods the client sends.
public enum HTTPMethodName: String, Sendable {
    /// Read.
    case GET
    /// Create.
    case POST
    /// Remove.
    case DELETE
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

/// The fields a post lookup asks for, and whether it expands authors: only what a decision uses, since every
/// expanded author is a user read X bills ($0.010 each, once per UTC day).
public struct PostFields: Sendable, Equatable {
    /// `tweet.fields`.
    public var tweetFields: [String]
    /// `expansions=author_id` with `user.fields=username`.
    public var expandsAuthors: Bool

    /// Fields from their parts.
    public init(tweetFields: [String], expandsAuthors: Bool) {
        self.tweetFields = tweetFields
        self.expandsAuthors = expandsAuthors
    }

    /// For the archive (the human's own tweets): time, reply target, retweet marker, links. No authors: all the human's.
    public static let archive = PostFields(
        tweetFields: ["created_at", "entities", "in_reply_to_user_id", "referenced_tweets"], expandsAuthors: false)
    /// For answering mentions: the author's id (replies are picked by it), the thread, the time (a pending answer
    /// goes out only while the mention is fresh), the retweet marker. No author expansion: the handle only served the log.
    public static let mentions = PostFields(tweetFields: ["author_id", "conversation_id", "created_at", "referenced_tweets"], expandsAuthors: false)
    /// For the favorite filter: the text with its links, the retweet marker and the author's handle (a feature).
    public static let classifier = PostFields(tweetFields: ["author_id", "entities", "referenced_tweets"], expandsAuthors: true)

    /// The query parameters.
    var query: [(String, String)] {
        var query = [("tweet.fields", tweetFields.sorted().joined(separator: ","))]
        if expandsAuthors { query += [("expansions", "author_id"), ("user.fields", "username")] }
        return query
    }
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
func timelineQuery(
    sinceID: String?, untilID: String?, maxResults: Int, paginationToken: String?,
    exclude: Set<TimelineExclusion> = [], fields: PostFields
) -> [(String, String)] {
    var query: [(String, String)] = [("max_results", String(maxResults))]
    if let sinceID { query.append(("since_id", sinceID)) }
    if let untilID { query.append(("until_id", untilID)) }
    if let paginationToken { query.append(("pagination_token", paginationToken)) }
    if !exclude.isEmpty { query.append(("exclude", exclude.sorted().map(\.rawValue).joined(separator: ","))) }
    return query + fields.query
}
