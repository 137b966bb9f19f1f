/// `GET /2/users/:id/liked_tweets`: the posts a user liked, most recently liked first.
public struct GetLikedTweets: XPagedEndpoint {
    /// The reference's name.
    public static let name = "GET /2/users/:id/liked_tweets"
    /// The user.
    public var userID: String
    /// Posts per page, 5–100.
    public var maxResults: Int
    /// The page to fetch.
    public var paginationToken: String?
    /// The fields asked for (the favorite filter's: with authors).
    public var fields: PostFields
    /// 5–100.
    public static let smallestPage = 5
    /// mirror_bot reads only the authenticated account's own likes: owned reads.
    public static let postOwnership = XPostOwnership.own

    /// The request for `userID`'s likes.
    public init(userID: String, maxResults: Int = 100, paginationToken: String? = nil, fields: PostFields = .classifier) {
        self.userID = userID
        self.maxResults = min(max(maxResults, 5), 100)
        self.paginationToken = paginationToken
        self.fields = fields
    }

    /// GET.
    public var method: HTTPMethodName { .GET }
    /// The path.
    public var path: String { "/2/users/\(userID)/liked_tweets" }
    /// Paging and the post fields.
    public var query: [(String, String)] {
        var query: [(String, String)] = [("max_results", String(maxResults))]
        if let paginationToken { query.append(("pagination_token", paginationToken)) }
        return query + fields.query
    }
}
