/// `GET /api/v2/instance`: the instance's description; mirror_bot reads its longest status.
public struct GetInstance: MastodonEndpoint {
    /// The instance.
    public typealias Response = MastodonInstance
    /// The reference's name.
    public static let name = "GET /api/v2/instance"
    /// GET.
    public var method: MastodonMethod { .GET }
    /// The path.
    public var path: String { "/api/v2/instance" }
    /// The request.
    public init() {}
}
