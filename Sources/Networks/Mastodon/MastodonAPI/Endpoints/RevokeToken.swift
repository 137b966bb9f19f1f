/// `POST /oauth/revoke`: makes an access token of the application useless; the API then answers 401 to it. Revoking
/// a token that is unknown or revoked already answers 200 too (RFC 7009), so it may be sent again.
public struct RevokeToken: MastodonEndpoint {
    /// An empty object.
    public typealias Response = MastodonEmptyObject
    /// The reference's name.
    public static let name = "POST /oauth/revoke"
    /// `client_id` of the application the token was made for.
    public var clientID: String
    /// `client_secret`.
    public var clientSecret: String
    /// `token`.
    public var token: String

    /// The request to revoke `token`, as the application `clientID`.
    public init(clientID: String, clientSecret: String, token: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.token = token
    }

    /// POST.
    public var method: MastodonMethod { .POST }
    /// The path.
    public var path: String { "/oauth/revoke" }
    /// `{"client_id", "client_secret", "token"}`.
    public var body: [String: MastodonBodyValue]? {
        ["client_id": .string(clientID), "client_secret": .string(clientSecret), "token": .string(token)]
    }
    /// Revoking twice leaves it revoked.
    public var isIdempotent: Bool { true }
}
