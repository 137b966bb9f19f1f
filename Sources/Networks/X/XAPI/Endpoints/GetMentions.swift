/// `GET /2/users/:id/mentions`: posts mentioning a user, newest first (at most the 800 most recent).
public struct GetMentions: XPagedEndpoint {
    /// The reference's name.
    public static let name = "GET /2/users/:id/mentions"
    /// The mentioned user.
    public var userID: String
    /// Only posts newer than this id.
    public var sinceID: String?
    /// Only posts older than this id.
    public var untilID: String?
    /// Posts per page, 5–100.
    public var maxResults: Int
    /// The page to fetch.
    public var paginationToken: String?
    /// The fields asked for (the replier's: no author expansion).
    public var fields: PostFields
    /// 5–100.
    public static let smallestPage = 5
    /// The account's own mentions: owned reads.
    public static let postOwnership = XPostOwnership.own

    /// The request for mentions of `userID`.
    public init(
        userID: String, sinceID: String? = nil, untilID: String? = nil, maxResults: Int = 100, paginationToken: String? = nil,
        fields: PostFields = .mentions
    ) {
        self.userID = userID
        self.sinceID = sinceID
        self.untilID = untilID
        self.maxResults = min(max(maxResults, 5), 100)
        self.paginationToken = paginationToken
        self.fields = fields
    }

    /// GET.
    public var method: HTTPMethodName { .GET }
    /// The path.
    public var path: String { "/2/users/\(userID)/mentions" }
    /// Paging, `since_id` and the post fields.
    public var query: [(String, String)] {
        timelineQuery(sinceID: sinceID, untilID: untilID, maxResults: maxResults, paginationToken: paginationToken, fields: fields)
    }
}
