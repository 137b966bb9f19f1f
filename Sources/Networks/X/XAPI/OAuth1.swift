import Crypto
public import Foundation

/// OAuth 1.0a HMAC-SHA1 signing of user-context requests (RFC 5849 §3.4), as the X API requires.
///
/// Only query parameters and `application/x-www-form-urlencoded` body parameters are signed: the X API v2's
/// JSON bodies are not part of the signature.
public enum OAuth1 {
    /// The `oauth_*` protocol parameters of one request, before signing.
    public struct ProtocolParameters: Sendable, Equatable {
        /// `oauth_consumer_key`.
        public var consumerKey: String
        /// `oauth_token`.
        public var token: String
        /// `oauth_nonce`: unique per request.
        public var nonce: String
        /// `oauth_timestamp`: seconds since 1970.
        public var timestamp: Int
        /// Whether `oauth_version=1.0` is sent (optional in RFC 5849; X's examples send it).
        public var includesVersion: Bool
        /// `oauth_callback`: asking for a request token (`oob` for the PIN flow).
        public var callback: String?
        /// `oauth_verifier`: exchanging a request token for an access token (the PIN).
        public var verifier: String?

        /// Parameters from their parts; an empty `token` is not sent (asking for a request token).
        public init(
            consumerKey: String, token: String, nonce: String, timestamp: Int, includesVersion: Bool = true,
            callback: String? = nil, verifier: String? = nil
        ) {
            self.consumerKey = consumerKey
            self.token = token
            self.nonce = nonce
            self.timestamp = timestamp
            self.includesVersion = includesVersion
            self.callback = callback
            self.verifier = verifier
        }

        /// The parameters as name/value pairs, without the signature.
        public var pairs: [(String, String)] {
            var pairs = [
                ("oauth_consumer_key", consumerKey), ("oauth_nonce", nonce), ("oauth_signature_method", "HMAC-SHA1"),
                ("oauth_timestamp", String(timestamp)),
            ]
            if !token.isEmpty { pairs.append(("oauth_token", token)) }
            if includesVersion { pairs.append(("oauth_version", "1.0")) }
            if let callback { pairs.append(("oauth_callback", callback)) }
            if let verifier { pairs.append(("oauth_verifier", verifier)) }
            return pairs
        }
    }

    /// The signature base string: METHOD&encoded-base-URL&encoded-normalised-parameters.
    public static func signatureBaseString(
        method: String, url: URL, formParameters: [(String, String)] = [], protocolParameters: ProtocolParameters
    ) -> String {
        var parameters = queryParameters(of: url) + formParameters + protocolParameters.pairs
        parameters = parameters.map { (PercentEncoding.encode($0.0), PercentEncoding.encode($0.1)) }
        parameters.sort { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
        let normalized = parameters.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        return [method.uppercased(), PercentEncoding.encode(baseStringURI(url)), PercentEncoding.encode(normalized)]
            .joined(separator: "&")
    }

    /// The base64 HMAC-SHA1 signature of a base string with the consumer and token secrets.
    public static func signature(baseString: String, consumerSecret: String, tokenSecret: String) -> String {
        let key = SymmetricKey(data: Data((PercentEncoding.encode(consumerSecret) + "&" + PercentEncoding.encode(tokenSecret)).utf8))
        let code = HMAC<Insecure.SHA1>.authenticationCode(for: Data(baseString.utf8), using: key)
        return Data(code).base64EncodedString()
    }

    /// The `Authorization` header value for a request signed with `credentials`.
    public static func authorizationHeader(
        method: String, url: URL, formParameters: [(String, String)] = [],
        credentials: AccountCredentials, nonce: String, timestamp: Int
    ) -> String {
        let parameters = ProtocolParameters(
            consumerKey: credentials.consumerKey, token: credentials.accessToken,
            nonce: nonce, timestamp: timestamp)
        let base = signatureBaseString(method: method, url: url, formParameters: formParameters, protocolParameters: parameters)
        let signature = signature(baseString: base, consumerSecret: credentials.consumerSecret, tokenSecret: credentials.accessTokenSecret)
        let fields = parameters.pairs + [("oauth_signature", signature)]
        return "OAuth " + fields.map { "\(PercentEncoding.encode($0.0))=\"\(PercentEncoding.encode($0.1))\"" }.joined(separator: ", ")
    }

    /// The `Authorization` header value for `parameters`, signed with the consumer and token secrets.
    public static func authorizationHeader(
        method: String, url: URL, parameters: ProtocolParameters, consumerSecret: String,
        tokenSecret: String
    ) -> String {
        let base = signatureBaseString(method: method, url: url, protocolParameters: parameters)
        let signature = signature(baseString: base, consumerSecret: consumerSecret, tokenSecret: tokenSecret)
        let fields = parameters.pairs + [("oauth_signature", signature)]
        return "OAuth " + fields.map { "\(PercentEncoding.encode($0.0))=\"\(PercentEncoding.encode($0.1))\"" }.joined(separator: ", ")
    }

    /// A fresh random nonce: 32 alphanumeric characters.
    public static func makeNonce() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<32).map { _ in alphabet.randomElement()! })
    }

    /// The parameters of an `Authorization: OAuth ...` header; nil when it is not one.
    public static func parseAuthorizationHeader(_ header: String) -> [String: String]? {
        guard header.hasPrefix("OAuth ") else { return nil }
        var fields: [String: String] = [:]
        for part in header.dropFirst("OAuth ".count).split(separator: ",") {
            let trimmed = part.drop { $0 == " " }
            guard let equals = trimmed.firstIndex(of: "=") else { return nil }
            var value = trimmed[trimmed.index(after: equals)...]
            guard value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 else { return nil }
            value = value.dropFirst().dropLast()
            guard let name = PercentEncoding.decode(trimmed[..<equals]), let decoded = PercentEncoding.decode(value) else { return nil }
            fields[name] = decoded
        }
        return fields
    }

    /// Scheme and host in lower case, the port only when not the scheme's default, the path; no query.
    static func baseStringURI(_ url: URL) -> String {
        let scheme = (url.scheme ?? "https").lowercased()
        let host = (url.host ?? "").lowercased()
        var port = ""
        if let number = url.port, !(scheme == "http" && number == 80), !(scheme == "https" && number == 443) { port = ":\(number)" }
        let path = url.path(percentEncoded: true)
        return "\(scheme)://\(host)\(port)\(path.isEmpty ? "/" : path)"
    }

    /// The query's name/value pairs, decoded.
    static func queryParameters(of url: URL) -> [(String, String)] {
        guard let query = url.query(percentEncoded: true), !query.isEmpty else { return [] }
        return query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentEncoding.decode(parts[0], plusIsSpace: true) ?? String(parts[0])
            let value = parts.count > 1 ? (PercentEncoding.decode(parts[1], plusIsSpace: true) ?? String(parts[1])) : ""
            return (name, value)
        }
    }
}
