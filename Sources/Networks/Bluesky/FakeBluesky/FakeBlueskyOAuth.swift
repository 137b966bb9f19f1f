import Crypto
import Foundation

/// The fake's atproto OAuth authorization server, as the atproto OAuth profile and its RFCs describe it: pushed
/// authorization requests only (RFC 9126), PKCE S256 only, DPoP-bound tokens (RFC 9449) with server nonces that
/// rotate, loopback clients (`client_id` `http://localhost?redirect_uri=…&scope=…`) whose redirect addresses and
/// scope are taken from the `client_id` itself, single-use codes (10 minutes) and refresh tokens (a reused one revokes
/// the grant), and `iss` on the redirect. Each DPoP proof is checked: `typ`, `alg` ES256, the `jwk` it carries, its
/// signature, `htm`, `htu`, `iat`, the current `nonce`, a `jti` never seen before, and at the token endpoint the key
/// the request was pushed with. What is refused is kept (`refusals`), for tests to read.
struct FakeBlueskyOAuthState {
    struct Pushed {
        var clientID: String
        var redirectURI: String
        var scope: String
        var state: String
        var challenge: String
        var keyThumbprint: String
        var loginHint: String?
        var expires: Date
        /// The confidential client that pushed it; nil for a loopback client.
        var client: FakeBlueskyClient?
    }
    struct Code {
        var pushed: Pushed
        var did: String
        var expires: Date
        var used = false
    }
    struct Grant {
        var did: String
        var clientID: String
        var keyThumbprint: String
        var scope: String
        var refreshToken: String
        /// The confidential client it was given to (which must sign each refresh); nil for a loopback client.
        var client: FakeBlueskyClient? = nil
        var revoked = false
        /// When the person signed in, and when the grant was last refreshed: a public client's grant lives a week at
        /// most, and two days unrefreshed (the reference server's limits).
        var createdAt: Date
        var updatedAt: Date
    }
    /// The reference server's limits on a public (loopback) client's grant: its whole life, and its idle time.
    static let publicLifetime: TimeInterval = 7 * 86_400, publicIdleLimit: TimeInterval = 2 * 86_400
    /// Its limits on a confidential client's: two years, and three months unrefreshed.
    static let confidentialLifetime: TimeInterval = 730 * 86_400, confidentialIdleLimit: TimeInterval = 90 * 86_400
    struct AccessToken {
        var did: String
        var keyThumbprint: String
        var expires: Date
        var grant: String
    }

    var pushed: [String: Pushed] = [:]
    var codes: [String: Code] = [:]
    var grants: [String: Grant] = [:]
    var accessTokens: [String: AccessToken] = [:]
    /// Refresh tokens used already, with their grant: a second use revokes the grant (a stolen token).
    var usedRefreshTokens: [String: String] = [:]
    var seenProofs: Set<String> = []
    var nonce = "nonce-1"
    var previousNonce: String?
    var proofsSinceRotation = 0
    var counter = 1
    /// Every refusal, as `endpoint: error: description`.
    var refusals: [String] = []
    /// Token requests answered with tokens, by grant type.
    var tokensIssued: [String: Int] = [:]

    /// Proofs accepted before the nonce changes.
    static let proofsPerNonce = 3
    /// How far a proof's `iat` may be from the fake's clock, in the fake's seconds at speed 1 (scaled by its speed).
    static let proofAge: TimeInterval = 300

    mutating func nextID(_ prefix: String) -> String {
        counter += 1
        var generator = SystemRandomNumberGenerator()
        return "\(prefix)-\(counter)-\(String(UInt64.random(in: .min ... .max, using: &generator), radix: 36))"
    }

    /// A refusal, kept.
    mutating func refuse(_ endpoint: String, _ status: Int, _ error: String, _ description: String, nonceHeader: Bool = false) -> FakeBlueskyResponse
    {
        refusals.append("\(endpoint): \(error): \(description)")
        var response = FakeBlueskyResponse.oauthError(status, error, description)
        if nonceHeader { response.headers.append(("DPoP-Nonce", nonce)) }
        return response
    }

