import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOFoundationCompat

/// A web app's client as the fake's authorization server reads it: its `client_id` is the address of its client
/// metadata document, fetched (as the atproto OAuth profile asks, each time here: a real server caches it for a while),
/// with the key set its `jwks_uri` names. Only `private_key_jwt` clients (confidential) are taken this way: a public
/// web client is not needed by mirror_bot, and the fake refuses what it does not check.
struct FakeBlueskyClient: Sendable {
    /// The metadata's fields the server checks.
    var clientID: String
    var redirectURIs: [String]
    var scope: String
    var keys: [String: P256.Signing.PublicKey]

    /// Whether `clientID` names a metadata document rather than a loopback client: an `https` address with a path, or
    /// (for a door run in a test on this machine) an `http` one on a loopback address with a port.
    static func isMetadataAddress(_ clientID: String) -> Bool {
        guard let url = URLComponents(string: clientID), !url.path.isEmpty, url.path != "/", url.fragment == nil else { return false }
        if url.scheme == "https" { return url.host != nil }
        return url.scheme == "http" && ["127.0.0.1", "localhost", "[::1]"].contains(url.host ?? "") && url.port != nil
    }

    /// The client `clientID` names: its metadata and key set fetched and checked; a refusal's description when
    /// either cannot be read or is not a confidential web client's.
    static func fetch(_ clientID: String) async -> Result<FakeBlueskyClient, FetchRefusal> {
        guard let metadata = await json(at: clientID) else { return .failure(.init("the client metadata at \(clientID) could not be read")) }
        guard metadata["client_id"] as? String == clientID else {
            return .failure(.init("the client metadata's client_id is not its own address"))
        }
        guard metadata["token_endpoint_auth_method"] as? String == "private_key_jwt",
            metadata["token_endpoint_auth_signing_alg"] as? String == "ES256"
        else {
            return .failure(.init("token_endpoint_auth_method must be private_key_jwt with ES256"))
        }
        guard metadata["dpop_bound_access_tokens"] as? Bool == true else { return .failure(.init("dpop_bound_access_tokens must be true")) }
        guard let grants = metadata["grant_types"] as? [String], grants.contains("authorization_code"),
            let redirects = metadata["redirect_uris"] as? [String], !redirects.isEmpty, let scope = metadata["scope"] as? String,
            Set(scope.split(separator: " ").map(String.init)).contains("atproto")
        else {
            return .failure(.init("the client metadata lacks grant_types, redirect_uris or an atproto scope"))
        }
        guard let jwksURI = metadata["jwks_uri"] as? String, let set = await json(at: jwksURI), let list = set["keys"] as? [[String: Any]] else {
            return .failure(.init("the client's key set (jwks_uri) could not be read"))
        }
        var keys: [String: P256.Signing.PublicKey] = [:]
        for jwk in list where jwk["kty"] as? String == "EC" && jwk["crv"] as? String == "P-256" && jwk["d"] == nil {
            guard let kid = jwk["kid"] as? String, let x = (jwk["x"] as? String).flatMap(FakeBlueskyOAuthState.decode),
                let y = (jwk["y"] as? String).flatMap(FakeBlueskyOAuthState.decode),
                let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
            else { continue }
            keys[kid] = key
        }
        guard !keys.isEmpty else { return .failure(.init("the client's key set has no public P-256 key with a kid")) }
        return .success(FakeBlueskyClient(clientID: clientID, redirectURIs: redirects, scope: scope, keys: keys))
    }

    /// Why a client was not taken.
    struct FetchRefusal: Error {
        var description: String
        init(_ description: String) { self.description = description }
    }

    private static func json(at address: String) async -> [String: Any]? {
        var request = HTTPClientRequest(url: address)
        request.headers.add(name: "Accept", value: "application/json")
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(10)), response.status.code == 200,
            let body = try? await response.body.collect(upTo: 1 << 16)
        else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any]
    }

    /// Checks `form`'s client assertion (RFC 7523) for the server `issuer` at `now`: its type, an ES256 JWT signed by
    /// one of the client's keys (`kid`), `iss` and `sub` the client, `aud` the issuer, not expired, its `jti` new
    /// (`seen` remembers them); the fake's clock running at `speed` widens the leeway with it, as for DPoP proofs. The
    /// refusal's description, or nil when it holds.
    func checkAssertion(_ form: [String: String], issuer: String, now: Date, speed: Double = 1, seen: inout Set<String>) -> String? {
        guard form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", let assertion = form["client_assertion"]
        else { return "a confidential client must authenticate with private_key_jwt" }
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerData = FakeBlueskyOAuthState.decode(parts[0]), let claimsData = FakeBlueskyOAuthState.decode(parts[1]),
            let signature = FakeBlueskyOAuthState.decode(parts[2]),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
        else { return "client_assertion is not a JWT" }
        guard header["alg"] as? String == "ES256", let kid = header["kid"] as? String, let key = keys[kid] else {
            return "client_assertion is not signed with a key of the client's key set"
        }
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { return "client_assertion's signature does not verify" }
        guard claims["iss"] as? String == clientID, claims["sub"] as? String == clientID else { return "client_assertion is not the client's" }
        guard claims["aud"] as? String == issuer else { return "client_assertion's aud is not this server" }
        let leeway = FakeBlueskyOAuthState.proofAge * max(1, speed)
        guard let exp = claims["exp"] as? Int, Double(exp) > now.timeIntervalSince1970 - leeway else { return "client_assertion has expired" }
        guard let iat = claims["iat"] as? Int, abs(Double(iat) - now.timeIntervalSince1970) <= leeway else {
            return "client_assertion's iat is missing or too far from now"
        }
        guard let jti = claims["jti"] as? String, !jti.isEmpty, seen.insert("assertion:" + jti).inserted else {
            return "client_assertion was replayed"
        }
        return nil
    }
}
