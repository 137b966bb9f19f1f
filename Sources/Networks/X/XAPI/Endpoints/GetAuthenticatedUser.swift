/// `GET /2/users/me`: the user the credentials belong to.
public struct GetAuthenticatedUser: XEndpoint {
    /// The user.
    public typealias Response = XSingleResponse<XUser>
    /// The reference's name.
    public static let name = "GET /2/users/me"
    /// GET.
    public var method: HTTPMethodName { .GET }
    /// The path.
    public var path: String { "/2/users/me" }
    /// `user.fields=description` (the id, name and username always come): the bio, for the automation rules' check,
    /// in the same user read.
    public var query: [(String, String)] { [("user.fields", "description")] }
    /// The endpoint.
    public init() {}
    /// One user read.
    public var billing: XCallBilling { XCallBilling(users: 1) }
    /// The user returned.
    public static func billedResources(in response: Response) -> XBilledResources {
        XBilledResources(users: response.data.map { [$0.id] } ?? [])
    }
}
