import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// What the HTTP layer refuses before a route sees it, answered as the API's error body and closed at once: a request
/// the parser cannot read (Hummingbird answers it 400 with no body), and a request body past `maximumBodyBytes` (the
/// API is read-only and reads none; a large one with `Connection: close` held the connection until the idle timeout).
/// Added to each connection's pipeline after HTTP decoding; while a request is being answered, a parser's error is
/// left to Hummingbird, whose answer is then under way.
final class RequestDefences: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The most bytes a request's body may hold.
    let maximumBodyBytes: Int
    /// Requests read and not yet answered.
    private var unanswered = 0
    /// Body bytes of the request being read.
    private var bodyBytes = 0
    /// Whether the connection was refused: nothing more is read.
    private var refused = false

    init(maximumBodyBytes: Int) { self.maximumBodyBytes = maximumBodyBytes }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            bodyBytes = 0
            if let length = head.headerFields[.contentLength].flatMap({ Int($0) }), length > maximumBodyBytes {
                return refuse(context: context, status: .contentTooLarge, message: tooLarge)
            }
            unanswered += 1
        case .body(let buffer):
            bodyBytes += buffer.readableBytes
            // A body sent without a length (chunked) is cut off as it passes the limit: its request is being answered
            // already, so the connection is only closed.
            if bodyBytes > maximumBodyBytes {
                refused = true
                return context.close(promise: nil)
            }
        case .end:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered = max(0, unanswered - 1) }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError, unanswered == 0, !refused else { return context.fireErrorCaught(error) }
        refuse(context: context, status: .badRequest, message: "The request could not be read as HTTP/1.1; send a plain GET.")
    }

    private var tooLarge: String { "The status API takes no request body (at most \(maximumBodyBytes) bytes); send a plain GET." }

    /// Answers `status` with the API's error body (code 1002) and closes the connection.
    private func refuse(context: ChannelHandlerContext, status: HTTPResponse.Status, message: String) {
        refused = true
        let body = APIError(status: status, code: .badParameter, message: message).body
        var head = HTTPResponse(status: status)
        head.headerFields[.contentType] = "application/json; charset=utf-8"
        head.headerFields[.contentLength] = String(body.count)
        head.headerFields[.cacheControl] = "no-store"
        head.headerFields[.connection] = "close"
        head.headerFields[.contentSecurityPolicy] = SecurityHeaders.contentSecurityPolicy
        head.headerFields[.xContentTypeOptions] = "nosniff"
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
        // Closed on the channel's own event loop, where the context lives.
        let closing = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in closing.value.close(promise: nil) }
    }
}
