import Crypto
import Foundation

/// Mastodon's OAuth 2 authorization server as the fake instance keeps it (Mastodon's is Doorkeeper, and the checks,
/// their order and their error pairs are Doorkeeper's): applications registered by `POST /api/v1/apps` with their
/// redirect URIs and scopes; authorization requests checked as `GET /oauth/authorize` checks them; codes that work
/// once, for 10 minutes of the instance's clock, for the application, redirect URI, scopes and PKCE challenge they
/// were made for. The tokens a code buys are the world's (`FakeMastodonWorld.accessTokens`).
struct FakeMastodonOAuth {
    /// A registered application.
    struct Application {
        var id: String
        var name: String
        var website: String?
        var clientID: String
        var clientSecret: String
        var redirectURIs: [String]
        var scopes: [String]
    }

    /// An authorization request that passed the page's checks.
    struct AuthorizationRequest {
        var application: Application
        var redirectURI: String
        var scopes: [String]
        var state: String?
        var codeChallenge: String?
    }

    /// A code and what it was made for.
    struct Grant {
        var clientID: String
        var accountID: String
        var redirectURI: String
        var scopes: [String]
        var codeChallenge: String?
        var expiresAt: Date
        var used = false
    }

    /// An OAuth error (RFC 6749 §4.1.2.1, §5.2): its code, the description Doorkeeper gives, and the HTTP status.
    struct Refusal: Error {
        var status: Int
        var error: String
        var description: String

        static let invalidClient = Refusal(
            status: 401, error: "invalid_client",
            description:
                "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.")
        static let invalidGrant = Refusal(
            status: 400, error: "invalid_grant",
            description:
                "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client."
        )
        static let invalidScope = Refusal(status: 400, error: "invalid_scope", description: "The requested scope is invalid, unknown, or malformed.")
        static let invalidRedirectURI = Refusal(
            status: 400, error: "invalid_redirect_uri",
            description: "The requested redirect uri is malformed or doesn't match client redirect URI.")
        static let unsupportedResponseType = Refusal(
            status: 400, error: "unsupported_response_type",
            description: "The authorization server does not support this response type.")
        static let unsupportedGrantType = Refusal(
            status: 400, error: "unsupported_grant_type",
            description: "The authorization grant type is not supported by the authorization server.")
        static let invalidCodeChallengeMethod = Refusal(
            status: 400, error: "invalid_code_challenge_method",
            description: "The code_challenge_method must be S256.")
        static let unauthorizedClient = Refusal(status: 403, error: "unauthorized_client", description: "You are not authorized to revoke this token")
        static func missing(_ parameter: String) -> Refusal {
            Refusal(status: 400, error: "invalid_request", description: "Missing required parameter: \(parameter).")
        }
    }

    /// The redirect URI that shows the code instead of sending it.
    static let outOfBand = "urn:ietf:wg:oauth:2.0:oob"
    /// How long a code works: Doorkeeper's default, which Mastodon keeps.
    static let codeLifetime: TimeInterval = 600
    /// The scopes Mastodon knows (its OpenAPI document's list).
    static let knownScopes: Set<String> = {
        let areas = ["accounts", "blocks", "bookmarks", "favourites", "filters", "follows", "lists", "mutes", "notifications", "search", "statuses"]
        let readScopes = areas.map { "read:\($0)" }
        let writeScopes = (areas.filter { $0 != "search" } + ["conversations", "media", "reports"]).map { "write:\($0)" }
        return Set(["read", "write", "follow", "push", "profile", "admin:read", "admin:write"] + readScopes + writeScopes)
    }()

    /// The registered applications, by `client_id`.
    private(set) var applications: [String: Application] = [:]
    /// The codes made, by code.
    private var grants: [String: Grant] = [:]

    // MARK: - POST /api/v1/apps

    /// Registers an application from the request's parameters (`client_name`, `redirect_uris` as an array or a
    /// whitespace-separated string, `scopes` space-separated, default `read`, `website`); the validation error's
    /// sentence when they are not acceptable.
    mutating func register(_ parameters: [String: [String]]) -> Result<Application, FakeMastodonResponse> {
        let name = parameters["client_name"]?.first?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !name.isEmpty else { return .failure(FakeMastodonWorld.error(422, "Validation failed: Application name can't be blank")) }
        let redirectURIs = (parameters["redirect_uris"] ?? []).flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
        guard !redirectURIs.isEmpty else { return .failure(FakeMastodonWorld.error(422, "Validation failed: Redirect URI can't be blank")) }
        for uri in redirectURIs where uri != Self.outOfBand {
            guard let url = URL(string: uri), url.scheme != nil, url.fragment == nil else {
                return .failure(FakeMastodonWorld.error(422, "Validation failed: Redirect URI must be an absolute URI."))
            }
        }
        let scopes = Self.scopes(parameters["scopes"]?.first)
        guard !scopes.isEmpty, scopes.allSatisfy(Self.knownScopes.contains) else {
            return .failure(FakeMastodonWorld.error(422, "Validation failed: Scopes doesn't match configured on the server."))
        }
        let application = Application(
            id: String(applications.count + 1), name: name, website: parameters["website"]?.first,
            clientID: Self.randomToken(), clientSecret: Self.randomToken(), redirectURIs: redirectURIs, scopes: scopes)
        applications[application.clientID] = application
        return .success(application)
    }

