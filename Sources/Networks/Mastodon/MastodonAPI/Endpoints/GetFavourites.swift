/// `GET /api/v1/favourites`: the statuses the token's account favourited, most recently favourited first. Paged by
/// the `Link` header only (its ids are the favourites', not the statuses'): a reader stops at statuses it knows.
public struct GetFavourites: MastodonPagedEndpoint {
    /// A status.
    public typealias Item = MastodonStatus
    /// A page of statuses.
    public typealias Response = [MastodonStatus]
    /// The reference's name.
    public static let name = "GET /api/v1/favourites"
    /// Statuses a page, at most 40.
    public var limit: Int

    /// The request.
    public init(limit: Int = 40) { self.limit = min(max(limit, 1), 40) }

    /// GET.
    public var method: MastodonMethod { .GET }
    /// The path.
    public var path: String { "/api/v1/favourites" }
    /// `limit`.
    public var query: [(String, String)] { [("limit", String(limit))] }
}
