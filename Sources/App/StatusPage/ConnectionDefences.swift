import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// Headers on every answer of the status server: a Content-Security-Policy that lets the page run no script, load
/// nothing from elsewhere and be framed by no one (its style is inline, its icon a `data:` URL); no MIME sniffing; no
/// referrer sent when the page's links to the network are followed.
struct SecurityHeaders: RouterMiddleware {
    typealias Context = StatusRequestContext

    /// The policy: nothing but the page's own inline style and `data:` images.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return response
    }
}

/// The answer to a HEAD request without its body, whoever made it (a route as GET answers it, or a middleware's error):
/// a body after a HEAD's answer would be read as the next answer.
struct HeadWithoutBody: RouterMiddleware {
    typealias Context = StatusRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        return request.method == .head ? response.createHeadResponse() : response
    }
}

/// How many connections the status server holds open at once, in all and per client address, shared by the handlers
/// of all its connections.
final class OpenConnections: Sendable {
    /// Connections open now.
    let count = Atomic<Int>(0)
    /// The most it holds; past it a new connection is closed at once.
    let limit: Int
    /// The most it holds from one address (nil: no such limit, behind a router whose few addresses are everyone's).
    let perClient: Int?
    private let byClient = Mutex<[String: Int]>([:])

    init(limit: Int, perClient: Int?) {
        self.limit = limit
        self.perClient = perClient
    }

    /// Counts a connection from `client`; whether it is within the limits.
    func open(from client: String?) -> Bool {
        let total = count.add(1, ordering: .relaxed).newValue
        guard let perClient, let client else { return total <= limit }
        let fromClient = byClient.withLock { counts in
            counts[client, default: 0] += 1
            return counts[client] ?? 0
        }
        return total <= limit && fromClient <= perClient
    }

    /// Counts a connection from `client` gone.
    func close(from client: String?) {
        count.subtract(1, ordering: .relaxed)
        guard perClient != nil, let client else { return }
        byClient.withLock { counts in
            let left = (counts[client] ?? 1) - 1
            counts[client] = left > 0 ? left : nil
        }
    }
}

/// Closes a connection that would take the server past its limit of open connections, in all or from one address, so
/// that many clients holding connections (a slow-loris) cannot take every descriptor the bot's own connections to the
/// network and the stores need, and one client cannot take every place the page's readers need. Added to each
/// connection's pipeline; counts it while it is open.
final class ConnectionLimit: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let connections: OpenConnections
    private var counted = false
    private var client: String?

    init(_ connections: OpenConnections) { self.connections = connections }

    func handlerAdded(context: ChannelHandlerContext) {
        client = context.channel.remoteAddress?.ipAddress
        counted = true
        if !connections.open(from: client) { context.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if counted { connections.close(from: client) }
        counted = false
    }
}
