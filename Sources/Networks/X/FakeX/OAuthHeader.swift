import Foundation
import XAPI

/// Verifying the OAuth 1.0a signature of a request the fake receives, with the same RFC 5849 rules the client
/// signs by (those rules are pinned by the published test vectors in the client's tests).
enum OAuthHeader {
    static func parse(_ header: String) -> [String: String]? {
        OAuth1.parseAuthorizationHeader(header)
    }

    static func signature(method: String, url: URL, fields: [String: String], consumerSecret: String, tokenSecret: String) -> String {
        let parameters = OAuth1.ProtocolParameters(
            consumerKey: fields["oauth_consumer_key"] ?? "", token: fields["oauth_token"] ?? "", nonce: fields["oauth_nonce"] ?? "",
            timestamp: Int(fields["oauth_timestamp"] ?? "") ?? 0, includesVersion: fields["oauth_version"] != nil,
            callback: fields["oauth_callback"], verifier: fields["oauth_verifier"])
        let base = OAuth1.signatureBaseString(method: method, url: url, protocolParameters: parameters)
        return OAuth1.signature(baseString: base, consumerSecret: consumerSecret, tokenSecret: tokenSecret)
    }
}
