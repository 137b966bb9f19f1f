import Crypto
public import Foundation

/// PKCE's proof (RFC 7636, "Proof Key for Code Exchange"): a secret `verifier` kept by the command, and its S256
/// `challenge` sent with the authorization request. The server binds the code to the challenge and gives a token
/// for it only with the verifier, so a code seen by someone else (the browser's history, another program) is useless
/// to them.
public struct CodeExchangeProof: Sendable, Equatable {
    /// The secret: 32 random bytes in base64url without padding (43 characters, within RFC 7636's 43 to 128).
    public let verifier: String
    /// `base64url(SHA-256(verifier))`, without padding: what the authorization request carries.
    public let challenge: String
    /// `code_challenge_method`: S256, the only method Mastodon and Bluesky take.
    public static let method = "S256"

    /// A proof with a verifier of 32 bytes from the system's secure random generator.
    public init() {
        var generator = SystemRandomNumberGenerator()
        self.init(verifierBytes: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The proof whose verifier is `verifierBytes` in base64url (RFC 7636's Appendix B starts from such bytes).
    public init(verifierBytes: [UInt8]) {
        verifier = Self.base64URL(Data(verifierBytes))
        challenge = Self.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// `data` in base64url (RFC 4648 §5) without padding.
    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
