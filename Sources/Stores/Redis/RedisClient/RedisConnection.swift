public import BotConfiguration
import CHiredis
public import NIOPosix
import Synchronization

/// One connection to a Redis server through hiredis, sending pipelines: every call writes all its commands at once
/// and then reads all their replies, so a call is one network round trip however many commands it holds.
///
/// Calls are serialised on the connection and run on NIO's blocking thread pool, never on Swift's cooperative
/// pool. A connection that the server closed (a restart, `CLIENT KILL`, an idle timeout) is noticed before the
/// next call writes and is re-established then; one that breaks during a call fails that call only.
public final class RedisConnection: Sendable {
    /// Counters of what the connection has done, for tests and benchmarks.
    public struct Statistics: Sendable, Equatable {
        /// Pipelines sent: each is one write of all its commands followed by reading all replies.
        public var roundTrips = 0
        /// Commands sent, over all round trips.
        public var commands = 0
        /// Connections opened (the first, then one per reconnect).
        public var connects = 0
    }

    /// The server this connection talks to.
    public let url: RedisURL
    /// For `rediss://`: the CA certificate file (PEM) the server's certificate is verified against
    /// (`REDIS_TLS_CA`); nil: not verified, as Heroku's self-signed certificates need.
    public let certificateAuthority: String?
    private let threadPool: NIOThreadPool
    private let state: Mutex<State>

    private struct State {
        var context: UnsafeMutablePointer<redisContext>?
        var tunnel: RedisTLSTunnel?
        var statistics = Statistics()
    }

    /// The version of the system's hiredis, such as "0.14".
    public static var hiredisVersion: String { "\(mirror_hiredis_major()).\(mirror_hiredis_minor())" }

    /// A connection to `url`; nothing is opened until the first call.
    public init(url: RedisURL, certificateAuthority: String? = nil, threadPool: NIOThreadPool = .singleton) {
        self.url = url
        self.certificateAuthority = certificateAuthority
        self.threadPool = threadPool
        self.state = Mutex(State())
    }

    deinit {
        state.withLock { state in
            if let context = state.context { redisFree(context) }
            state.context = nil
            state.tunnel?.close()
            state.tunnel = nil
        }
    }

    /// What the connection has done so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Sends `commands` (each a command name and its arguments) in one round trip and returns their replies in
    /// order. An error reply of one command is returned as `.error`; it does not fail the others.
    public func pipeline(_ commands: [[String]]) async throws -> [RedisReply] {
        guard !commands.isEmpty else { return [] }
        return try await threadPool.runIfActive { [self] in
            try state.withLock { state in try Self.send(commands, url: url, certificateAuthority: certificateAuthority, state: &state) }
        }
    }

    /// Sends one command and returns its reply, throwing for an error reply.
    @discardableResult
    public func send(_ command: String, _ arguments: String...) async throws -> RedisReply {
        try await pipeline([[command] + arguments])[0].checked()
    }

    /// Opens the connection now if it is not open, so that a bad URL or an unreachable server shows at startup.
    public func connect() async throws {
        try await threadPool.runIfActive { [self] in
            try state.withLock { state in _ = try Self.openContext(url: url, certificateAuthority: certificateAuthority, state: &state) }
        }
    }

    /// Closes the connection; the next call opens a new one.
    public func close() {
        state.withLock { state in
            if let context = state.context { redisFree(context) }
            state.context = nil
        }
    }

    // MARK: - hiredis (runs on the thread pool, under the lock)

    private static func send(_ commands: [[String]], url: RedisURL, certificateAuthority: String?, state: inout State) throws -> [RedisReply] {
        let context = try openContext(url: url, certificateAuthority: certificateAuthority, state: &state)
        state.statistics.roundTrips += 1
        state.statistics.commands += commands.count
        do {
            return try roundTrip(commands, on: context)
        } catch {
            redisFree(context)
            state.context = nil
            throw error
        }
    }

    /// The open context, first dropping one the server has closed and connecting anew if there is none. (With TLS,
    /// hiredis' socket goes to the tunnel, which closes it when the server closes the TLS connection.)
    private static func openContext(url: RedisURL, certificateAuthority: String?, state: inout State) throws -> UnsafeMutablePointer<redisContext> {
        if let context = state.context, mirror_hiredis_peer_closed(context) != 0 {
            redisFree(context)
            state.context = nil
        }
        if let context = state.context { return context }
        var tunnel: RedisTLSTunnel?
        if url.usesTLS {
            if state.tunnel == nil {
                do {
                    state.tunnel = try RedisTLSTunnel(host: url.host, port: url.port, certificateAuthority: certificateAuthority)
                } catch {
                    throw RedisError.tlsFailed(server: "\(url.host):\(url.port)", reason: "the TLS setup failed (\(error)); check REDIS_TLS_CA")
                }
            }
            tunnel = state.tunnel
        }
        let context = try connect(url, through: tunnel)
        state.context = context
        state.statistics.connects += 1
        return context
    }

