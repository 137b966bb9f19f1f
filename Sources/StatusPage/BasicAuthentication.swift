import Crypto
import Foundation
import Hummingbird

/// HTTP basic auth with `STATUS_PASSWORD` (any user name) in front of everything but the `open` paths. Without a
/// password only the open paths answer. The password is compared in constant time (as SHA-256 digests, so that its
/// length does not show either).
struct BasicAuthentication: RouterMiddleware {
    typealias Context = BasicRequestContext
    let password: String?
    let open: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if open.contains(request.uri.path) { return try await next(request, context) }
        guard let password else {
            throw APIError(status: .notFound, code: .statusPageOff,
                           message: "Only /healthz answers: set STATUS_PASSWORD to open the status page and its API.")
        }
        guard let given = Self.password(in: request.headers[.authorization]), Self.equalInConstantTime(given, password) else {
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = "Basic realm=\"mirror_bot\", charset=\"UTF-8\""
            return APIError(status: .unauthorized, code: .authenticationRequired,
                            message: "The status page needs the password (STATUS_PASSWORD) by HTTP basic auth, with any user name.")
                .response(headers: headers)
        }
        return try await next(request, context)
    }

    /// The password of an `Authorization: Basic ...` header.
    static func password(in header: String?) -> String? {
        guard let header, header.count > 6, header.prefix(6).lowercased() == "basic " else { return nil }
        guard let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
              let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        return String(text[text.index(after: colon)...])
    }

    /// Whether `a` and `b` are equal, in time that depends on neither.
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let left = Array(SHA256.hash(data: Data(a.utf8))), right = Array(SHA256.hash(data: Data(b.utf8)))
        var difference: UInt8 = 0
        for (x, y) in zip(left, right) { difference |= x ^ y }
        return difference == 0
    }
}
