public import AsyncHTTPClient
import BotCore
public import Foundation
public import HTTPCore
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// atproto OAuth as a loopback client: how a person signs in on Bluesky from the command line, as themselves, without
/// giving the mirror a password. The client needs no hosted metadata: its `client_id` is `http://localhost` with its
/// redirect address and scope in the query, as the atproto OAuth profile allows for programs on the person's own
/// machine. From the web front door it is a confidential client (`ConfidentialClient`) instead, whose metadata the
/// door serves and whose requests carry its signed assertion. The steps, each as the profile asks:
/// 1. the authorization server, from the PDS's `/.well-known/oauth-protected-resource` (or the service itself), and
///    its metadata (`/.well-known/oauth-authorization-server`), whose `issuer` must be the server asked;
/// 2. a pushed authorization request (PAR, RFC 9126) with PKCE S256, `state`, the person's handle as `login_hint`;
/// 3. the person signs in on the server's own page, which redirects to the loopback address with `code`, `state`
///    and `iss`;
/// 4. the code exchanged at the token endpoint for DPoP-bound tokens; `sub` must be the DID the handle resolves to.
/// Every request to the server carries a DPoP proof (`DPoPKey`); the server's `DPoP-Nonce` is kept and a request
/// refused with `use_dpop_nonce` is sent once more with the new one.
public final class BlueskyOAuth: Sendable {
    /// The authorization server's metadata (RFC 8414), the fields used.
    public struct ServerMetadata: Decodable, Sendable {
        /// The server's identifier: its origin.
        public var issuer: String
        /// Where the person signs in.
        public var authorizationEndpoint: URL
        /// Where codes and refresh tokens are exchanged.
        public var tokenEndpoint: URL
        /// Where authorization requests are pushed.
        public var pushedAuthorizationRequestEndpoint: URL
        /// The DPoP signing algorithms it takes (ES256 required).
        public var dpopSigningAlgValuesSupported: [String]?
        /// Where a token is revoked (RFC 7009), when the server has such an endpoint.
        public var revocationEndpoint: URL?

        enum CodingKeys: String, CodingKey {
            case issuer
            case authorizationEndpoint = "authorization_endpoint"
            case tokenEndpoint = "token_endpoint"
            case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
            case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
            case revocationEndpoint = "revocation_endpoint"
        }
    }

