/// `GET /api/v1/statuses/:id`: one status; 404 when it was deleted or the account may not see it.
public struct GetStatus: MastodonEndpoint {
    /// The status.
    public typealias Response = MastodonStatus
    /// The reference's name.
    public static let name = "GET /api/v1/statuses/:id"
    /// The status.
    public var statusID: String
    /// The request for `statusID`.
    public init(statusID: String) { self.statusID = statusID }
    /// GET.
    public var method: MastodonMethod { .GET }
    /// The path.
    public var path: String { "/api/v1/statuses/\(statusID)" }
}