    /// Checks the DPoP proof of a `method` request to `url`; returns the key's thumbprint, or the refusal (`use_dpop_nonce`
    /// with a fresh nonce when the proof has none or an old one).
    mutating func checkProof(
        _ proof: String?, method: String, url: String, accessToken: String?, now: Date, speed: Double,
        endpoint: String
    ) -> Result<String, FakeBlueskyResponse> {
        guard let proof else { return .failure(refuse(endpoint, 400, "invalid_dpop_proof", "DPoP proof required")) }
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerData = Self.decode(parts[0]), let claimsData = Self.decode(parts[1]), let signature = Self.decode(parts[2]),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
        else {
            return .failure(refuse(endpoint, 400, "invalid_dpop_proof", "DPoP proof is not a JWT"))
        }
        guard header["typ"] as? String == "dpop+jwt" else { return .failure(refuse(endpoint, 400, "invalid_dpop_proof", "typ must be dpop+jwt")) }
        guard header["alg"] as? String == "ES256" else { return .failure(refuse(endpoint, 400, "invalid_dpop_proof", "alg must be ES256")) }
        guard let jwk = header["jwk"] as? [String: Any], jwk["kty"] as? String == "EC", jwk["crv"] as? String == "P-256", jwk["d"] == nil,
            let x = (jwk["x"] as? String).flatMap(Self.decode), let y = (jwk["y"] as? String).flatMap(Self.decode), x.count == 32, y.count == 32,
            let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
        else {
            return .failure(refuse(endpoint, 400, "invalid_dpop_proof", "jwk must be a public P-256 key"))
        }
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8))
        else {
            return .failure(refuse(endpoint, 400, "invalid_dpop_proof", "signature does not verify"))
        }
        guard claims["htm"] as? String == method else { return .failure(refuse(endpoint, 400, "invalid_dpop_proof", "htm does not match")) }
        guard claims["htu"] as? String == url else { return .failure(refuse(endpoint, 400, "invalid_dpop_proof", "htu does not match \(url)")) }
        guard let iat = claims["iat"] as? Int, abs(Double(iat) - now.timeIntervalSince1970) <= Self.proofAge * max(1, speed) else {
            return .failure(refuse(endpoint, 400, "invalid_dpop_proof", "iat is missing or too far from now"))
        }
        guard let jti = claims["jti"] as? String, !jti.isEmpty else { return .failure(refuse(endpoint, 400, "invalid_dpop_proof", "jti is missing")) }
        guard let sent = claims["nonce"] as? String, sent == nonce || sent == previousNonce else {
            return .failure(refuse(endpoint, 400, "use_dpop_nonce", "Authorization server requires nonce in DPoP proof", nonceHeader: true))
        }
        guard !seenProofs.contains(jti) else { return .failure(refuse(endpoint, 400, "invalid_dpop_proof", "DPoP proof replayed")) }
        if let accessToken {
            let ath = Self.base64URL(Data(SHA256.hash(data: Data(accessToken.utf8))))
            guard claims["ath"] as? String == ath else {
                return .failure(refuse(endpoint, 401, "invalid_dpop_proof", "ath does not match the access token"))
            }
        }
        seenProofs.insert(jti)
        proofsSinceRotation += 1
        if proofsSinceRotation >= Self.proofsPerNonce {
            previousNonce = nonce
            nonce = nextID("nonce")
            proofsSinceRotation = 0
        }
        return .success(Self.thumbprint(x: x, y: y))
    }

    /// The loopback client's redirect addresses and scope, from its `client_id`; nil when it is not one.
    static func loopbackClient(_ clientID: String) -> (redirectURIs: [String], scope: String)? {
        guard let components = URLComponents(string: clientID), components.scheme == "http", components.host == "localhost",
            components.path.isEmpty || components.path == "/", components.port == nil
        else { return nil }
        let items = components.queryItems ?? []
        let redirects = items.filter { $0.name == "redirect_uri" }.compactMap(\.value)
        let allowed = redirects.allSatisfy { address in
            guard let url = URL(string: address), url.scheme == "http" else { return false }
            return url.host == "127.0.0.1" || url.host == "[::1]" || url.host == "::1"
        }
        guard allowed else { return nil }
        return (
            redirects.isEmpty ? ["http://127.0.0.1/", "http://[::1]/"] : redirects,
            items.first { $0.name == "scope" }?.value ?? "atproto"
        )
    }

    static func thumbprint(x: Data, y: Data) -> String {
        let canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(base64URL(x))\",\"y\":\"\(base64URL(y))\"}"
        return base64URL(Data(SHA256.hash(data: Data(canonical.utf8))))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
            of: "=", with: "")
    }

    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

extension FakeBlueskyResponse {
    /// An OAuth error body (RFC 6749 §5.2).
    static func oauthError(_ status: Int, _ error: String, _ description: String) -> FakeBlueskyResponse {
        var response = FakeBlueskyResponse.json(["error": error, "error_description": description])
        response.status = status
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// An HTML page.
    static func page(_ status: Int, _ body: String) -> FakeBlueskyResponse {
        let html =
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Fake Bluesky</title></head><body>\n\(body)\n</body></html>\n"
        return FakeBlueskyResponse(
            status: status, body: Data(html.utf8), headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")])
    }
}