    /// The token endpoint's answer.
    public struct Tokens: Decodable, Sendable, Equatable {
        /// The access token (DPoP-bound: sent as `Authorization: DPoP …` with a proof carrying its hash).
        public var accessToken: String
        /// The refresh token (single use: each refresh gives a new one).
        public var refreshToken: String?
        /// `DPoP`.
        public var tokenType: String
        /// The account's DID.
        public var sub: String
        /// The scope granted.
        public var scope: String
        /// Seconds the access token lives.
        public var expiresIn: Int?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
            case tokenType = "token_type"
            case sub, scope
            case expiresIn = "expires_in"
        }
    }

    /// A pushed authorization request's outcome: the address the person opens, and what the exchange needs.
    public struct Authorization: Sendable {
        /// The server's metadata.
        public var server: ServerMetadata
        /// The `client_id`: the loopback one, or a confidential client's metadata address.
        public var clientID: String
        /// The confidential client, which signs each request to the server; nil for the loopback client.
        public var client: ConfidentialClient?
        /// Where the server sends the person back.
        public var redirectURI: String
        /// The `state` the answer must carry.
        public var state: String
        /// PKCE's proof.
        public var proof: CodeExchangeProof
        /// The address to open in a browser.
        public var address: URL
    }

    private let httpClient: HTTPClient
    private let timeout: TimeAmount
    /// Whether every address a remote document names (the PDS, the authorization server, its endpoints) must be
    /// `https` on a public host, the endpoints on the server's own origin: a web app's, which must not be made to send
    /// requests into its own network by a DID document or metadata someone published.
    private let publicOnly: Bool
    /// The latest `DPoP-Nonce` of each server, by origin.
    private let nonces = Mutex<[String: String]>([:])

    /// A client sending through `httpClient`, waiting at most `timeout` for each answer; `publicOnly` for a web app.
    public init(httpClient: HTTPClient = .shared, timeout: Duration = .seconds(30), publicOnly: Bool = false) {
        self.httpClient = httpClient
        self.timeout = .seconds(timeout.components.seconds)
        self.publicOnly = publicOnly
    }

    /// Throws `mismatch` when `url` (what `what` is) is not one a web app may call: `https` on a public host, and
    /// where `origin` is given, on it.
    func requirePublic(_ url: URL, _ what: String, origin: String? = nil) throws {
        guard publicOnly else { return }
        guard url.scheme?.lowercased() == "https", let host = url.host(), !PrivateHost.named(in: host) else {
            throw BlueskyOAuthError.mismatch("\(what) (\(url.absoluteString)) is not an https address on the internet: refused")
        }
        if let origin, Self.origin(url.absoluteString) != Self.origin(origin) {
            throw BlueskyOAuthError.mismatch("\(what) (\(url.absoluteString)) is not on the authorization server's own address: refused")
        }
    }

    /// The loopback `client_id`: `http://localhost` with `redirect_uri` and `scope` in its query.
    public static func loopbackClientID(redirectURI: String, scope: String) -> String {
        var components = URLComponents(string: "http://localhost")!
        components.queryItems = [URLQueryItem(name: "redirect_uri", value: redirectURI), URLQueryItem(name: "scope", value: scope)]
        return components.string!
    }

    // MARK: - Discovery

    /// The DID document of `did`, from where its method keeps it: the PLC directory (`<plcDirectory>/<did>`) for
    /// `did:plc:`, the host's `/.well-known/did.json` for `did:web:`.
    public func didDocument(of did: String, plcDirectory: URL) async throws -> DIDDocument {
        let address: String
        if did.hasPrefix("did:plc:") {
            address = Self.trimmed(plcDirectory.absoluteString) + "/" + did
        } else if did.hasPrefix("did:web:"), !did.dropFirst(8).contains(":") {
            address = "https://\(did.dropFirst(8))/.well-known/did.json"
        } else {
            throw BlueskyOAuthError.mismatch("\(did) is of a DID method Bluesky accounts do not use")
        }
        guard let url = URL(string: address) else { throw BlueskyOAuthError.malformed(endpoint: "DID document", reason: "\(did) makes no address") }
        let (status, _, data) = try await send(method: .GET, url: url, form: nil, key: nil, accessToken: nil, endpoint: "DID document")
        guard status == 200 else {
            throw BlueskyOAuthError.refused(
                endpoint: "DID document", status: status, error: "HTTP \(status)", description: "\(url.absoluteString) gave no DID document")
        }
        do { return try JSONDecoder().decode(DIDDocument.self, from: data) } catch {
            throw BlueskyOAuthError.malformed(endpoint: "DID document", reason: "\(error)")
        }
    }

    /// `text` without a trailing slash.
    static func trimmed(_ text: String) -> String { text.hasSuffix("/") ? String(text.dropLast()) : text }

    /// The authorization server of the PDS (or entryway) at `service`, and its metadata.
    public func server(for service: URL) async throws -> ServerMetadata {
        try requirePublic(service, "the account's server")
        let issuer: URL
        let resource = service.appending(path: ".well-known/oauth-protected-resource")
        let (status, _, data) = try await send(
            method: .GET, url: resource, form: nil, key: nil, accessToken: nil, endpoint: "oauth-protected-resource")
        if status == 200 {
            struct ProtectedResource: Decodable { var authorization_servers: [String]? }
            guard let named = (try? JSONDecoder().decode(ProtectedResource.self, from: data))?.authorization_servers?.first,
                let url = URL(string: named)
            else {
                throw BlueskyOAuthError.malformed(endpoint: "oauth-protected-resource", reason: "it names no authorization server")
            }
            issuer = url
        } else if status == 404 {
            // An entryway that is its own authorization server.
            issuer = service
        } else {
            throw BlueskyOAuthError.refused(
                endpoint: "oauth-protected-resource", status: status, error: "HTTP \(status)",
                description: "\(service.absoluteString) did not say where its accounts sign in")
        }
        try requirePublic(issuer, "the authorization server")
        let metadataURL = issuer.appending(path: ".well-known/oauth-authorization-server")
        let (metadataStatus, _, body) = try await send(
            method: .GET, url: metadataURL, form: nil, key: nil, accessToken: nil, endpoint: "oauth-authorization-server")
        guard metadataStatus == 200 else {
            throw BlueskyOAuthError.refused(
                endpoint: "oauth-authorization-server", status: metadataStatus, error: "not_found",
                description: "\(issuer.absoluteString) serves no OAuth metadata")
        }
        let metadata: ServerMetadata
        do { metadata = try JSONDecoder().decode(ServerMetadata.self, from: body) } catch {
            throw BlueskyOAuthError.malformed(endpoint: "oauth-authorization-server", reason: "\(error)")
        }
        // The issuer exactly as the resource named it (a trailing slash aside): another is not the server asked.
        guard Self.trimmed(metadata.issuer) == Self.trimmed(issuer.absoluteString) else {
            throw BlueskyOAuthError.mismatch("the authorization server at \(issuer.absoluteString) calls itself \(metadata.issuer)")
        }
        for (endpoint, what) in [
            (metadata.authorizationEndpoint, "its sign-in page"), (metadata.tokenEndpoint, "its token endpoint"),
            (metadata.pushedAuthorizationRequestEndpoint, "its PAR endpoint"),
        ] + (metadata.revocationEndpoint.map { [($0, "its revocation endpoint")] } ?? []) {
            try requirePublic(endpoint, what, origin: metadata.issuer)
        }
        if let algorithms = metadata.dpopSigningAlgValuesSupported, !algorithms.contains("ES256") {
            throw BlueskyOAuthError.mismatch("the authorization server \(metadata.issuer) takes no ES256 DPoP proofs")
        }
        return metadata
    }

    // MARK: - The flow

    /// Pushes the authorization request for `handle` with `scope`, the person to come back to `redirectURI`; returns
    /// the address to open and what the exchange needs. The client is the loopback one unless `client` is given;
    /// `state` is a new one unless given (a web app's, tied to the browser's session).
    public func authorize(
        at server: ServerMetadata, handle: String, scope: String, redirectURI: String, key: DPoPKey, now: Date,
        client: ConfidentialClient? = nil, state givenState: String? = nil
    ) async throws -> Authorization {
        let clientID = client?.clientID ?? Self.loopbackClientID(redirectURI: redirectURI, scope: scope)
        let proof = CodeExchangeProof()
        let state = givenState ?? CodeExchangeProof().verifier
        var form = [
            "client_id": clientID, "response_type": "code", "redirect_uri": redirectURI, "scope": scope, "state": state,
            "code_challenge": proof.challenge, "code_challenge_method": CodeExchangeProof.method, "login_hint": handle,
        ]
        if let client { form = try client.authenticating(form, audience: server.issuer, now: now) }
        let data = try await post(form, to: server.pushedAuthorizationRequestEndpoint, key: key, now: now, endpoint: "PAR", expecting: [200, 201])
        struct Pushed: Decodable { var request_uri: String }
        guard let pushed = try? JSONDecoder().decode(Pushed.self, from: data) else {
            throw BlueskyOAuthError.malformed(endpoint: "PAR", reason: "no request_uri in \(data.count) bytes")
        }
        guard var address = URLComponents(url: server.authorizationEndpoint, resolvingAgainstBaseURL: false) else {
            throw BlueskyOAuthError.malformed(endpoint: "PAR", reason: "the sign-in page's address does not read")
        }
        address.queryItems = [URLQueryItem(name: "client_id", value: clientID), URLQueryItem(name: "request_uri", value: pushed.request_uri)]
        guard let url = address.url else { throw BlueskyOAuthError.malformed(endpoint: "PAR", reason: "no authorization address") }
        return Authorization(
            server: server, clientID: clientID, client: client, redirectURI: redirectURI, state: state, proof: proof, address: url)
    }

    /// The redirect's query checked (`state`, `iss`; an `error` said in words) and its code exchanged for tokens.
    public func finish(_ authorization: Authorization, redirectQuery: [String: String], key: DPoPKey, now: Date) async throws -> Tokens {
        // The state first: an answer without this sign-in's, even a denial, is not this sign-in's (another page could
        // send the browser to the listener).
        guard redirectQuery["state"] == authorization.state else {
            throw BlueskyOAuthError.mismatch("the answer carries another state than this sign-in's: not this run's sign-in, ignored")
        }
        if let error = redirectQuery["error"] {
            throw BlueskyOAuthError.refused(endpoint: "authorize", status: 400, error: error, description: redirectQuery["error_description"])
        }
        guard let iss = redirectQuery["iss"], Self.origin(iss) == Self.origin(authorization.server.issuer) else {
            throw BlueskyOAuthError.mismatch("the answer comes from \(redirectQuery["iss"] ?? "no named server"), not \(authorization.server.issuer)")
        }
        guard let code = redirectQuery["code"], !code.isEmpty else { throw BlueskyOAuthError.malformed(endpoint: "authorize", reason: "no code") }
        var form = [
            "grant_type": "authorization_code", "code": code, "redirect_uri": authorization.redirectURI,
            "code_verifier": authorization.proof.verifier, "client_id": authorization.clientID,
        ]
        if let client = authorization.client { form = try client.authenticating(form, audience: authorization.server.issuer, now: now) }
        return try await tokens(form, at: authorization.server.tokenEndpoint, key: key, now: now)
    }

    /// Revokes `token` (RFC 7009) at `server`'s revocation endpoint, with a DPoP proof; a server without one, or that
    /// does not answer, leaves it to lapse (returns false).
    @discardableResult
    public func revoke(
        _ token: String, clientID: String, at server: ServerMetadata, key: DPoPKey, now: Date, client: ConfidentialClient? = nil
    ) async -> Bool {
        guard let endpoint = server.revocationEndpoint else { return false }
        var form = ["token": token, "client_id": clientID]
        if let client {
            guard let signed = try? client.authenticating(form, audience: server.issuer, now: now) else { return false }
            form = signed
        }
        return (try? await post(form, to: endpoint, key: key, now: now, endpoint: "revoke", expecting: [200])) != nil
    }

    /// New tokens for `refreshToken` (which the server then no longer takes); a confidential `client` signs the
    /// request for the server `issuer`. Throws `refused` with `invalid_grant` when the grant was revoked.
    public func refresh(
        _ refreshToken: String, clientID: String, tokenEndpoint: URL, key: DPoPKey, now: Date, client: ConfidentialClient? = nil,
        issuer: String = ""
    ) async throws -> Tokens {
        var form = ["grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": clientID]
        if let client { form = try client.authenticating(form, audience: issuer, now: now) }
        return try await tokens(form, at: tokenEndpoint, key: key, now: now)
    }

    private func tokens(_ form: [String: String], at endpoint: URL, key: DPoPKey, now: Date) async throws -> Tokens {
        let data = try await post(form, to: endpoint, key: key, now: now, endpoint: "token", expecting: [200])
        let tokens: Tokens
        do { tokens = try JSONDecoder().decode(Tokens.self, from: data) } catch {
            throw BlueskyOAuthError.malformed(endpoint: "token", reason: "\(error)")
        }
        guard tokens.tokenType.lowercased() == "dpop" else { throw BlueskyOAuthError.mismatch("the tokens are \(tokens.tokenType), not DPoP-bound") }
        guard tokens.sub.hasPrefix("did:") else { throw BlueskyOAuthError.malformed(endpoint: "token", reason: "sub is not a DID") }
        return tokens
    }

    // MARK: - Requests

    /// POSTs `form` with a DPoP proof; a refusal asking for a nonce is sent once more with it.
    private func post(_ form: [String: String], to url: URL, key: DPoPKey, now: Date, endpoint: String, expecting: Set<Int>) async throws -> Data {
        for attempt in 0..<2 {
            let (status, error, data) = try await send(method: .POST, url: url, form: form, key: key, accessToken: nil, endpoint: endpoint, now: now)
            if expecting.contains(status) { return data }
            if attempt == 0, error?.error == "use_dpop_nonce" { continue }
            throw BlueskyOAuthError.refused(
                endpoint: endpoint, status: status, error: error?.error ?? "HTTP \(status)", description: error?.errorDescription)
        }
        throw BlueskyOAuthError.refused(
            endpoint: endpoint, status: 400, error: "use_dpop_nonce", description: "the server asked for a new nonce twice")
    }

    private struct ErrorBody: Decodable {
        var error: String
        var errorDescription: String?
        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }

    private func send(
        method: HTTPMethod, url: URL, form: [String: String]?, key: DPoPKey?, accessToken: String?, endpoint: String,
        now: Date = Date()
    ) async throws -> (Int, ErrorBody?, Data) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        request.headers.add(name: "User-Agent", value: "mirror_bot")
        request.headers.add(name: "Accept", value: "application/json")
        let origin = Self.origin(url.absoluteString)
        if let key {
            let nonce = nonces.withLock { $0[origin] }
            request.headers.add(
                name: "DPoP", value: try key.proof(method: method.rawValue, url: url, nonce: nonce, accessToken: accessToken, now: now))
        }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: Self.formEncoded(form)))
        }
        let response: HTTPClientResponse
        let data: Data
        do {
            response = try await httpClient.execute(request, timeout: timeout)
            data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        } catch {
            throw BlueskyOAuthError.unreachable(endpoint: endpoint, detail: "\(error)")
        }
        if let nonce = response.headers.first(name: "DPoP-Nonce") { nonces.withLock { $0[origin] = nonce } }
        let status = Int(response.status.code)
        return (status, status >= 400 ? try? JSONDecoder().decode(ErrorBody.self, from: data) : nil, data)
    }

    /// `a=1&b=two%20words`, names sorted.
    static func formEncoded(_ fields: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.sorted { $0.key < $1.key }.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
    }

    /// `scheme://host[:port]` of `address`, lowercased.
    static func origin(_ address: String) -> String {
        guard let url = URL(string: address), let scheme = url.scheme, let host = url.host else { return address.lowercased() }
        return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")".lowercased()
    }
}

