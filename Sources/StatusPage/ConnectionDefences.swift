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
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return response
    }
}

/// How many connections the status server holds open at once, shared by the handlers of all its connections.
final class OpenConnections: Sendable {
    /// Connections open now.
    let count = Atomic<Int>(0)
    /// The most it holds; past it a new connection is closed at once.
    let limit: Int

    init(limit: Int) { self.limit = limit }
}

/// Closes a connection that would take the server past its limit of open connections, so that many clients holding
/// connections (a slow-loris) cannot take every descriptor the bot's own connections to the network and the stores
/// need. Added to each connection's pipeline; counts it while it is open.
final class ConnectionLimit: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let connections: OpenConnections
    private var counted = false

    init(_ connections: OpenConnections) { self.connections = connections }

    func handlerAdded(context: ChannelHandlerContext) {
        let open = connections.count.add(1, ordering: .relaxed).newValue
        counted = true
        if open > connections.limit { context.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if counted { connections.count.subtract(1, ordering: .relaxed) }
        counted = false
    }
}
