/// `GET /api/v1/timelines/home`: the statuses of the accounts the token's account follows, newest first.
public struct GetHomeTimeline: MastodonPagedEndpoint {
    /// A status.
    public typealias Item = MastodonStatus
    /// A page of statuses.
    public typealias Response = [MastodonStatus]
    /// The reference's name.
    public static let name = "GET /api/v1/timelines/home"
    /// Only statuses newer than this id.
    public var sinceID: String?
    /// Statuses a page, at most 40.
    public var limit: Int

    /// The request for the home timeline newer than `sinceID`.
    public init(sinceID: String? = nil, limit: Int = 40) {
        self.sinceID = sinceID
        self.limit = min(max(limit, 1), 40)
    }

    /// GET.
    public var method: MastodonMethod { .GET }
    /// The path.
    public var path: String { "/api/v1/timelines/home" }
    /// `limit`, `since_id`.
    public var query: [(String, String)] {
        var query = [("limit", String(limit))]
        if let sinceID { query.append(("since_id", sinceID)) }
        return query
    }
}
