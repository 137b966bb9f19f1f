import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Where a browser sends the person back after they signed in (RFC 8252's loopback redirect): a one-shot HTTP server
/// on 127.0.0.1 at a port the system picks, answering `GET <path>?…` with a page saying they may close it and handing
/// its query to the command that waits. Anything else is 404. Only this machine can reach it.
public final class LoopbackRedirect: Sendable {
    /// The port it listens on.
    public let port: Int
    /// The path it waits on (`/callback`).
    public let path: String
    private let channel: any Channel
    private let queries: AsyncStream<[String: String]>

    private init(port: Int, path: String, channel: any Channel, queries: AsyncStream<[String: String]>) {
        self.port = port
        self.path = path
        self.channel = channel
        self.queries = queries
    }

    /// The redirect address to register: `http://127.0.0.1:<port><path>`.
    public var redirectURI: String { "http://127.0.0.1:\(port)\(path)" }

    /// Listens on 127.0.0.1 at a free port for `path`.
    public static func listen(path: String = "/callback") async throws -> LoopbackRedirect {
        // A few requests kept until read: the command reads as they come, and a page flooding the listener holds no more.
        let (queries, delivery) = AsyncStream.makeStream(of: [String: String].self, bufferingPolicy: .bufferingNewest(8))
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RedirectHandler(path: path, delivery: delivery))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return LoopbackRedirect(port: channel.localAddress?.port ?? 0, path: path, channel: channel, queries: queries)
    }

    /// The query of the first request to `path` that `accepts` (the sign-in's own answer, by its `state`); the
    /// others are answered and passed over.
    public func query(where accepts: @Sendable ([String: String]) -> Bool = { _ in true }) async -> [String: String]? {
        for await query in queries where accepts(query) { return query }
        return nil
    }

    /// Stops listening.
    public func close() async {
        try? await channel.close()
    }

    /// Answers each request: the page and the query for `path`, 404 otherwise.
    private final class RedirectHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let path: String
        let delivery: AsyncStream<[String: String]>.Continuation
        var uri = ""

        init(path: String, delivery: AsyncStream<[String: String]>.Continuation) {
            self.path = path
            self.delivery = delivery
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): uri = head.uri
            case .body: break
            case .end:
                let components = URLComponents(string: uri)
                let found = components?.path == path
                let page =
                    found
                    ? "<h1>Signed in</h1><p>mirror_bot has what it needs. You can close this tab and go back to the terminal.</p>"
                    : "<h1>Not found</h1>"
                let html =
                    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mirror_bot</title></head><body>\(page)</body></html>\n"
                var headers = HTTPHeaders([("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"), ("Connection", "close")])
                headers.add(name: "Content-Length", value: String(html.utf8.count))
                context.write(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: found ? .ok : .notFound, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: html)))), promise: nil)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
                if found {
                    delivery.yield(Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { $1 })
                }
            }
        }
    }
}
