/// `POST /oauth/token` with `grant_type=authorization_code`: exchanges the code the account's owner got from
/// `GET /oauth/authorize` for an access token acting as that account, with the scopes the code granted. The code
/// works once, for 10 minutes, for the application and `redirect_uri` it was made for, and with PKCE only with the
/// `code_verifier` whose challenge was sent. Refusals are OAuth errors (`invalid_grant`, `invalid_client`, …).
public struct ObtainToken: MastodonEndpoint {
    /// The token.
    public typealias Response = MastodonToken
    /// The reference's name.
    public static let name = "POST /oauth/token"
    /// `client_id`.
    public var clientID: String
    /// `client_secret`.
    public var clientSecret: String
    /// `code`: as the instance showed or redirected it.
    public var code: String
    /// `redirect_uri`: the one of the authorization request.
    public var redirectURI: String
    /// `code_verifier`: PKCE's secret whose challenge the authorization request sent (nil: none was sent).
    public var codeVerifier: String?

    /// The request to exchange `code` for a token, as the application `clientID`.
    public init(clientID: String, clientSecret: String, code: String, redirectURI: String, codeVerifier: String?) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.code = code
        self.redirectURI = redirectURI
        self.codeVerifier = codeVerifier
    }

    /// POST.
    public var method: MastodonMethod { .POST }
    /// The path.
    public var path: String { "/oauth/token" }
    /// `{"grant_type": "authorization_code", "code", "client_id", "client_secret", "redirect_uri", "code_verifier"}`.
    public var body: [String: MastodonBodyValue]? {
        var body: [String: MastodonBodyValue] = [
            "grant_type": .string("authorization_code"), "code": .string(code), "client_id": .string(clientID),
            "client_secret": .string(clientSecret), "redirect_uri": .string(redirectURI),
        ]
        if let codeVerifier { body["code_verifier"] = .string(codeVerifier) }
        return body
    }
}
