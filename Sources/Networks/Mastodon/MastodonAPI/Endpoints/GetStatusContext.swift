/// `GET /api/v1/statuses/:id/context`: the statuses above and below one in its thread. mirror_bot reads the
/// ancestors' first, the thread's root, to count its answers per conversation (Mastodon's statuses carry no
/// conversation id).
public struct GetStatusContext: MastodonEndpoint {
    /// The thread around the status.
    public typealias Response = MastodonContext
    /// The reference's name.
    public static let name = "GET /api/v1/statuses/:id/context"
    /// The status.
    public var statusID: String
    /// The request for the thread around `statusID`.
    public init(statusID: String) { self.statusID = statusID }
    /// GET.
    public var method: MastodonMethod { .GET }
    /// The path.
    public var path: String { "/api/v1/statuses/\(statusID)/context" }
}
