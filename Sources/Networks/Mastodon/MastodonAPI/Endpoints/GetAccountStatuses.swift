/// `GET /api/v1/accounts/:id/statuses`: an account's statuses, newest first; `since_id` for only newer ones, the
/// `Link` header's `next` for older pages. mirror_bot leaves boosts out (`exclude_reblogs`).
public struct GetAccountStatuses: MastodonPagedEndpoint {
    /// A status.
    public typealias Item = MastodonStatus
    /// A page of statuses.
    public typealias Response = [MastodonStatus]
    /// The reference's name.
    public static let name = "GET /api/v1/accounts/:id/statuses"
    /// The account.
    public var accountID: String
    /// Only statuses newer than this id.
    public var sinceID: String?
    /// Statuses a page, at most 40.
    public var limit: Int
    /// Whether boosts are left out.
    public var excludeReblogs: Bool

    /// The request for `accountID`'s statuses.
    public init(accountID: String, sinceID: String? = nil, limit: Int = 40, excludeReblogs: Bool = true) {
        self.accountID = accountID
        self.sinceID = sinceID
        self.limit = min(max(limit, 1), 40)
        self.excludeReblogs = excludeReblogs
    }

    /// GET.
    public var method: MastodonMethod { .GET }
    /// The path.
    public var path: String { "/api/v1/accounts/\(accountID)/statuses" }
    /// `limit`, `since_id`, `exclude_reblogs`.
    public var query: [(String, String)] {
        var query = [("limit", String(limit))]
        if let sinceID { query.append(("since_id", sinceID)) }
        if excludeReblogs { query.append(("exclude_reblogs", "true")) }
        return query
    }
}