/// What went wrong signing in with atproto OAuth.
public enum BlueskyOAuthError: Error, CustomStringConvertible, Equatable {
    /// The server answered with an OAuth error (`invalid_grant`: the grant was revoked, or the code was used).
    case refused(endpoint: String, status: Int, error: String, description: String?)
    /// The server could not be reached.
    case unreachable(endpoint: String, detail: String)
    /// The answer is not what the profile says.
    case malformed(endpoint: String, reason: String)
    /// Something that must match does not (the issuer, the state, the token type).
    case mismatch(String)

    /// Whether the server refused the client rather than the grant (`invalid_client`, or a grant bound to another
    /// client key): for a confidential client, its own assertion failed (a clock off, a key changed), which is no
    /// one's withdrawal.
    public var isClientRefused: Bool {
        guard case .refused(_, _, let error, let detail) = self else { return false }
        return error == "invalid_client" || (error == "invalid_grant" && detail?.lowercased().contains("key") == true)
    }

    /// Whether the server refused the grant itself (revoked, expired, used): only a new sign-in helps.
    public var isGrantRefused: Bool {
        if case .refused(_, _, let error, _) = self { return error == "invalid_grant" || error == "invalid_client" || error == "unauthorized_client" }
        return false
    }

    /// Whether a refused grant ran out rather than being taken back: the server's time limits on a sign-in
    /// ("Refresh token expired", "… exceeded inactivity timeout"), or a refresh token already spent ("refresh token
    /// replayed": its answer was lost, or another client spent it). Not the person's withdrawal: they sign in again.
    public var isLapse: Bool {
        guard isGrantRefused, case .refused(_, _, _, let detail) = self, let detail = detail?.lowercased() else { return false }
        return ["expired", "inactivity", "replayed"].contains { detail.contains($0) }
    }

    /// What went wrong, in words.
    public var description: String {
        switch self {
        case .refused(let endpoint, let status, let error, let detail):
            "Bluesky's authorization server refused the \(endpoint) request (HTTP \(status) \(error)\(detail.map { ": \($0)" } ?? ""))"
        case .unreachable(let endpoint, let detail): "Bluesky's authorization server did not answer the \(endpoint) request (\(detail))"
        case .malformed(let endpoint, let reason): "Bluesky's authorization server gave an unreadable \(endpoint) answer (\(reason))"
        case .mismatch(let what): what
        }
    }
}
