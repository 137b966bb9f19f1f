public import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// OAuth 1.0a's PIN-based ("out-of-band") flow, the way an X account that does not own the app gets access tokens
/// for it: a request token (`POST /oauth/request_token`, `oauth_callback=oob`), the authorize page where the
/// account's owner, logged in as that account, approves the app and reads a PIN (`/oauth/authorize`), and the PIN
/// exchanged for the account's access token and secret (`POST /oauth/access_token`). Signed with the app's consumer
/// key and secret.
public struct PINAuthorization: Sendable {
    /// A request token: good for one authorization, for a few minutes.
    public struct RequestToken: Sendable, Equatable {
        /// `oauth_token`.
        public var token: String
        /// `oauth_token_secret`.
        public var secret: String
    }

    /// What the account authorized: its access token and secret, and who it is.
    public struct AccessToken: Sendable, Equatable {
        /// `oauth_token`: the `*_ACCESS_TOKEN` variable.
        public var token: String
        /// `oauth_token_secret`: the `*_ACCESS_TOKEN_SECRET` variable.
        public var secret: String
        /// The account's user id.
        public var userID: String
        /// The account's handle, without `@`.
        public var screenName: String
    }

    /// The API's base URL (`X_API_BASE_URL`); the OAuth endpoints are beside `/2`.
    public let baseURL: URL
    /// The app's API key.
    public let consumerKey: String
    /// The app's API key secret.
    public let consumerSecret: String
    private let httpClient: HTTPClient

    /// The flow for the app `consumerKey` at `baseURL`.
    public init(baseURL: URL, consumerKey: String, consumerSecret: String, httpClient: HTTPClient = XClient.sharedHTTPClient) {
        self.baseURL = baseURL
        self.consumerKey = consumerKey
        self.consumerSecret = consumerSecret
        self.httpClient = httpClient
    }

    /// Step 1: a request token for the PIN flow (`callback` `oob`), or for a web app's, X sending the browser back to
    /// `callback` with `oauth_token` and `oauth_verifier` (the address must be one of the app's callback URLs).
    public func requestToken(callback: String = "oob") async throws -> RequestToken {
        let fields = try await post(
            "oauth/request_token",
            OAuth1.ProtocolParameters(
                consumerKey: consumerKey, token: "", nonce: OAuth1.makeNonce(), timestamp: Int(Date().timeIntervalSince1970), callback: callback),
            tokenSecret: "",
            refusal:
                "X refused the app's API key and secret (the *_CONSUMER_KEY and *_CONSUMER_SECRET variables): check them in the developer portal, under Keys and tokens"
        )
        guard let token = fields["oauth_token"], let secret = fields["oauth_token_secret"] else {
            throw PINAuthorizationError(reason: "X's answer to oauth/request_token has no oauth_token")
        }
        guard callback == "oob" || fields["oauth_callback_confirmed"] == "true" else {
            throw PINAuthorizationError(reason: "X did not confirm the callback address \(callback): add it to the app's callback URLs")
        }
        return RequestToken(token: token, secret: secret)
    }

    /// Step 2: the page to open, logged in as the account to authorize.
    public func authorizeURL(for request: RequestToken) -> URL {
        baseURL.appending(path: "oauth/authorize").appending(queryItems: [URLQueryItem(name: "oauth_token", value: request.token)])
    }

    /// Step 3: the PIN the page showed, exchanged for the account's access token.
    public func accessToken(for request: RequestToken, pin: String) async throws -> AccessToken {
        let fields = try await post(
            "oauth/access_token",
            OAuth1.ProtocolParameters(
                consumerKey: consumerKey, token: request.token, nonce: OAuth1.makeNonce(), timestamp: Int(Date().timeIntervalSince1970),
                verifier: pin.trimmingCharacters(in: .whitespacesAndNewlines)),
            tokenSecret: request.secret,
            refusal: "X did not accept the PIN: it was mistyped or has expired (a request token lasts minutes); run the command again")
        guard let token = fields["oauth_token"], let secret = fields["oauth_token_secret"] else {
            throw PINAuthorizationError(reason: "X's answer to oauth/access_token has no oauth_token")
        }
        return AccessToken(token: token, secret: secret, userID: fields["user_id"] ?? "?", screenName: fields["screen_name"] ?? "?")
    }

    /// POSTs a signed OAuth request to `path` and returns the form-encoded answer's fields.
    private func post(_ path: String, _ parameters: OAuth1.ProtocolParameters, tokenSecret: String, refusal: String) async throws -> [String: String]
    {
        let url = baseURL.appending(path: path)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(
            name: "Authorization",
            value: OAuth1.authorizationHeader(
                method: "POST", url: url, parameters: parameters,
                consumerSecret: consumerSecret, tokenSecret: tokenSecret))
        request.headers.add(name: "User-Agent", value: "mirror_bot")
        let response: HTTPClientResponse
        let body: Data
        do {
            response = try await httpClient.execute(request, timeout: .seconds(30))
            body = Data(buffer: try await response.body.collect(upTo: 1 << 16))
        } catch {
            throw PINAuthorizationError(reason: "X's \(path) did not answer (\(error)); check the network and X_API_BASE_URL")
        }
        let text = String(decoding: body, as: UTF8.self)
        switch response.status.code {
        case 200: return Self.formFields(text)
        case 401, 403: throw PINAuthorizationError(reason: "\(refusal) (HTTP \(response.status.code): \(text.prefix(200)))")
        default: throw PINAuthorizationError(reason: "X answered \(path) with HTTP \(response.status.code): \(text.prefix(200))")
        }
    }

    /// `a=1&b=2`, percent-decoded.
    static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentEncoding.decode(parts[0], plusIsSpace: true) else { continue }
            fields[name] = parts.count > 1 ? PercentEncoding.decode(parts[1], plusIsSpace: true) ?? String(parts[1]) : ""
        }
        return fields
    }
}

/// Why the PIN flow stopped, as a sentence that says what to do.
public struct PINAuthorizationError: Error, CustomStringConvertible {
    /// The sentence.
    public var reason: String
    /// The sentence.
    public var description: String { reason }
}
