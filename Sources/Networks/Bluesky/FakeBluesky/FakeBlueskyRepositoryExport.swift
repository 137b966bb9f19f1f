import BlueskyAPI
import Crypto
import Foundation

/// What `com.atproto.sync.getRepo` and Settings → "Export my data" give: an account's repository as a CAR v1 file.
/// Every block is DAG-CBOR (map keys in length-then-byte order, integers in their shortest form, floats in 64 bits)
/// named by a CIDv1 of its SHA-256; the root is an unsigned commit (`did`, `version` 3, `data`, `rev`, `prev`,
/// `sig`), and `data` is a tree of Merkle-search-tree nodes (`l`, and entries `p`, `k`, `v`, `t` with keys sharing
/// their prefix). Unlike a PDS's tree, its layers are chosen by position (`fanout` entries a node) rather than by
/// each key's hash: a reader walks both alike.
enum FakeBlueskyRepositoryExport {
    /// The CAR file of `did`'s `records` (keys `collection/rkey`).
    static func car(did: String, records: [(key: String, value: JSONValue)], fanout: Int = 4) -> [UInt8] {
        var blocks: [(cid: [UInt8], data: [UInt8])] = []
        func add(_ value: CBOR) -> [UInt8] {
            let data = value.encoded
            let cid = [0x01, 0x71, 0x12, 0x20] + Array(SHA256.hash(data: data))
            blocks.append((cid, data))
            return cid
        }
        let sorted = records.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
        let values = sorted.map { add(CBOR($0.value)) }
        let keys = sorted.map { Array($0.key.utf8) }
        // A node over keys[range]: up to `fanout` entries, the runs between them in subtrees.
        func node(_ range: Range<Int>) -> [UInt8]? {
            guard !range.isEmpty else { return nil }
            let count = range.count
            let pivots = count <= fanout ? Array(range) : (1...fanout).map { range.lowerBound + $0 * count / (fanout + 1) }
            var entries: [CBOR] = []
            var previous: [UInt8] = []
            for (index, pivot) in pivots.enumerated() {
                let next = index + 1 < pivots.count ? pivots[index + 1] : range.upperBound
                let shared = zip(previous, keys[pivot]).prefix { $0 == $1 }.count
                entries.append(
                    .map([
                        "p": .integer(Int64(shared)), "k": .bytes(Array(keys[pivot].dropFirst(shared))), "v": .link(values[pivot]),
                        "t": node(pivot + 1..<next).map(CBOR.link) ?? .null,
                    ]))
                previous = keys[pivot]
            }
            let left = node(range.lowerBound..<(pivots.first ?? range.upperBound))
            return add(.map(["l": left.map(CBOR.link) ?? .null, "e": .array(entries)]))
        }
        let data = node(0..<sorted.count) ?? add(.map(["l": .null, "e": .array([])]))
        let commit = add(
            .map([
                "did": .text(did), "version": .integer(3), "data": .link(data), "rev": .text(TID(date: Date(), clockID: 0).description),
                "prev": .null, "sig": .bytes(Array(repeating: 0, count: 64)),
            ]))
        var file = CBOR.map(["version": .integer(1), "roots": .array([.link(commit)])]).encoded
        file = varint(UInt64(file.count)) + file
        // The commit first, as a PDS writes it; then the rest.
        for block in [blocks.last!] + blocks.dropLast() {
            file += varint(UInt64(block.cid.count + block.data.count)) + block.cid + block.data
        }
        return file
    }

    static func varint(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.append(UInt8(rest & 0x7F) | (rest > 0x7F ? 0x80 : 0))
            rest >>= 7
        } while rest > 0
        return bytes
    }

    /// A DAG-CBOR item to write.
    indirect enum CBOR {
        case integer(Int64), bytes([UInt8]), text(String), array([CBOR]), map([String: CBOR]), link([UInt8]), bool(Bool), null, float(Double)

        /// A record's JSON as DAG-CBOR (a JSON record of the fake holds no links or bytes).
        init(_ json: JSONValue) {
            switch json {
            case .null: self = .null
            case .bool(let flag): self = .bool(flag)
            case .integer(let value): self = .integer(value)
            case .number(let value): self = .float(value)
            case .string(let text): self = .text(text)
            case .array(let array): self = .array(array.map(CBOR.init))
            case .object(let object): self = .map(object.mapValues(CBOR.init))
            }
        }

        var encoded: [UInt8] {
            func head(_ major: UInt8, _ value: UInt64) -> [UInt8] {
                switch value {
                case 0..<24: [major << 5 | UInt8(value)]
                case 24..<0x100: [major << 5 | 24, UInt8(value)]
                case 0x100..<0x1_0000: [major << 5 | 25] + withUnsafeBytes(of: UInt16(value).bigEndian, Array.init)
                case 0x1_0000..<0x1_0000_0000: [major << 5 | 26] + withUnsafeBytes(of: UInt32(value).bigEndian, Array.init)
                default: [major << 5 | 27] + withUnsafeBytes(of: value.bigEndian, Array.init)
                }
            }
            switch self {
            case .integer(let value): return value >= 0 ? head(0, UInt64(value)) : head(1, UInt64(-1 - value))
            case .bytes(let bytes): return head(2, UInt64(bytes.count)) + bytes
            case .text(let text): return head(3, UInt64(text.utf8.count)) + Array(text.utf8)
            case .array(let array): return head(4, UInt64(array.count)) + array.flatMap(\.encoded)
            case .map(let map):
                // DAG-CBOR's order: shorter keys first, then bytewise.
                let keys = map.keys.sorted { a, b in
                    a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
                }
                return head(5, UInt64(keys.count)) + keys.flatMap { CBOR.text($0).encoded + map[$0]!.encoded }
            case .link(let cid): return [0xD8, 42] + CBOR.bytes([0] + cid).encoded
            case .bool(let flag): return [flag ? 0xF5 : 0xF4]
            case .null: return [0xF6]
            case .float(let value): return [0xFB] + withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init)
            }
        }
    }
}
