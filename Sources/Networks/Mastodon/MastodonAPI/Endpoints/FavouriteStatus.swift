/// `POST /api/v1/statuses/:id/favourite`: favourites a status as the token's account (favouriting twice changes
/// nothing).
public struct FavouriteStatus: MastodonEndpoint {
    /// The status, now favourited.
    public typealias Response = MastodonStatus
    /// The reference's name.
    public static let name = "POST /api/v1/statuses/:id/favourite"
    /// The status.
    public var statusID: String
    /// The request to favourite `statusID`.
    public init(statusID: String) { self.statusID = statusID }
    /// POST.
    public var method: MastodonMethod { .POST }
    /// The path.
    public var path: String { "/api/v1/statuses/\(statusID)/favourite" }
    /// Favouriting is idempotent on the server.
    public var isIdempotent: Bool { true }
}
