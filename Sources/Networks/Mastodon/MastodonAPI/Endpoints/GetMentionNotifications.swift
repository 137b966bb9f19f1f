/// `GET /api/v1/notifications?types[]=mention`: the statuses that mention the token's account, as notifications,
/// newest first; `since_id` (a notification id) for only newer ones.
public struct GetMentionNotifications: MastodonPagedEndpoint {
    /// A notification.
    public typealias Item = MastodonNotification
    /// A page of notifications.
    public typealias Response = [MastodonNotification]
    /// The reference's name.
    public static let name = "GET /api/v1/notifications"
    /// Only notifications newer than this id.
    public var sinceID: String?
    /// Notifications a page, at most 80.
    public var limit: Int

    /// The request for mentions newer than `sinceID`.
    public init(sinceID: String? = nil, limit: Int = 40) {
        self.sinceID = sinceID
        self.limit = min(max(limit, 1), 80)
    }

    /// GET.
    public var method: MastodonMethod { .GET }
    /// The path.
    public var path: String { "/api/v1/notifications" }
    /// `types[]=mention`, `limit`, `since_id`.
    public var query: [(String, String)] {
        var query = [("types[]", "mention"), ("limit", String(limit))]
        if let sinceID { query.append(("since_id", sinceID)) }
        return query
    }
}