    /// Connects hiredis to the server, or for TLS to the tunnel to it, then authenticates and selects the database.
    private static func connect(_ url: RedisURL, through tunnel: RedisTLSTunnel?) throws -> UnsafeMutablePointer<redisContext> {
        let server = "\(url.host):\(url.port)"
        let (host, port) = tunnel.map { ("127.0.0.1", $0.port) } ?? (url.host, url.port)
        guard let context = redisConnectWithTimeout(host, Int32(port), timeval(tv_sec: 5, tv_usec: 0)) else {
            throw RedisError.connectionFailed(server: server, reason: "hiredis could not allocate a connection")
        }
        if context.pointee.err != 0 {
            let reason = errorText(context)
            redisFree(context)
            throw RedisError.connectionFailed(server: server, reason: reason)
        }
        do {
            // A command that takes longer than this is treated as a dropped connection.
            guard redisSetTimeout(context, timeval(tv_sec: 30, tv_usec: 0)) == REDIS_OK else {
                throw RedisError.connectionFailed(server: server, reason: errorText(context))
            }
            var setup: [[String]] = []
            if let password = url.password {
                setup.append(url.username.map { ["AUTH", $0, password] } ?? ["AUTH", password])
            }
            if url.database != 0 { setup.append(["SELECT", String(url.database)]) }
            // Through the tunnel, the TLS handshake happens with the first bytes: a PING makes it happen now.
            if tunnel != nil { setup.append(["PING"]) }
            let replies: [RedisReply]
            do {
                replies = try roundTrip(setup, on: context)
            } catch let error as RedisError {
                guard let tunnel else { throw error }
                throw RedisError.tlsFailed(server: server, reason: tunnel.lastError.map(Self.tlsAdvice) ?? "\(error)")
            }
            for reply in replies {
                if case .error(let message) = reply {
                    throw RedisError.connectionFailed(server: server, reason: "the server said \(message)")
                }
            }
        } catch {
            redisFree(context)
            throw error
        }
        return context
    }

    /// A TLS failure with what to do about it.
    static func tlsAdvice(_ failure: String) -> String {
        if failure.contains("CERTIFICATE_VERIFY_FAILED") || failure.contains("certificate verify failed")
            || failure.contains("unableToValidateCertificate")
        {
            return
                "the server's certificate was not verified (\(failure)): set REDIS_TLS_CA to the CA certificate that signed it, or unset REDIS_TLS_CA to encrypt without verifying"
        }
        return failure
    }

    private static func roundTrip(_ commands: [[String]], on context: UnsafeMutablePointer<redisContext>) throws -> [RedisReply] {
        for command in commands {
            guard append(command, to: context) == REDIS_OK else {
                throw RedisError.connectionLost(reason: errorText(context))
            }
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            // The first read flushes every appended command in one write, then reads replies as they arrive.
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else {
                throw RedisError.connectionLost(reason: errorText(context))
            }
            let reply = raw.assumingMemoryBound(to: redisReply.self)
            replies.append(convert(reply))
            freeReplyObject(raw)
        }
        return replies
    }

    /// Appends one command with explicit lengths (binary-safe; the variadic `redisCommand` cannot be called from Swift).
    private static func append(_ command: [String], to context: UnsafeMutablePointer<redisContext>) -> Int32 {
        var bytes: [UInt8] = []
        var lengths: [Int] = []
        lengths.reserveCapacity(command.count)
        for argument in command {
            lengths.append(argument.utf8.count)
            bytes.append(contentsOf: argument.utf8)
        }
        bytes.append(0)  // never empty, so the buffer has a base address even when every argument is empty
        return bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            var argv: [UnsafePointer<CChar>?] = []
            argv.reserveCapacity(lengths.count)
            var offset = 0
            for length in lengths {
                argv.append(base.advanced(by: offset).assumingMemoryBound(to: CChar.self))
                offset += length
            }
            return argv.withUnsafeMutableBufferPointer { argvBuffer in
                lengths.withUnsafeBufferPointer { lengthBuffer in
                    redisAppendCommandArgv(context, Int32(lengths.count), argvBuffer.baseAddress, lengthBuffer.baseAddress)
                }
            }
        }
    }

    private static func convert(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        func bytes() -> [UInt8] {
            guard let text = value.str, value.len > 0 else { return [] }
            return Array(UnsafeRawBufferPointer(start: text, count: Int(value.len)))
        }
        switch value.type {
        case REDIS_REPLY_STRING: return .bulkString(bytes())
        case REDIS_REPLY_STATUS: return .status(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_ERROR: return .error(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_INTEGER: return .integer(value.integer)
        case REDIS_REPLY_NIL: return .null
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(Int(value.elements))
            for index in 0..<Int(value.elements) {
                if let element = value.element?[index] { elements.append(convert(element)) } else { elements.append(.null) }
            }
            return .array(elements)
        default:
            return .error("reply type \(value.type) is not part of RESP2")
        }
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        var errorString = context.pointee.errstr
        let text = withUnsafeBytes(of: &errorString) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "error \(context.pointee.err)" : text
    }
}
