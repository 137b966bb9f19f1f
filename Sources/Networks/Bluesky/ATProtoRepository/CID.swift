import Crypto

/// A content identifier (CID) as the AT Protocol uses them: version 1 (or the older bare multihash, version 0), a
/// codec, and a multihash, kept as its bytes.
public struct CID: Hashable, Sendable, CustomStringConvertible {
    /// The binary CID.
    public let bytes: [UInt8]

    /// Reads a whole binary CID; throws when `bytes` are not exactly one.
    public init(bytes: some Collection<UInt8>) throws(RepositoryError) {
        let array = Array(bytes)
        var reader = ByteReader(array[...])
        let read = try Self.read(from: &reader)
        guard reader.isAtEnd else { throw RepositoryError("a link with \(array.count - read.bytes.count) bytes after its CID") }
        self = read
    }

    private init(validated bytes: [UInt8]) { self.bytes = bytes }

    /// Whether this CID names `block` as the AT Protocol names its records, commits and tree nodes: version 1, the
    /// DAG-CBOR codec (0x71), and a SHA-256 multihash (0x12, 32 bytes) equal to the hash of `block`.
    func names(dagCBOR block: ArraySlice<UInt8>) -> Bool {
        guard bytes.count == 36, bytes[0] == 0x01, bytes[1] == 0x71, bytes[2] == 0x12, bytes[3] == 32 else { return false }
        return SHA256.hash(data: block).elementsEqual(bytes[4...])
    }

    /// Reads one binary CID from the front of `reader` (how a CAR section starts).
    static func read(from reader: inout ByteReader) throws(RepositoryError) -> CID {
        let start = reader.offset
        if reader.peek() == 0x12 {
            // Version 0: a bare SHA-256 multihash.
            _ = try reader.varint()
            guard try reader.varint() == 32 else { throw RepositoryError("a version 0 CID whose hash is not 32 bytes") }
            _ = try reader.take(32)
        } else {
            guard try reader.varint() == 1 else { throw RepositoryError("a CID of a version other than 0 or 1") }
            _ = try reader.varint()  // the codec: dag-cbor (0x71) for records and nodes, raw (0x55) for blobs
            _ = try reader.varint()  // the hash function
            let length = try reader.varint()
            guard length <= 64 else { throw RepositoryError("a CID whose hash is \(length) bytes long") }
            _ = try reader.take(Int(length))
        }
        return CID(validated: Array(reader.bytes[start..<reader.offset]))
    }

    /// The CID as text: multibase base32 (lower case, no padding), as `bafyrei…`; version 0 as base58 is not used
    /// by the AT Protocol, so it is written the same way.
    public var description: String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var text = "b"
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                text.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
            buffer &= (1 << bits) - 1
        }
        if bits > 0 { text.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return text
    }
}

/// Reads a byte buffer front to back: unsigned LEB128 varints (as CAR and CID use) and runs of bytes, each checked
/// against what is left.
struct ByteReader {
    let bytes: ArraySlice<UInt8>
    private(set) var offset: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    var isAtEnd: Bool { offset >= bytes.endIndex }
    var remaining: Int { bytes.endIndex - offset }
    func peek() -> UInt8? { isAtEnd ? nil : bytes[offset] }

    /// An unsigned varint of at most 9 bytes (63 bits).
    mutating func varint() throws(RepositoryError) -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 63, by: 7) {
            guard let byte = peek() else { throw RepositoryError("cut short in a varint at byte \(offset)") }
            offset += 1
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte & 0x80 == 0 { return value }
        }
        throw RepositoryError("a varint longer than 9 bytes at byte \(offset)")
    }

    /// The next `count` bytes.
    mutating func take(_ count: Int) throws(RepositoryError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw RepositoryError("cut short: \(count) bytes wanted at byte \(offset), \(remaining) left") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }
}
