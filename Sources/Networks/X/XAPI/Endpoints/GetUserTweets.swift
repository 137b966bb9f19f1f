/// `GET /2/users/:id/tweets`: a user's posts, newest first (at most the 3,200 most recent; 800 with
/// `exclude=replies`).
public struct GetUserTweets: XPagedEndpoint {
    /// The reference's name.
    public static let name = "GET /2/users/:id/tweets"
    /// The user.
    public var userID: String
    /// Only posts newer than this id.
    public var sinceID: String?
    /// Only posts older than this id.
    public var untilID: String?
    /// Posts per page, 5–100.
    public var maxResults: Int
    /// The page to fetch.
    public var paginationToken: String?
    /// What to leave out.
    public var exclude: Set<TimelineExclusion>
    /// The fields asked for (the archive's: no authors).
    public var fields: PostFields
    /// 5–100.
    public static let smallestPage = 5
    /// mirror_bot reads only the authenticated account's own posts: owned reads.
    public static let postOwnership = XPostOwnership.own

    /// The request for `userID`'s posts.
    public init(
        userID: String, sinceID: String? = nil, untilID: String? = nil, maxResults: Int = 100,
        paginationToken: String? = nil, exclude: Set<TimelineExclusion> = [], fields: PostFields = .archive
    ) {
        self.userID = userID
        self.sinceID = sinceID
        self.untilID = untilID
        self.maxResults = min(max(maxResults, 5), 100)
        self.paginationToken = paginationToken
        self.exclude = exclude
        self.fields = fields
    }

    /// GET.
    public var method: HTTPMethodName { .GET }
    /// The path.
    public var path: String { "/2/users/\(userID)/tweets" }
    /// Paging, `since_id`, `exclude` and the post fields.
    public var query: [(String, String)] {
        timelineQuery(
            sinceID: sinceID, untilID: untilID, maxResults: maxResults, paginationToken: paginationToken, exclude: exclude,
            fields: fields)
    }
}
