import BotCore
import Foundation
import XAPI

/// OAuth 1.0a as X serves it (`/oauth/request_token`, `/oauth/authorize`, `/oauth/access_token`): signed with the
/// app's consumer key (and the request token's secret for the exchange); `oauth_callback=oob` for the PIN flow (a PIN
/// shown per authorization), or a web app's callback address (`http(s)://`, taken as one of the app's callback URLs:
/// the fake keeps no list), to which the approval sends the browser with `oauth_token` and `oauth_verifier` (a
/// cancel, with `denied`). Each request token is good for one exchange. The access token made is an account's like
/// the seed's.
extension FakeXWorld {
    /// A request token waiting for its authorization, then its exchange.
    struct PendingAuthorization {
        var consumerKey: String
        var secret: String
        var userID: String?
        var pin: String?
        /// Where the browser goes once approved; nil for the PIN flow.
        var callback: URL? = nil
    }

    /// `POST /oauth/request_token`: form-encoded `oauth_token`, `oauth_token_secret`, `oauth_callback_confirmed`.
    func requestToken(method: String, url: URL, authorization: String?) -> (status: Int, body: String) {
        guard let fields = authorization.flatMap(OAuthHeader.parse), let consumerKey = fields["oauth_consumer_key"],
            let consumerSecret = consumerSecret(of: consumerKey), fields["oauth_token"] == nil,
            checkSignature(fields, method: method, url: url, consumerSecret: consumerSecret, tokenSecret: "")
        else {
            return (401, "Invalid consumer key or signature")
        }
        var callback: URL?
        if fields["oauth_callback"] != "oob" {
            guard let address = fields["oauth_callback"].flatMap(URL.init(string:)), ["http", "https"].contains(address.scheme), address.host != nil
            else { return (401, "Callback URL not approved for this client application: oob, or an http(s) address") }
            callback = address
        }
        let token = Self.randomToken()
        let secret = Self.randomToken()
        pendingAuthorizations[token] = PendingAuthorization(consumerKey: consumerKey, secret: secret, callback: callback)
        return (200, "oauth_token=\(token)&oauth_token_secret=\(secret)&oauth_callback_confirmed=true")
    }

    /// `GET /oauth/authorize?oauth_token=`: the page where the logged-in account approves the app and reads its PIN,
    /// or, for a web app's request token, is sent back to its callback (`decision=deny`: cancelled). The fake logs in as
    /// `screen_name` when given, else as the account whose app it is.
    func authorize(query: [String: String]) -> (status: Int, body: String, location: String?) {
        let answer = authorizePage(query: query)
        guard answer.status == 200, let token = query["oauth_token"], let pending = pendingAuthorizations[token], let callback = pending.callback
        else { return (answer.status, answer.body, nil) }
        let items =
            query["decision"] == "deny"
            ? [URLQueryItem(name: "denied", value: token)]
            : [URLQueryItem(name: "oauth_token", value: token), URLQueryItem(name: "oauth_verifier", value: pending.pin)]
        if query["decision"] == "deny" { pendingAuthorizations[token] = nil }
        return (302, "", callback.appending(queryItems: items).absoluteString)
    }

    private func authorizePage(query: [String: String]) -> (status: Int, body: String) {
        guard let token = query["oauth_token"], var pending = pendingAuthorizations[token] else {
            return (400, "<html><body><p>This page is no longer valid. Go back to the application and start again.</p></body></html>")
        }
        let user =
            query["screen_name"].flatMap { name in users.values.first { $0.username.lowercased() == name.lowercased() } }
            ?? accountsByConsumerKey(pending.consumerKey).flatMap { users[$0.userID] }
        guard let user else { return (400, "<html><body><p>No account is logged in.</p></body></html>") }
        let pin = String(format: "%07d", Int.random(in: 0..<10_000_000))
        pending.userID = user.id
        pending.pin = pin
        pendingAuthorizations[token] = pending
        return (
            200,
            "<html><body><p>You have authorized the app as @\(user.username). Enter this PIN to complete the authorization:</p><code id=\"oauth_pin\">\(pin)</code></body></html>"
        )
    }

    /// `POST /oauth/access_token` with `oauth_verifier`: the account's new access token.
    func accessToken(method: String, url: URL, authorization: String?) -> (status: Int, body: String) {
        guard let fields = authorization.flatMap(OAuthHeader.parse), let consumerKey = fields["oauth_consumer_key"],
            let consumerSecret = consumerSecret(of: consumerKey), let token = fields["oauth_token"],
            let pending = pendingAuthorizations[token], pending.consumerKey == consumerKey,
            checkSignature(fields, method: method, url: url, consumerSecret: consumerSecret, tokenSecret: pending.secret)
        else {
            return (401, "Invalid request token or signature")
        }
        guard let userID = pending.userID, let pin = pending.pin, fields["oauth_verifier"] == pin, let user = users[userID] else {
            return (401, "Error processing your OAuth request: Invalid oauth_verifier parameter")
        }
        pendingAuthorizations[token] = nil
        let account = FakeXSeed.Account(
            userID: userID, consumerKey: consumerKey, consumerSecret: consumerSecret,
            accessToken: "\(userID)-\(Self.randomToken())", accessTokenSecret: Self.randomToken())
        addAccount(account)
        return (
            200, "oauth_token=\(account.accessToken)&oauth_token_secret=\(account.accessTokenSecret)&user_id=\(userID)&screen_name=\(user.username)"
        )
    }

    /// Whether `fields` carry a fresh nonce and the signature of the request with these secrets.
    private func checkSignature(_ fields: [String: String], method: String, url: URL, consumerSecret: String, tokenSecret: String) -> Bool {
        guard let consumerKey = fields["oauth_consumer_key"], let nonce = fields["oauth_nonce"], let signature = fields["oauth_signature"],
            fields["oauth_signature_method"] == "HMAC-SHA1", let timestamp = fields["oauth_timestamp"].flatMap({ Int($0) }),
            abs(Date().timeIntervalSince1970 - Double(timestamp)) < 900, useNonce(consumerKey + nonce)
        else { return false }
        return OAuthHeader.signature(method: method, url: url, fields: fields, consumerSecret: consumerSecret, tokenSecret: tokenSecret) == signature
    }

    static func randomToken() -> String {
        String((0..<32).map { _ in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
    }
}
