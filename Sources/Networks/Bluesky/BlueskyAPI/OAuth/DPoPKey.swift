import Crypto
public import Foundation
import HTTPCore

/// The key that binds the person's OAuth tokens to this mirror (DPoP, RFC 9449): an ES256 (P-256) key made when they
/// sign in and kept sealed beside the refresh token. Each request to the authorization server, and each one made
/// with the access token, carries a proof signed with it, so a token copied elsewhere is useless without the key.
public struct DPoPKey: Sendable {
    private let privateKey: P256.Signing.PrivateKey

    /// A new key from the system's secure random generator.
    public init() { privateKey = P256.Signing.PrivateKey() }

    /// The key `sealed` holds: `rawRepresentation` of an earlier key. Throws when it is not one.
    public init(rawRepresentation text: String) throws {
        guard let data = DPoPKey.data(base64URL: text) else { throw DPoPKeyError.unreadable }
        privateKey = try P256.Signing.PrivateKey(rawRepresentation: data)
    }

    /// The private key's 32 bytes in base64url, to be kept sealed.
    public var rawRepresentation: String { CodeExchangeProof.base64URL(privateKey.rawRepresentation) }

    /// The public key as a JWK (RFC 7517): `kty`, `crv`, `x`, `y`.
    public var publicJWK: [String: String] {
        // x963: 0x04, then x and y, 32 bytes each.
        let point = privateKey.publicKey.x963Representation
        return [
            "kty": "EC", "crv": "P-256", "x": CodeExchangeProof.base64URL(point.dropFirst().prefix(32)),
            "y": CodeExchangeProof.base64URL(point.dropFirst(33)),
        ]
    }

    /// The JWK thumbprint (RFC 7638): SHA-256 of the required members in lexicographic order, base64url. The
    /// authorization server binds the tokens to it (`cnf.jkt`).
    public var thumbprint: String {
        let jwk = publicJWK
        let canonical = "{\"crv\":\"\(jwk["crv"]!)\",\"kty\":\"\(jwk["kty"]!)\",\"x\":\"\(jwk["x"]!)\",\"y\":\"\(jwk["y"]!)\"}"
        return CodeExchangeProof.base64URL(Data(SHA256.hash(data: Data(canonical.utf8))))
    }

    /// A proof for one request: `method` to `url` (its query and fragment left out, as `htu` asks), at `now`, with the
    /// server's latest `nonce`, and for a request made with `accessToken`, its hash (`ath`). A new `jti` each time: a
    /// server refuses a proof it has seen.
    public func proof(method: String, url: URL, nonce: String?, accessToken: String? = nil, now: Date) throws -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        guard let htu = components?.string else { throw DPoPKeyError.unreadable }
        let header: [String: any Sendable] = ["typ": "dpop+jwt", "alg": "ES256", "jwk": publicJWK]
        var claims: [String: any Sendable] = [
            "jti": UUID().uuidString, "htm": method.uppercased(), "htu": htu, "iat": Int(now.timeIntervalSince1970),
        ]
        if let nonce { claims["nonce"] = nonce }
        if let accessToken { claims["ath"] = CodeExchangeProof.base64URL(Data(SHA256.hash(data: Data(accessToken.utf8)))) }
        let signingInput = try Self.segment(header) + "." + Self.segment(claims)
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + CodeExchangeProof.base64URL(signature.rawRepresentation)
    }

    private static func segment(_ object: [String: any Sendable]) throws -> String {
        CodeExchangeProof.base64URL(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    /// The bytes of base64url `text` (padding optional); nil when it is not base64url.
    public static func data(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// A kept DPoP key that does not read.
public enum DPoPKeyError: Error, CustomStringConvertible {
    /// Not a P-256 private key in base64url.
    case unreadable

    /// What went wrong, in words.
    public var description: String { "the kept DPoP key is not a P-256 key: sign the person in again" }
}
