import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// TLS to a Redis server (`rediss://`) for hiredis, which speaks plain TCP only here (Debian 12's hiredis 0.14 has no
/// TLS): a listener on a loopback port of this process that, for each connection hiredis opens to it, opens one TLS
/// connection to the server and passes the bytes both ways, closing each side when the other closes. A server
/// closing an idle TLS connection therefore closes hiredis' socket too, which hiredis' caller notices before its
/// next command. One TLS context serves every connection of the tunnel.
final class RedisTLSTunnel: Sendable {
    /// The loopback port hiredis connects to.
    let port: Int
    private let listener: any Channel
    private let lastFailure = FailureNote()

    /// Starts a tunnel to `host`:`port`; with `certificateAuthority` (a PEM file) the server's certificate is
    /// verified against it, host name included, else not at all (Heroku's Redis uses self-signed certificates).
    /// Blocks until it listens: call it off the event loops.
    init(host: String, port serverPort: Int, certificateAuthority: String?, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) throws
    {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let certificateAuthority {
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificateAuthority))
            configuration.certificateVerification = .fullVerification
        } else {
            configuration.certificateVerification = .none
        }
        let context = try NIOSSLContext(configuration: configuration)
        // An address is no name for SNI.
        let serverName = host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? nil : host
        let failure = lastFailure
        listener = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { local in
                ClientBootstrap(group: local.eventLoop)
                    .connectTimeout(.seconds(10))
                    .channelInitializer { remote in
                        remote.eventLoop.makeCompletedFuture {
                            try remote.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: serverName))
                            try remote.pipeline.syncOperations.addHandler(HandshakeDeadline(failure: failure))
                            try remote.pipeline.syncOperations.addHandler(ByteForwarder(partner: local, failure: failure))
                        }
                    }
                    .connect(host: host, port: serverPort)
                    .flatMap { remote in
                        // What hiredis wrote meanwhile waited in the socket: now it flows.
                        local.pipeline.addHandler(ByteForwarder(partner: remote, failure: failure))
                            .flatMap { local.setOption(.autoRead, value: true) }
                    }
                    .flatMapErrorThrowing { error in
                        failure.note(error)
                        local.close(promise: nil)
                    }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = listener.localAddress?.port ?? 0
    }

    /// Why the last TLS connection to the server failed, if one did (a certificate not verified, a refused connection).
    var lastError: String? { lastFailure.text }

    /// Stops listening; connections still open close with their peers.
    func close() { listener.close(promise: nil) }

    deinit { listener.close(promise: nil) }
}

/// Writes what one channel reads to its partner, and closes the partner when it closes: one direction of a tunnel.
private final class ByteForwarder: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    private let partner: any Channel
    private let failure: FailureNote

    init(partner: any Channel, failure: FailureNote) {
        self.partner = partner
        self.failure = failure
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failure.note(error)
        context.close(promise: nil)
    }
}

/// Closes a connection whose TLS handshake has not completed within 5 seconds: a port that speaks no TLS (a plain
/// Redis) answers a ClientHello with silence.
private final class HandshakeDeadline: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    static let limit = TimeAmount.seconds(5)

    private let failure: FailureNote
    private var deadline: Scheduled<Void>?

    init(failure: FailureNote) { self.failure = failure }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        let failure = failure
        deadline = context.eventLoop.scheduleTask(in: Self.limit) {
            failure.note("the TLS handshake did not complete within 5 s: is the port a TLS port (rediss://) of the server?")
            channel.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            deadline?.cancel()
            deadline = nil
        }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerRemoved(context: ChannelHandlerContext) { deadline?.cancel() }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }
}

/// The last failure of a tunnel's connections, kept for the error its caller reports.
private final class FailureNote: Sendable {
    private let value = Mutex<String?>(nil)
    func note(_ error: any Error) { note("\(error)") }
    func note(_ text: String) { value.withLock { $0 = text } }
    var text: String? { value.withLock { $0 } }
}