    /// The application whose `client_id` and `client_secret` these are.
    func application(clientID: String?, clientSecret: String?) -> Application? {
        guard let clientID, let application = applications[clientID], let clientSecret,
            Self.constantTimeEqual(application.clientSecret, clientSecret)
        else { return nil }
        return application
    }

    // MARK: - GET /oauth/authorize

    /// The request of an authorization page's query (or its form), checked in Doorkeeper's order: the client, the
    /// redirect URI (one the application registered), the response type, the scopes (within the application's; `read`
    /// when none are asked for) and PKCE's method (S256 only).
    func check(_ query: [String: String]) -> Result<AuthorizationRequest, Refusal> {
        guard let clientID = query["client_id"], !clientID.isEmpty else { return .failure(.missing("client_id")) }
        guard let application = applications[clientID] else { return .failure(.invalidClient) }
        guard let redirectURI = query["redirect_uri"], !redirectURI.isEmpty else { return .failure(.missing("redirect_uri")) }
        guard application.redirectURIs.contains(redirectURI) else { return .failure(.invalidRedirectURI) }
        guard let responseType = query["response_type"], !responseType.isEmpty else { return .failure(.missing("response_type")) }
        guard responseType == "code" else { return .failure(.unsupportedResponseType) }
        let scopes = Self.scopes(query["scope"])
        guard !scopes.isEmpty, scopes.allSatisfy(application.scopes.contains) else { return .failure(.invalidScope) }
        let challenge = query["code_challenge"].flatMap { $0.isEmpty ? nil : $0 }
        if challenge != nil, query["code_challenge_method"] != "S256" { return .failure(.invalidCodeChallengeMethod) }
        return .success(
            AuthorizationRequest(
                application: application, redirectURI: redirectURI, scopes: scopes, state: query["state"],
                codeChallenge: challenge))
    }

    /// The code for `request`, approved by `accountID` at `now`.
    mutating func approve(_ request: AuthorizationRequest, as accountID: String, now: Date) -> String {
        let code = Self.randomToken()
        grants[code] = Grant(
            clientID: request.application.clientID, accountID: accountID, redirectURI: request.redirectURI, scopes: request.scopes,
            codeChallenge: request.codeChallenge, expiresAt: now.addingTimeInterval(Self.codeLifetime))
        return code
    }

    // MARK: - POST /oauth/token

    /// The grant a token request may have, checked in Doorkeeper's order: the grant type; the parameters (a code; a
    /// `code_verifier` when the code was made with a challenge; a redirect URI); the client's id and secret
    /// (`invalid_client`); the code (`invalid_grant`: unknown, another application's, expired or used); the redirect
    /// URI; the verifier against the challenge. The code is used up only by a request that passes.
    mutating func exchange(_ parameters: [String: String], now: Date) -> Result<Grant, Refusal> {
        guard let grantType = parameters["grant_type"], !grantType.isEmpty else { return .failure(.missing("grant_type")) }
        guard grantType == "authorization_code" else { return .failure(.unsupportedGrantType) }
        guard let code = parameters["code"], !code.isEmpty else { return .failure(.missing("code")) }
        let grant = grants[code]
        let verifier = parameters["code_verifier"].flatMap { $0.isEmpty ? nil : $0 }
        if grant?.codeChallenge != nil, verifier == nil { return .failure(.missing("code_verifier")) }
        guard let redirectURI = parameters["redirect_uri"], !redirectURI.isEmpty else { return .failure(.missing("redirect_uri")) }
        guard let client = application(clientID: parameters["client_id"], clientSecret: parameters["client_secret"]) else {
            return .failure(.invalidClient)
        }
        guard let grant, grant.clientID == client.clientID, !grant.used, now < grant.expiresAt else { return .failure(.invalidGrant) }
        guard grant.redirectURI == redirectURI else { return .failure(.invalidGrant) }
        if let challenge = grant.codeChallenge {
            guard let verifier, Self.constantTimeEqual(Self.s256(verifier), challenge) else { return .failure(.invalidGrant) }
        }
        grants[code]?.used = true
        return .success(grant)
    }

    // MARK: - Helpers

    /// A scope list as sent (space-separated, or `+`-separated in a query), `read` when none.
    static func scopes(_ text: String?) -> [String] {
        let scopes = (text ?? "").split(whereSeparator: { $0 == " " || $0 == "+" }).map(String.init)
        return scopes.isEmpty ? ["read"] : scopes
    }

    /// PKCE's S256: `base64url(SHA-256(verifier))` without padding (RFC 7636 §4.2), computed here on its own so that a
    /// client's mistake in it is caught.
    static func s256(_ verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// 32 random bytes in base64url: a client id, a secret, a code or a token (Doorkeeper's are the same length).
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Whether two secrets are equal, compared in time that does not depend on where they differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
