import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// TCP ports on loopback.
public enum FreePort {
    /// A port nothing listens on now.
    public static func pick() throws -> Int {
        let (descriptor, port) = boundSocket()
        close(descriptor)
        return port
    }

    /// A TCP socket bound to a free port on 127.0.0.1, and that port.
    static func boundSocket() -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether something accepts connections on `port`.
    public static func isListening(_ port: Int) throws -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// A TCP port on loopback that takes connections (the kernel completes them) and never answers: a database or an API
/// that hangs. Open until `close()`.
public final class SilentListener: @unchecked Sendable {
    /// The port it listens on.
    public let port: Int
    private let descriptor: Int32

    /// Listens on a free port.
    public init() throws {
        let (descriptor, port) = FreePort.boundSocket()
        guard listen(descriptor, 64) == 0 else {
            Glibc.close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        self.descriptor = descriptor
        self.port = port
    }

    /// Stops listening.
    public func close() { _ = Glibc.close(descriptor) }
}

/// A TCP port on loopback that refuses every connection (bound, never listening) and that no other server can take
/// while it is held: a port picked free and let go may be taken by a server of a test running beside. Held until
/// `close()`.
public final class RefusingPort: @unchecked Sendable {
    /// The port.
    public let port: Int
    private let descriptor: Int32

    /// Holds a free port.
    public init() {
        (descriptor, port) = FreePort.boundSocket()
    }

    /// Lets the port go.
    public func close() { _ = Glibc.close(descriptor) }
}
