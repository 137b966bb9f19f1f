/// Why a Redis call failed, as sentences that say what to do.
public enum RedisError: Error, Equatable, CustomStringConvertible {
    /// The server could not be reached or refused the connection or its credentials.
    case connectionFailed(server: String, reason: String)
    /// The connection broke during a call; the next call reconnects.
    case connectionLost(reason: String)
    /// The TLS handshake with the server failed.
    case tlsFailed(server: String, reason: String)
    /// The server answered a command with an error.
    case commandFailed(String)
    /// A reply had a shape the caller did not expect.
    case unexpectedReply(String)

    /// A readable sentence.
    public var description: String {
        switch self {
        case .connectionFailed(let server, let reason):
            "Could not connect to Redis at \(server): \(reason). Check REDIS_URL and that the server is running."
        case .connectionLost(let reason):
            "The Redis connection was lost (\(reason)); it is re-established on the next call."
        case .tlsFailed(let server, let reason):
            "The TLS handshake with Redis at \(server) failed: \(reason)."
        case .commandFailed(let message):
            "Redis refused a command: \(message)"
        case .unexpectedReply(let what):
            "Redis sent an unexpected reply: \(what)"
        }
    }
}
