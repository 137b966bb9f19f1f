import FakeKit
import Foundation

/// OAuth 2 as Mastodon serves it: `POST /api/v1/apps`, the authorization page (`GET /oauth/authorize`, signed in and
/// approved by `POST /oauth/authorize`), `POST /oauth/token` (authorization code with PKCE) and `POST /oauth/revoke`.
/// A token bought with a code acts as the account that approved, with exactly the scopes it approved, in every
/// endpoint of the fake.
extension FakeMastodonWorld {
    /// `POST /api/v1/apps`: the application with its `client_id` and `client_secret` (`CredentialApplication`).
    func registerApplication(_ parameters: [String: [String]]) -> FakeMastodonResponse {
        switch oauth.register(parameters) {
        case .success(let application):
            return FakeMastodonResponse(
                status: 200,
                body: .object(
                    Self.applicationFields(application) + [
                        ("client_id", .string(application.clientID)), ("client_secret", .string(application.clientSecret)),
                        ("client_secret_expires_at", .int(0)),
                    ]))
        case .failure(let refusal): return refusal
        }
    }

    /// An application as `Application` shows it (`GET /api/v1/apps/verify_credentials`, and the start of `POST /api/v1/apps`).
    static func applicationFields(_ application: FakeMastodonOAuth.Application) -> [(String, JSONValue)] {
        [
            ("id", .string(application.id)), ("name", .string(application.name)), ("website", application.website.map(JSONValue.string) ?? .null),
            ("scopes", .array(application.scopes.map(JSONValue.string))),
            ("redirect_uri", .string(application.redirectURIs.joined(separator: "\n"))),
            ("redirect_uris", .array(application.redirectURIs.map(JSONValue.string))),
            ("vapid_key", .string("BCk-QqERU0q-CfYZjcuB6lnyyOYfJ2AifKqfeGIm7Z-HiTU5T9eTG5GxVA0_OH5mMlI4UkkDTpaZwozy0TzdZ2M=")),
        ]
    }

    /// `GET /oauth/authorize`'s checks of `query`: the request the page asks the person about, or why there is none.
    func authorizationRequest(_ query: [String: String]) -> Result<FakeMastodonOAuth.AuthorizationRequest, FakeMastodonOAuth.Refusal> {
        oauth.check(query)
    }

    /// `POST /oauth/authorize`: the person signs in with `username` and `password` (an account of this instance whose
    /// seed has that password) and approves the request of `form` (the page's fields); the code, or the page's refusal.
    func signInAndApprove(_ form: [String: String]) -> Result<
        (request: FakeMastodonOAuth.AuthorizationRequest, code: String), FakeMastodonOAuth.Refusal
    > {
        let request: FakeMastodonOAuth.AuthorizationRequest
        switch oauth.check(form) {
        case .success(let checked): request = checked
        case .failure(let refusal): return .failure(refusal)
        }
        guard let username = form["username"]?.lowercased(), let password = form["password"],
            let account = accounts.values.first(where: { $0.domain == nil && $0.username.lowercased() == username }),
            let known = account.password, FakeMastodonOAuth.constantTimeEqual(known, password)
        else {
            return .failure(FakeMastodonOAuth.Refusal(status: 401, error: "invalid_credentials", description: "Invalid username or password."))
        }
        return .success((request, oauth.approve(request, as: account.id, now: now)))
    }

    /// The person signed in as `accountID` approving the request of the authorization page at `address` (the
    /// `GET /oauth/authorize` address a client made): the code, or the page's refusal.
    func approve(authorizationAt address: URL, as accountID: String) -> Result<String, FakeMastodonOAuth.Refusal> {
        var query: [String: String] = [:]
        for item in URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        switch oauth.check(query) {
        case .success(let request):
            guard let account = accounts[accountID], account.domain == nil else {
                return .failure(
                    FakeMastodonOAuth.Refusal(status: 401, error: "invalid_credentials", description: "No account \(accountID) on this instance."))
            }
            return .success(oauth.approve(request, as: account.id, now: now))
        case .failure(let refusal): return .failure(refusal)
        }
    }

    /// `POST /oauth/token`: a new token for the code's account with the code's scopes (`Token`), or the OAuth error.
    func exchange(_ parameters: [String: String]) -> FakeMastodonResponse {
        switch oauth.exchange(parameters, now: now) {
        case .success(let grant):
            let token = FakeMastodonOAuth.randomToken()
            accessTokens[token] = AccessToken(accountID: grant.accountID, scopes: Set(grant.scopes), clientID: grant.clientID)
            return FakeMastodonResponse(
                status: 200,
                body: .object([
                    ("access_token", .string(token)), ("token_type", .string("Bearer")), ("scope", .string(grant.scopes.joined(separator: " "))),
                    ("created_at", .int(Int(now.timeIntervalSince1970))),
                ]))
        case .failure(let refusal): return Self.oauthError(refusal)
        }
    }

    /// `POST /oauth/revoke`: the client authenticates by its id and secret; it may revoke its own tokens and those made
    /// with no application (the seed's); an unknown token is answered `{}` too (RFC 7009 §2.2).
    func revoke(_ parameters: [String: String]) -> FakeMastodonResponse {
        guard let client = oauth.application(clientID: parameters["client_id"], clientSecret: parameters["client_secret"]) else {
            return Self.oauthError(.invalidClient)
        }
        guard let token = parameters["token"], let access = accessTokens[token] else { return FakeMastodonResponse(status: 200, body: .object([])) }
        guard access.clientID == nil || access.clientID == client.clientID else { return Self.oauthError(.unauthorizedClient) }
        revokeTokens { $0 == token }
        return FakeMastodonResponse(status: 200, body: .object([]))
    }

    /// Revokes every token of `accountID`, as its owner revoking the apps under Preferences → Account → Authorized
    /// apps; returns how many were live.
    func revokeAuthorizations(of accountID: String) -> Int {
        revokeTokens { accessTokens[$0]?.accountID == accountID }
    }

    /// Whether `token` is known and not revoked (an open stream ends when its token is revoked, as Mastodon's
    /// streaming server is told to end it).
    func isLive(token: String) -> Bool { accessTokens[token].map { !$0.revoked } ?? false }

    /// How many tokens of `accountID` are live.
    func liveTokens(of accountID: String) -> Int { accessTokens.values.count { $0.accountID == accountID && !$0.revoked } }

    /// Revokes the live tokens `matches` picks, and wakes the open streams so that theirs end; returns how many.
    @discardableResult
    private func revokeTokens(where matches: (String) -> Bool) -> Int {
        let revoked = accessTokens.keys.filter { matches($0) && accessTokens[$0]?.revoked == false }
        for token in revoked { accessTokens[token]?.revoked = true }
        Task { [bell] in await bell.ring() }
        return revoked.count
    }

    /// An OAuth error's answer: `{"error", "error_description"}` with its status.
    static func oauthError(_ refusal: FakeMastodonOAuth.Refusal) -> FakeMastodonResponse {
        FakeMastodonResponse(
            status: refusal.status, body: .object([("error", .string(refusal.error)), ("error_description", .string(refusal.description))]))
    }
}
