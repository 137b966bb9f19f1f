public import BlueskyAPI
import Foundation

/// A Bluesky account's repository as exported (Settings → "Export my data", or `com.atproto.sync.getRepo`): a CAR v1
/// file whose root is the signed commit, whose `data` is the root of the Merkle search tree that maps each record's
/// key (`app.bsky.feed.post/<rkey>`) to the CID of its DAG-CBOR block.
///
/// The file is read whole (an account's records without media are tens of megabytes at most); the commit's signature
/// is not checked (the export comes from the person's own PDS, and nothing here trusts it further than their posts),
/// but every block read is checked against its CID (its SHA-256), so that a changed block is refused, not read.
public struct Repository: Sendable {
    /// The account's DID, from the commit.
    public let did: String
    private let bytes: [UInt8]
    private let blocks: [CID: Range<Int>]
    private let dataRoot: CID

    /// One record: its collection, its record key, and its value.
    public struct Record: Sendable {
        /// The collection's NSID, such as `app.bsky.feed.post`.
        public var collection: String
        /// The record key.
        public var rkey: String
        /// The record as DAG-CBOR decoded.
        public var value: CBORValue
    }

    /// Reads a CAR file's header and block index, and its commit; throws `RepositoryError` saying what is wrong.
    public init(car: [UInt8]) throws(RepositoryError) {
        guard !car.isEmpty else { throw RepositoryError("the file is empty") }
        bytes = car
        var reader = ByteReader(car[...])
        let headerLength = try reader.varint()
        guard headerLength > 0, headerLength <= 1 << 20 else { throw RepositoryError("not a CAR file (its header would be \(headerLength) bytes)") }
        let header: CBORValue
        do { header = try DAGCBOR.decode(try reader.take(Int(headerLength))) } catch { throw RepositoryError("not a CAR file (\(error))") }
        guard case .integer(1)? = header["version"] else { throw RepositoryError("not a CAR file of version 1") }
        guard case .array(let roots)? = header["roots"], let root = roots.first?.link else { throw RepositoryError("a CAR file without a root") }
        var blocks: [CID: Range<Int>] = [:]
        while !reader.isAtEnd {
            let sectionStart = reader.offset
            let length = try reader.varint()
            guard length > 0, length <= UInt64(reader.remaining) else {
                throw RepositoryError(
                    "a block at byte \(sectionStart) says it is \(length) bytes long; \(reader.remaining) are left (the file is cut short?)")
            }
            let end = reader.offset + Int(length)
            let cid = try CID.read(from: &reader)
            guard reader.offset <= end else { throw RepositoryError("a block at byte \(sectionStart) shorter than its CID") }
            blocks[cid] = reader.offset..<end
            _ = try reader.take(end - reader.offset)
        }
        self.blocks = blocks
        guard let commitRange = blocks[root] else { throw RepositoryError("the root commit \(root) is not in the file") }
        let commit = try Self.decode(car[commitRange], named: root)
        guard let did = commit["did"]?.text, did.hasPrefix("did:") else { throw RepositoryError("the root is not a repository commit (no did)") }
        guard let data = commit["data"]?.link else { throw RepositoryError("the commit has no data (the tree's root)") }
        self.did = did
        dataRoot = data
    }

    /// How many bytes of record blocks one walk may give beyond the file's own size: a block named under several keys
    /// is given once for each, and past this much the walk throws, so that a file cannot make its reader (and the
    /// importer after it) handle far more than the file holds.
    public static let repeatedRecordAllowance = 1 << 16

    /// How many blocks the file holds.
    public var blockCount: Int { blocks.count }

    /// The decoded block `cid`, nil when the file does not hold it. A block whose bytes do not hash to its CID (changed
    /// after it was named, or named by a hash other than SHA-256 or as other than DAG-CBOR) throws: it is not read as
    /// the record it claims to be.
    public func block(_ cid: CID) throws(RepositoryError) -> CBORValue? {
        guard let range = blocks[cid] else { return nil }
        return try Self.decode(bytes[range], named: cid)
    }

    /// The block `data` decoded, once checked to be the one `cid` names.
    private static func decode(_ data: ArraySlice<UInt8>, named cid: CID) throws(RepositoryError) -> CBORValue {
        guard cid.names(dagCBOR: data) else {
            throw RepositoryError("the block \(cid) does not hash to its CID (a DAG-CBOR block's SHA-256): its bytes were changed")
        }
        return try DAGCBOR.decode(data)
    }

    /// Walks the tree in key order and gives each record of the `collections` to `body`; a record whose block the file
    /// lacks (a partial export) is counted in the answer, not read. A tree that loops, nests too deep, is not made of
    /// tree nodes, or names its records more often than the file could hold them (`repeatedRecordAllowance`) throws.
    @discardableResult
    public func forEachRecord(in collections: Set<String>, _ body: (Record) throws -> Void) throws -> (read: Int, missing: Int) {
        var read = 0
        var missing = 0
        var given = 0
        var visited: Set<CID> = []
        // Depth-first, left to right: the node's left subtree, then each entry followed by its right subtree.
        func walk(_ node: CID, depth: Int) throws {
            guard depth < 64 else { throw RepositoryError("the record tree is more than 64 levels deep") }
            guard visited.insert(node).inserted else { throw RepositoryError("the record tree loops back to \(node)") }
            guard let value = try block(node) else {
                missing += 1
                return
            }
            guard case .array(let entries)? = value["e"] else { throw RepositoryError("a tree node \(node) without entries") }
            if let left = value["l"]?.link { try walk(left, depth: depth + 1) }
            var key: [UInt8] = []
            for entry in entries {
                guard case .integer(let prefix)? = entry["p"], case .bytes(let suffix)? = entry["k"], let cid = entry["v"]?.link,
                    prefix >= 0, prefix <= key.count
                else { throw RepositoryError("a malformed entry in the tree node \(node)") }
                key = Array(key.prefix(Int(prefix))) + suffix
                let name = String(decoding: key, as: UTF8.self)
                // `collection/rkey`, split at the first slash (a key starting with one is no collection's).
                let parts = name.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                if parts.count == 2, collections.contains(parts[0]) {
                    if let range = blocks[cid] {
                        given += range.count
                        guard given <= bytes.count + Self.repeatedRecordAllowance else {
                            throw RepositoryError(
                                "the tree names its records more often than the file could hold them (the same block under many keys)")
                        }
                        read += 1
                        try body(Record(collection: parts[0], rkey: parts[1], value: try Self.decode(bytes[range], named: cid)))
                    } else {
                        missing += 1
                    }
                }
                if let right = entry["t"]?.link { try walk(right, depth: depth + 1) }
            }
        }
        try walk(dataRoot, depth: 0)
        return (read, missing)
    }
}

extension CBORValue {
    /// The value in the AT Protocol's JSON form (a link as `{"$link": cid}`, bytes as `{"$bytes": base64}`), as the
    /// XRPC methods would give the same record.
    public var json: JSONValue {
        switch self {
        case .integer(let value): .integer(value)
        case .bytes(let bytes): .object(["$bytes": .string(Data(bytes).base64EncodedString())])
        case .text(let text): .string(text)
        case .array(let array): .array(array.map(\.json))
        case .map(let map): .object(map.mapValues(\.json))
        case .link(let cid): .object(["$link": .string(cid.description)])
        case .bool(let flag): .bool(flag)
        case .null: .null
        case .float(let number): .number(number)
        }
    }
}
