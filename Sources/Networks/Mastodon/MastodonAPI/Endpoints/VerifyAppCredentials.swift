/// `GET /api/v1/apps/verify_credentials`: the application a token was made with, and its scopes (Mastodon 4.3 and
/// later say them); `doctor` checks them.
public struct VerifyAppCredentials: MastodonEndpoint {
    /// The application.
    public typealias Response = MastodonApplication
    /// The reference's name.
    public static let name = "GET /api/v1/apps/verify_credentials"
    /// GET.
    public var method: MastodonMethod { .GET }
    /// The path.
    public var path: String { "/api/v1/apps/verify_credentials" }
    /// The request.
    public init() {}
}
