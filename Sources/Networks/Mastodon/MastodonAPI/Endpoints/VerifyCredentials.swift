/// `GET /api/v1/accounts/verify_credentials`: the account the token belongs to (needs `read:accounts` or `read`).
public struct VerifyCredentials: MastodonEndpoint {
    /// The account.
    public typealias Response = MastodonAccount
    /// The reference's name.
    public static let name = "GET /api/v1/accounts/verify_credentials"
    /// GET.
    public var method: MastodonMethod { .GET }
    /// The path.
    public var path: String { "/api/v1/accounts/verify_credentials" }
    /// The request.
    public init() {}
}
