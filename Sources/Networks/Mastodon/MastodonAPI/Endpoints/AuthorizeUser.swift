public import Foundation

/// `GET /oauth/authorize`: the page where the account's owner, signed in on the instance, approves an application;
/// the instance then redirects to `redirect_uri` with a code, or shows the code for `urn:ietf:wg:oauth:2.0:oob`.
/// A browser opens it, not the client: this type makes its address.
public struct AuthorizeUser: Sendable {
    /// The reference's name.
    public static let name = "GET /oauth/authorize"
    /// `client_id`, from `POST /api/v1/apps`.
    public var clientID: String
    /// `redirect_uri`: one of the application's registered URIs.
    public var redirectURI: String
    /// `scope`: what the code will grant, within the application's registered scopes.
    public var scopes: [String]
    /// `code_challenge`: PKCE's S256 challenge (Mastodon 4.3 and later), `base64url(SHA-256(code_verifier))`.
    public var codeChallenge: String?
    /// `state`: passed back with the redirect, for a client that receives one (none with the out-of-band URI).
    public var state: String?
    /// `force_login`: the instance asks for a sign-in even when the browser is signed in already, so that an account
    /// other than the browser's can be chosen.
    public var forceLogin: Bool

    /// The request for `clientID`'s code at `redirectURI`, granting `scopes`.
    public init(clientID: String, redirectURI: String, scopes: [String], codeChallenge: String? = nil, state: String? = nil, forceLogin: Bool = false)
    {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.codeChallenge = codeChallenge
        self.state = state
        self.forceLogin = forceLogin
    }

    /// `response_type=code`, `client_id`, `redirect_uri`, `scope` (space-separated), and when set `code_challenge`
    /// with `code_challenge_method=S256`, `state` and `force_login=true`.
    public var query: [(String, String)] {
        var query = [("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", scopes.joined(separator: " "))]
        if let codeChallenge { query += [("code_challenge", codeChallenge), ("code_challenge_method", "S256")] }
        if let state { query.append(("state", state)) }
        if forceLogin { query.append(("force_login", "true")) }
        return query
    }

    /// The page's address on `instance`; nil when `instance` is not a URL.
    public func address(on instance: URL) -> URL? {
        guard var components = URLComponents(url: instance, resolvingAgainstBaseURL: false) else { return nil }
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + "/oauth/authorize"
        components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        // A scope list's spaces are sent as %20, a `+` in a value (none in base64url) encoded.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url
    }
}
