import BotCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// The status server's request context: Hummingbird's, plus the address of the client that connected.
struct StatusRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's address (the platform's router, behind one).
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// HTTP basic auth with `STATUS_PASSWORD` (any user name) in front of everything but the `open` paths. Without a
/// password only the open paths answer. The password is compared in constant time (`Passwords`: the time depends on
/// neither password's content). A client that gives a wrong password too often is refused for a while without its
/// password being checked (`FailedLogins`).
struct BasicAuthentication: RouterMiddleware {
    typealias Context = StatusRequestContext
    let password: String?
    let open: Set<String>
    let failures: FailedLogins
    /// Whether the client is named by the last `X-Forwarded-For` entry (what the platform's router saw) rather than
    /// by the connection's address (the router's own).
    let behindRouter: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if open.contains(request.uri.path) { return try await next(request, context) }
        guard let password else {
            throw APIError(
                status: .notFound, code: .statusPageOff,
                message: "Only /healthz answers: set STATUS_PASSWORD to open the status page and its API.")
        }
        let client = client(of: request, context: context)
        if let wait = failures.refusal(of: client) {
            var headers = HTTPFields()
            headers[.retryAfter] = String(wait)
            return APIError(
                status: .tooManyRequests, code: .tooManyFailedLogins,
                message: "Too many wrong passwords from this address; try again in \(wait) seconds."
            ).response(headers: headers)
        }
        guard let given = Self.password(in: request.headers[.authorization]), Self.equalInConstantTime(given, password) else {
            // Only a password that was given and wrong counts: a browser's first request carries none.
            if request.headers[.authorization] != nil { failures.recordFailure(of: client) }
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = "Basic realm=\"mirror_bot\", charset=\"UTF-8\""
            return APIError(
                status: .unauthorized, code: .authenticationRequired,
                message: "The status page needs the password (STATUS_PASSWORD) by HTTP basic auth, with any user name."
            )
            .response(headers: headers)
        }
        return try await next(request, context)
    }

    /// Who is asking: the connection's IP address, or behind a router the address it forwarded for.
    func client(of request: Request, context: Context) -> String {
        Self.client(
            forwardedFor: request.headers[HTTPField.Name("X-Forwarded-For")!], connectedFrom: context.remoteAddress?.ipAddress,
            behindRouter: behindRouter)
    }

    /// The client's name (`ClientAddress`, as the front door names it).
    static func client(forwardedFor: String?, connectedFrom address: String?, behindRouter: Bool) -> String {
        ClientAddress.of(forwardedFor: forwardedFor, connectedFrom: address, behindRouter: behindRouter)
    }

    /// The password of an `Authorization: Basic ...` header: base64 as RFC 4648 writes it (Foundation's decoder
    /// also takes more padding, or characters after it, which no client sends), text after the first colon (found
    /// among the text's scalars, so that a password starting with a combining mark is not taken for part of it).
    static func password(in header: String?) -> String? {
        guard let header, header.count > 6, header.count < 4_096, header.prefix(6).lowercased() == "basic " else { return nil }
        let base64 = String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)
        guard let decoded = Data(base64Encoded: base64), decoded.base64EncodedString() == base64,
            let text = String(data: decoded, encoding: .utf8), let colon = text.unicodeScalars.firstIndex(of: ":")
        else { return nil }
        return String(text.unicodeScalars[text.unicodeScalars.index(after: colon)...])
    }

    /// Whether the password `given` is `expected`, in time that depends on neither's content.
    static func equalInConstantTime(_ given: String, _ expected: String) -> Bool { Passwords.equalInConstantTime(given, expected) }
}
