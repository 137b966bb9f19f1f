import Crypto
public import Foundation
import HTTPCore

/// A confidential atproto OAuth client: a web app whose `client_id` is the address of its client metadata document,
/// which names its redirect address, its scope and its public keys (`jwks_uri`); it proves itself at the authorization
/// server with a client assertion (`private_key_jwt`, RFC 7523) signed by its own ES256 key. Bluesky gives such a
/// client's sign-ins far longer lives than a loopback client's: three months unused, two years in all.
public struct ConfidentialClient: Sendable {
    /// The `client_id`: the metadata document's address.
    public let clientID: String
    private let key: P256.Signing.PrivateKey

    /// How a client assertion is named in a form (RFC 7523 §2.2).
    public static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The reference server's limits on a confidential client's grant: its whole life, and its idle time.
    public static let lifetime: TimeInterval = 2 * 365 * 86_400, idleLimit: TimeInterval = 90 * 86_400

    /// The client `clientID` signing with the key `seed` derives (HKDF-SHA256): the same seed gives the same key after
    /// every restart, so no key file is kept, and a new seed (a new secret) gives a new key.
    public init(clientID: String, seed: some ContiguousBytes) {
        self.clientID = clientID
        let material = SymmetricKey(data: seed)
        var counter = 0
        while true {
            let bytes = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: material, salt: Data("mirror_bot atproto client key".utf8), info: Data("P-256 \(counter)".utf8),
                outputByteCount: 32)
            // A derived scalar is a key unless it is 0 or past the curve's order: about once in 2^32 seeds.
            if let key = bytes.withUnsafeBytes({ try? P256.Signing.PrivateKey(rawRepresentation: Data($0)) }) {
                self.key = key
                return
            }
            counter += 1
        }
    }

    /// The client `clientID` signing with a key kept earlier (`rawKey`); throws when it is not a P-256 key.
    public init(clientID: String, rawKey: String) throws {
        self.clientID = clientID
        guard let data = DPoPKey.data(base64URL: rawKey), let key = try? P256.Signing.PrivateKey(rawRepresentation: data) else {
            throw DPoPKeyError.unreadable
        }
        self.key = key
    }

    /// The private key's 32 bytes in base64url, to be kept sealed with a session it renews.
    public var rawKey: String { CodeExchangeProof.base64URL(key.rawRepresentation) }

    /// The public key as a JWK, with its `kid` (the key's thumbprint), `use` and `alg`.
    public var publicJWK: [String: String] {
        let point = key.publicKey.x963Representation
        let x = CodeExchangeProof.base64URL(point.dropFirst().prefix(32))
        let y = CodeExchangeProof.base64URL(point.dropFirst(33))
        let canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(x)\",\"y\":\"\(y)\"}"
        let kid = CodeExchangeProof.base64URL(Data(SHA256.hash(data: Data(canonical.utf8))))
        return ["kty": "EC", "crv": "P-256", "x": x, "y": y, "kid": kid, "use": "sig", "alg": "ES256"]
    }

    /// The key set served at `jwks_uri`: `{"keys": [the public JWK]}`.
    public var keySet: Data {
        (try? JSONSerialization.data(withJSONObject: ["keys": [publicJWK]], options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }

    /// The client metadata document served at `clientID`: a web app (`application_type` web) with one redirect
    /// address, the authorization code grant and refresh tokens, DPoP-bound tokens, `private_key_jwt` with ES256,
    /// and the key set's address.
    public func metadata(name: String, home: URL, redirectURI: String, scope: String, keySetURI: String) -> Data {
        let document: [String: Any] = [
            "client_id": clientID, "client_name": name, "client_uri": home.absoluteString, "application_type": "web",
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"], "redirect_uris": [redirectURI],
            "scope": scope, "dpop_bound_access_tokens": true, "token_endpoint_auth_method": "private_key_jwt",
            "token_endpoint_auth_signing_alg": "ES256", "jwks_uri": keySetURI,
        ]
        return (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }

    /// A client assertion for the authorization server `audience` (its issuer), at `now`: `iss` and `sub` the client,
    /// a new `jti`, valid a minute.
    public func assertion(audience: String, now: Date) throws -> String {
        let header: [String: String] = ["alg": "ES256", "typ": "JWT", "kid": publicJWK["kid"]!]
        let issued = Int(now.timeIntervalSince1970)
        let claims: [String: Any] = [
            "iss": clientID, "sub": clientID, "aud": audience, "jti": UUID().uuidString, "iat": issued, "exp": issued + 60,
        ]
        func segment(_ object: Any) throws -> String {
            CodeExchangeProof.base64URL(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
        }
        let signingInput = try segment(header) + "." + segment(claims)
        return signingInput + "." + CodeExchangeProof.base64URL(try key.signature(for: Data(signingInput.utf8)).rawRepresentation)
    }

    /// `form` with this client's assertion for `audience` added.
    func authenticating(_ form: [String: String], audience: String, now: Date) throws -> [String: String] {
        var form = form
        form["client_assertion_type"] = Self.assertionType
        form["client_assertion"] = try assertion(audience: audience, now: now)
        return form
    }
}
