/// `GET /2/users/:id/timelines/reverse_chronological`: the authenticated user's home timeline, newest first.
public struct GetHomeTimeline: XPagedEndpoint {
    /// The reference's name.
    public static let name = "GET /2/users/:id/timelines/reverse_chronological"
    /// The authenticated user.
    public var userID: String
    /// Only posts newer than this id.
    public var sinceID: String?
    /// Only posts older than this id.
    public var untilID: String?
    /// Posts per page, 1–100.
    public var maxResults: Int
    /// The page to fetch.
    public var paginationToken: String?
    /// What to leave out.
    public var exclude: Set<TimelineExclusion>
    /// The fields asked for (the favorite filter's: with authors).
    public var fields: PostFields
    /// 1–100.
    public static let smallestPage = 1
    /// Other people's posts: $0.005 each.
    public static let postOwnership = XPostOwnership.anyone

    /// The request for `userID`'s home timeline.
    public init(
        userID: String, sinceID: String? = nil, untilID: String? = nil, maxResults: Int = 100,
        paginationToken: String? = nil, exclude: Set<TimelineExclusion> = [], fields: PostFields = .classifier
    ) {
        self.userID = userID
        self.sinceID = sinceID
        self.untilID = untilID
        self.maxResults = min(max(maxResults, 1), 100)
        self.paginationToken = paginationToken
        self.exclude = exclude
        self.fields = fields
    }

    /// GET.
    public var method: HTTPMethodName { .GET }
    /// The path.
    public var path: String { "/2/users/\(userID)/timelines/reverse_chronological" }
    /// Paging, `since_id`, `exclude` and the post fields.
    public var query: [(String, String)] {
        timelineQuery(
            sinceID: sinceID, untilID: untilID, maxResults: maxResults, paginationToken: paginationToken, exclude: exclude,
            fields: fields)
    }
}
