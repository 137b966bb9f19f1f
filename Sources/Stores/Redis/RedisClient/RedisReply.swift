/// One reply of a Redis server (RESP2), copied out of hiredis into Swift values.
public enum RedisReply: Sendable, Equatable {
    /// A bulk string, as bytes (binary-safe).
    case bulkString([UInt8])
    /// A status reply such as `OK`.
    case status(String)
    /// An integer reply.
    case integer(Int64)
    /// An array reply.
    case array([RedisReply])
    /// A null bulk string or null array.
    case null
    /// An error reply such as `WRONGTYPE ...`: the command failed, the connection is fine.
    case error(String)

    /// The reply as an integer: integers, and bulk strings holding a decimal; nil is returned for `null`.
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .bulkString(let bytes): Int64(String(decoding: bytes, as: UTF8.self))
        case .status(let text): Int64(text)
        default: nil
        }
    }

    /// The reply as text: bulk strings (decoded as UTF-8) and status replies.
    public var stringValue: String? {
        switch self {
        case .bulkString(let bytes): String(decoding: bytes, as: UTF8.self)
        case .status(let text): text
        default: nil
        }
    }

    /// The elements of an array reply, or nil.
    public var arrayValue: [RedisReply]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// Throws `RedisError.commandFailed` for an error reply, otherwise returns the reply.
    @discardableResult
    public func checked() throws -> RedisReply {
        if case .error(let message) = self { throw RedisError.commandFailed(message) }
        return self
    }
}
