import ATProtoRepository
import BlueskyAPI
import BotCore
import Crypto
import Foundation
import Testing

@testable import ArchiveImport
@testable import BlueskyNetwork
@testable import ExportFormats

/// The Bluesky repository reader (`ATProtoRepository`: CAR v1, DAG-CBOR through libcbor) fuzzed from its committed
/// corpus (`Corpus/car`, written by `script/generate-car-corpus.py`), by byte mutations and by mutations that know the
/// file's structure (`CARMutator`): the header, each block's length, CID and bytes, and the records and tree nodes
/// inside, rebuilt with their hashes right or left wrong on purpose.
@Suite("Fuzzing the Bluesky repository reader (CAR, DAG-CBOR, libcbor)")
struct RepositoryFuzzTests {
    /// The collections the importer asks for.
    static let collections: Set<String> = [PostRecord.type, "app.bsky.feed.repost", "app.bsky.feed.like"]

    @Test(
        "A CAR file: records or a RepositoryError, never a trap; each record is one the file's hash-checked blocks hold under its key; posts convert or throw an ImportError; what is read is bounded by the file"
    )
    func carFiles() throws {
        // Its syntax as bytes: a CID's head, a link's, varints huge and over-long, CBOR heads of indefinite and 64-bit
        // lengths, floats, a tag, the break.
        var fuzzer = try Fuzzer(
            "car", tokens: ["roots", "version", "did:plc:", "app.bsky.feed.post/", "text", "createdAt"],
            byteTokens: [
                [0x01, 0x71, 0x12, 0x20], [0xD8, 0x2A, 0x58, 0x25, 0x00], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
                [0x80, 0x80, 0x80, 0x00], [0x9F], [0xBF], [0x5F], [0x7F], [0xFF], [0xFB], [0xF9], [0xC1], [0xD8, 0x2A],
                [0x9B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], [0x5B, 0, 0, 0, 1, 0, 0, 0, 0], [0xA1], [0x81], [0xF6],
            ])
        var outcomes = CAROutcomes()
        fuzzer.run(generating: { CARMutator.generate(&$0) }) { bytes in outcomes.count(Self.checkCAR(bytes)) }
        outcomes.report()
        // A target that refuses everything fuzzes nothing past the header: enough rounds must read records.
        let rounds = Fuzzer.iterations + fuzzer.corpus.count
        #expect(outcomes.readRecords * 10 >= rounds, "only \(outcomes.readRecords) of \(rounds) rounds read a record (\(outcomes))")
        #expect(outcomes.refused * 10 >= rounds, "only \(outcomes.refused) of \(rounds) rounds were refused (\(outcomes))")
    }

    /// What one round came to: refused (before any record), read without a record, or some records read (the walk may
    /// have been refused further on).
    enum CAROutcome { case refused, readNothing, readRecords }

    /// How many rounds came to what.
    struct CAROutcomes: CustomStringConvertible {
        /// Rounds of each outcome.
        var refused = 0, readNothing = 0, readRecords = 0
        /// Counts one round.
        mutating func count(_ outcome: CAROutcome) {
            switch outcome {
            case .refused: refused += 1
            case .readNothing: readNothing += 1
            case .readRecords: readRecords += 1
            }
        }
        /// The counts, in words.
        var description: String { "\(refused) refused, \(readNothing) read without records, \(readRecords) with records" }
        /// Prints the counts in a long run by hand (`FUZZ_ITERATIONS` set), to see where the rounds went.
        func report() { if Fuzzer.isLong { print("car: \(self)") } }
    }

    /// The properties, on one input.
    static func checkCAR(_ bytes: [UInt8]) -> CAROutcome {
        let repository: Repository
        do {
            repository = try Repository(car: bytes)  // throws(RepositoryError): nothing else can come out
        } catch {
            #expect(!error.reason.isEmpty)
            return .refused
        }
        let reference = CARReference(bytes)
        #expect(repository.did == reference.did, "the did is not the hash-checked root commit's")
        var records: [Repository.Record] = []
        var refused = false
        do {
            try repository.forEachRecord(in: collections) { records.append($0) }
        } catch is RepositoryError {
            refused = true
        } catch {
            Issue.record("not a RepositoryError: \(error)")
        }
        var size = 0
        for (index, record) in records.enumerated() {
            let key = record.collection + "/" + record.rkey
            #expect(collections.contains(record.collection), "\(key)")
            // A record is read only from a block that hashes to its CID, reached through tree nodes that do.
            #expect(
                reference.records[key]?.contains(CARMutator.encode(record.value)) == true,
                "\(key.debugDescription) → \(record.value) is not what the file's hash-checked blocks hold under that key")
            size += CARMutator.smallestSize(of: record.value)
            // Posts converted as the importer does (the first hundred: an entry repeated thousands of times is one post).
            guard record.collection == PostRecord.type, index < 100 else { continue }
            do {
                if let post = try BlueskyExport.archived(record, file: "repo.car", copyingLabels: record.rkey.utf8.count.isMultiple(of: 2)) {
                    #expect(TID(record.rkey).flatMap { Int64(exactly: $0.value) }.map { PostID($0) } == post.postID)
                    #expect(!post.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
                    #expect((0...253_402_300_799).contains(post.createdAt.timeIntervalSince1970), "\(record.value)")
                }
            } catch let error as ImportError {
                #expect(!error.description.contains("\n"), "\(error)")
            } catch {
                Issue.record("converting a post: not an ImportError: \(error)")
            }
        }
        // Bounded by the file: the records handed out, however often the same block is named, add up to no more than the
        // file and the allowance (each record's value is no larger than the block it was read from).
        #expect(size <= bytes.count + Repository.repeatedRecordAllowance, "\(records.count) records of \(size) bytes from \(bytes.count)")
        return !records.isEmpty ? .readRecords : refused ? .refused : .readNothing
    }
}

/// What a CAR file holds as the test reads it, independently of the reader: its blocks whose bytes hash to their CID
/// (CIDv1, DAG-CBOR, SHA-256), the did of the root commit if that is one of them, and every record reachable from it
/// through hash-checked tree nodes, under its key.
struct CARReference {
    /// The hash-checked blocks, by CID bytes.
    var verified: [[UInt8]: [UInt8]] = [:]
    /// The root commit's did.
    var did: String?
    /// Each key's values, as DAG-CBOR (a float NaN is not equal to itself; its encoding is), a key may be reached more
    /// than once in a crafted tree.
    var records: [String: [[UInt8]]] = [:]
    /// The root (the commit) and the tree's root, as CID bytes.
    var root: [UInt8]?, dataRoot: [UInt8]?

    /// What `bytes` hold; nothing when its sections do not add up.
    init(_ bytes: [UInt8]) {
        guard let file = CARFile(bytes) else { return }
        var verified: [[UInt8]: [UInt8]] = [:]
        for block in file.blocks where block.cid == CARMutator.cid(of: block.data) { verified[block.cid] = block.data }
        self.verified = verified
        let decoded = { (cid: [UInt8]) -> CBORValue? in verified[cid].flatMap { try? DAGCBOR.decode($0) } }
        guard let header = try? DAGCBOR.decode(file.header), case .array(let roots)? = header["roots"], let root = roots.first?.link,
            let commit = decoded(root.bytes)
        else { return }
        self.root = root.bytes
        did = commit["did"]?.text
        guard let data = commit["data"]?.link else { return }
        dataRoot = data.bytes
        var visited: Set<[UInt8]> = []
        var records: [String: [[UInt8]]] = [:]
        func walk(_ node: [UInt8], depth: Int) {
            guard depth < 64, visited.insert(node).inserted, let value = decoded(node), case .array(let entries)? = value["e"] else { return }
            if let left = value["l"]?.link { walk(left.bytes, depth: depth + 1) }
            var key: [UInt8] = []
            for entry in entries {
                guard case .integer(let prefix)? = entry["p"], case .bytes(let suffix)? = entry["k"], prefix >= 0, prefix <= key.count else { return }
                key = Array(key.prefix(Int(prefix))) + suffix
                if let cid = entry["v"]?.link, let record = decoded(cid.bytes) {
                    records[String(decoding: key, as: UTF8.self), default: []].append(CARMutator.encode(record))
                }
                if let right = entry["t"]?.link { walk(right.bytes, depth: depth + 1) }
            }
        }
        walk(data.bytes, depth: 0)
        self.records = records
    }
}

/// A CAR file taken apart: the header's bytes and each section's CID and data. Read leniently (a section whose CID
/// cannot be told apart is kept with no CID) and written back exactly.
struct CARFile {
    /// The header's DAG-CBOR.
    var header: [UInt8]
    /// Each section's CID (empty when it could not be told apart) and block.
    var blocks: [(cid: [UInt8], data: [UInt8])]

    /// A file of these parts.
    init(header: [UInt8], blocks: [(cid: [UInt8], data: [UInt8])]) {
        self.header = header
        self.blocks = blocks
    }

    /// The parts of `bytes`; nil when its sections' lengths do not add up to it.
    init?(_ bytes: [UInt8]) {
        var offset = 0
        func varint(before end: Int) -> Int? {
            var value = 0
            for shift in stride(from: 0, to: 63, by: 7) where offset < end {
                let byte = bytes[offset]
                offset += 1
                value |= Int(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }
        guard let headerLength = varint(before: bytes.count), headerLength <= bytes.count - offset else { return nil }
        header = Array(bytes[offset..<offset + headerLength])
        offset += headerLength
        blocks = []
        while offset < bytes.count {
            guard let length = varint(before: bytes.count), length <= bytes.count - offset else { return nil }
            let start = offset
            let end = offset + length
            // CIDv1: version, codec, hash function, hash length, then the hash.
            if varint(before: end) != nil, varint(before: end) != nil, varint(before: end) != nil, let hashLength = varint(before: end),
                hashLength <= end - offset
            {
                blocks.append((Array(bytes[start..<offset + hashLength]), Array(bytes[offset + hashLength..<end])))
            } else {
                blocks.append(([], Array(bytes[start..<end])))
            }
            offset = end
        }
    }

    /// The file's bytes.
    var bytes: [UInt8] {
        CARMutator.varint(header.count) + header + blocks.flatMap { CARMutator.varint($0.cid.count + $0.data.count) + $0.cid + $0.data }
    }
}

/// Makes CAR files for the fuzzer knowing their structure: a corpus file's records and tree are taken apart, changed
/// (values of the wrong lexicon type, keys that are not keys, entries repeated, nodes and commits and headers that are
/// not what they claim, CBOR crafted against libcbor), rebuilt with hashes that match, then its sections changed
/// (a block's bytes changed under its CID, CIDs of another version, codec or hash length, lengths too long, too short,
/// over-long, huge or cut short), and sometimes its bytes changed too.
enum CARMutator {
    /// A new input from one of `fuzzer`'s corpus files.
    static func generate(_ fuzzer: inout Fuzzer) -> [UInt8] {
        let seed = fuzzer.pick(fuzzer.corpus)
        // A quarter of the rounds: bytes changed alone, as for every target.
        if fuzzer.below(4) == 0 { return fuzzer.mutated(seed) }
        let reference = CARReference(seed)
        var did = reference.did ?? "did:plc:x"
        var records: [(key: [UInt8], block: [UInt8])] = reference.records.sorted { $0.key < $1.key }.compactMap { key, values in
            values.first.map { (Array(key.utf8), $0) }
        }
        var header: CBORValue?
        let nowhere = try! CID(bytes: [1, 0x71, 0x12, 0x20] + Array(repeating: 7, count: 32))
        var commitChange: ((inout [String: CBORValue]) -> Void)?
        var entryRepeats = 1
        for _ in 0..<fuzzer.below(3) {
            switch fuzzer.below(10) {
            case 0...2 where !records.isEmpty:  // a record's value changed to what its lexicon does not allow
                let index = fuzzer.below(records.count)
                records[index].block = changedRecord(records[index].block, &fuzzer)
            case 3 where !records.isEmpty:  // a record replaced by CBOR crafted against libcbor
                records[fuzzer.below(records.count)].block = crafted(&fuzzer)
            case 4 where !records.isEmpty:  // a key that is not collection/TID
                let index = fuzzer.below(records.count)
                let collection = String(decoding: records[index].key.prefix { $0 != UInt8(ascii: "/") }, as: UTF8.self)
                records[index].key = Array(
                    fuzzer.pick([
                        "", "/", collection, collection + "/", "/" + collection + "/3kgmr4plxuc2a", collection + "//3kgmr4plxuc2a",
                        collection + "/3kgmr4plxuc2a/x", collection + "/\n", collection + "/zzzzzzzzzzzzz", "app.bsky.feed.post/2222222222222",
                        collection + "/" + String(repeating: "3", count: 600), "app.bsky.feed.post/3kgmr4plxuc2a",
                    ]).utf8)
            case 5:  // the commit not a commit
                let changes: [(inout [String: CBORValue]) -> Void] = [
                    { $0["did"] = nil }, { $0["did"] = .integer(1) }, { $0["did"] = .text("plc:x") }, { $0["data"] = nil },
                    { $0["data"] = .text("bafy") },
                    { $0["data"] = .link(nowhere) }, { $0["version"] = .float(3) },
                ]
                commitChange = fuzzer.pick(changes)
            case 6:  // the header not a CAR v1 header
                let headers: [CBORValue] = [
                    .array([]), .integer(1), .text("roots version"), .map(["version": .integer(1)]),
                    .map(["version": .integer(2), "roots": .array([])]),
                    .map(["version": .float(1), "roots": .array([])]), .map(["version": .text("1"), "roots": .array([])]),
                    .map(["version": .integer(1), "roots": .array([])]), .map(["version": .integer(1), "roots": .text("bafy")]),
                    .map(["version": .integer(1), "roots": .array([.integer(42)])]),
                    .map(["version": .integer(1), "roots": .array([.link(nowhere)])]),
                ]
                header = fuzzer.pick(headers)
            case 7 where !records.isEmpty:  // one entry named many times over (the same record under each)
                entryRepeats = fuzzer.pick([2, 50, 1_000, 3_000])
            case 8:  // a did that is not one
                did = fuzzer.pick(["did:", "did:plc:\n", "", String(repeating: "d", count: 300), "did:plc:ewvi7nxzyoun6zhxrhs64oiz"])
            default:
                break
            }
        }
        var file = build(
            did: did, records: records, fanout: 1 + fuzzer.below(5), entryRepeats: entryRepeats, commitChange: commitChange, header: header,
            crafted: fuzzer.below(6) == 0 ? crafted(&fuzzer) : nil)
        // Then the sections themselves.
        var bytes: [UInt8]?
        sections: for _ in 0..<(fuzzer.below(2) == 0 ? 0 : 1 + fuzzer.below(2)) where !file.blocks.isEmpty {
            let index = fuzzer.below(file.blocks.count)
            switch fuzzer.below(6) {
            case 0 where !file.blocks[index].data.isEmpty:  // the block's bytes changed under its CID
                let position = fuzzer.below(file.blocks[index].data.count)
                file.blocks[index].data[position] ^= UInt8(1 + fuzzer.below(255))
            case 1 where file.blocks[index].cid.count > 4:  // the CID of another version, codec, hash function or hash length
                let field = fuzzer.below(4)
                let values: [[UInt8]] = [[0x00, 0x02, 0x12, 0x80], [0x55, 0x70, 0x00, 0x01], [0x13, 0x00, 0x11, 0x16], [0, 31, 33, 64, 65]]
                file.blocks[index].cid[field] = fuzzer.pick(values[field])
            case 2:  // a block twice, dropped, or moved
                let block = file.blocks.remove(at: index)
                switch fuzzer.below(3) {
                case 0:
                    file.blocks.insert(block, at: fuzzer.below(file.blocks.count + 1))
                    file.blocks.insert(block, at: fuzzer.below(file.blocks.count + 1))
                case 1: break
                default: file.blocks.insert(block, at: fuzzer.below(file.blocks.count + 1))
                }
            case 3:  // the same CID twice, the second with other bytes
                var other = file.blocks[index]
                other.data = fuzzer.below(2) == 0 ? crafted(&fuzzer) : Array(other.data.dropLast())
                file.blocks.insert(other, at: index + 1)
            default:  // lengths: too long, too short, over-long, huge, cut short
                var parts = file.blocks.map { $0.cid + $0.data }
                var lengths = parts.map { varint($0.count) }
                var head = varint(file.header.count)
                let inHeader = fuzzer.below(4) == 0
                let payload = inHeader ? file.header.count : parts[index].count
                var overLong = varint(payload)
                overLong[overLong.count - 1] |= 0x80
                let choices: [[UInt8]] = [
                    varint(payload * 2 + 1_000), varint(payload + 1), varint(max(0, payload - 40)), [0], overLong + [0x80, 0x00],
                    [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], [0x80],
                ]
                let length = fuzzer.pick(choices)
                if inHeader { head = length } else { lengths[index] = length }
                if fuzzer.below(3) == 0 { parts[index] = [] }  // the file cut short after the length
                bytes = head + file.header + zip(lengths, parts).flatMap { $0 + $1 }
                if fuzzer.below(3) == 0, let whole = bytes { bytes = Array(whole.prefix(fuzzer.below(whole.count + 1))) }
                break sections
            }
        }
        let result = bytes ?? file.bytes
        return fuzzer.below(5) == 0 ? fuzzer.mutated(result) : result
    }

    /// A CAR file of `records` (keys in order) under a commit of `did`, with a tree of at most `fanout` entries a node
    /// (each entry `entryRepeats` times), the commit changed by `commitChange`, the header replaced by `header`, and a
    /// `crafted` block linked from the commit as `extra`.
    static func build(
        did: String, records: [(key: [UInt8], block: [UInt8])], fanout: Int, entryRepeats: Int = 1,
        commitChange: ((inout [String: CBORValue]) -> Void)? = nil, header: CBORValue? = nil, crafted: [UInt8]? = nil
    ) -> CARFile {
        var blocks: [(cid: [UInt8], data: [UInt8])] = []
        func add(_ data: [UInt8]) -> CID {
            let name = cid(of: data)
            blocks.append((name, data))
            return try! CID(bytes: name)
        }
        let values = records.map { add($0.block) }
        func node(_ range: Range<Int>) -> CID? {
            guard !range.isEmpty else { return nil }
            let count = range.count
            let pivots = count <= fanout ? Array(range) : (1...fanout).map { range.lowerBound + $0 * count / (fanout + 1) }
            var entries: [CBORValue] = []
            var previous: [UInt8] = []
            for (index, pivot) in pivots.enumerated() {
                let next = index + 1 < pivots.count ? pivots[index + 1] : range.upperBound
                let key = records[pivot].key
                let shared = zip(previous, key).prefix { $0 == $1 }.count
                let entry = CBORValue.map([
                    "p": .integer(Int64(shared)), "k": .bytes(Array(key.dropFirst(shared))), "v": .link(values[pivot]),
                    "t": node(pivot + 1..<next).map(CBORValue.link) ?? .null,
                ])
                entries.append(entry)
                if index == 0 && entryRepeats > 1 {
                    // The same key again: each repeat shares all of it.
                    entries += Array(
                        repeating: CBORValue.map(["p": .integer(Int64(key.count)), "k": .bytes([]), "v": .link(values[pivot]), "t": .null]),
                        count: entryRepeats - 1)
                }
                previous = key
            }
            let left = node(range.lowerBound..<(pivots.first ?? range.upperBound))
            return add(encode(.map(["l": left.map(CBORValue.link) ?? .null, "e": .array(entries)])))
        }
        let data = node(0..<records.count) ?? add(encode(.map(["l": .null, "e": .array([])])))
        var commit: [String: CBORValue] = [
            "did": .text(did), "version": .integer(3), "data": .link(data), "rev": .text("3lbhbgd2gqk2c"), "prev": .null,
            "sig": .bytes(Array(repeating: 0, count: 64)),
        ]
        if let crafted { commit["extra"] = .link(add(crafted)) }
        commitChange?(&commit)
        let root = add(encode(.map(commit)))
        let head = encode(header ?? .map(["version": .integer(1), "roots": .array([.link(root)])]))
        return CARFile(header: head, blocks: [blocks.last!] + blocks.dropLast())
    }

    /// A record's block with one of its fields of a type its lexicon does not allow, or a value DAG-CBOR forbids.
    static func changedRecord(_ block: [UInt8], _ fuzzer: inout Fuzzer) -> [UInt8] {
        guard case .map(var map)? = try? DAGCBOR.decode(block) else { return block }
        let field = fuzzer.pick(["text", "createdAt", "$type", "reply", "facets", "embed", "labels", "langs", "subject"])
        let values: [CBORValue] = [
            .integer(7), .integer(-1), .integer(.max), .float(1.5), .float(.nan), .float(.infinity), .null, .bool(true), .bytes([0xFF, 0xFE]),
            .text(""),
            .text(" \n\t"), .text("2024-13-45T99:99:99Z"), .text("0000-01-01T00:00:00Z"), .text("-0001-01-01T00:00:00Z"),
            .text("+275760-09-13T00:00:00Z"),
            .text("99999-01-01T00:00:00Z"), .text("1969-12-31T23:59:59Z"), .text("9999-12-31T23:59:59.999999Z"),
            .text("2024-01-02T03:04:05.000+24:00"),
            .text(String(repeating: "猫", count: 400)), .array([]), .array([.null]), .map([:]), .map(["values": .array([.map(["val": .integer(1)])])]),
            .map(["root": .null, "parent": .map(["uri": .text("at://"), "cid": .integer(0)])]),
            .array([
                .map([
                    "index": .map(["byteStart": .float(0), "byteEnd": .integer(-5)]),
                    "features": .array([.map(["$type": .text("app.bsky.richtext.facet#link")])]),
                ])
            ]),
            .map(["$type": .text("app.bsky.embed.record"), "record": .integer(1)]),
        ]
        if fuzzer.below(8) == 0 { map[field] = nil } else { map[field] = fuzzer.pick(values) }
        var encoded = encode(.map(map))
        if fuzzer.below(6) == 0, !map.isEmpty {
            // A key twice: the map's count one more, its first pair written again at its end.
            guard encoded.first.map({ $0 & 0xE0 == 0xA0 && $0 & 0x1F < 23 }) == true, let first = map.keys.min(by: keyOrder) else { return encoded }
            encoded[0] += 1
            encoded += encode(.text(first)) + encode(map[first]!)
        }
        return encoded
    }

    /// A block crafted against libcbor and the converter.
    static func crafted(_ fuzzer: inout Fuzzer) -> [UInt8] {
        let depth = fuzzer.pick([63, 64, 65, 2_047, 2_048, 2_049, 5_000])
        let arrays: [UInt8] = Array(repeating: 0x81, count: depth) + [0x00]
        let maps: [UInt8] = Array(repeating: [0xA1, 0x61, 0x61] as [UInt8], count: depth).flatMap { $0 } + [0x00]
        let tags: [UInt8] = Array(repeating: [0xD8, 0x2A] as [UInt8], count: depth).flatMap { $0 } + [0x40]
        let indefinite: [UInt8] = Array(repeating: 0x9F, count: depth) + Array(repeating: 0xFF, count: depth)
        let choices: [[UInt8]] = [
            arrays, maps, tags, indefinite,  // nested deep: past the converter's 64, past libcbor's stack of 2,048
            [0xBF, 0x61, 0x61, 0x01, 0xFF], [0x5F, 0x41, 0x00, 0x41, 0x01, 0xFF], [0x7F, 0x61, 0x61, 0xFF], [0x5F, 0x5F, 0xFF, 0xFF],  // indefinite
            // huge byte/text lengths:
            [0x5B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00], [0x7B, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00],
            [0x9B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], [0xBB, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00],
            [0x9A, 0xFF, 0xFF, 0xFF, 0xFF, 0x00],
            [0x5A, 0xFF, 0xFF, 0xFF, 0xF0, 0x00], [0x79, 0xFF, 0xFF, 0x61],
            // tags, links:
            [0xC1, 0x00], [0xD9, 0xD9, 0xF7, 0x00], [0xD8, 0x2A, 0x00], [0xD8, 0x2A, 0x41, 0x01], [0xD8, 0x2A, 0x45, 0x00, 0x01, 0x71, 0x12, 0x20],
            [0xD8, 0x2A, 0x58, 0x25, 0x00] + [0x01, 0x71, 0x12, 0x40] + Array(repeating: 0, count: 32),
            // floats, simple values:
            [0xF9, 0x7E, 0x00], [0xFA, 0x7F, 0x80, 0x00, 0x00], [0xFB, 0xFF, 0xF0, 0, 0, 0, 0, 0, 0], [0xF7], [0xF0], [0xF8, 0xFF], [0xFF],
            [0xA2, 0x61, 0x65, 0x80, 0x61, 0x65, 0x80], [0xA1, 0x01, 0x02], [0xA1, 0x41, 0x65, 0x80],
            [0xA1, 0x61, 0x65, 0xFB, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0],  // keys
            // bad UTF-8, big ints:
            [0x62, 0xC3, 0x28], [0x1B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], [0x3B, 0x80, 0, 0, 0, 0, 0, 0, 0], [0x18, 0x01],
            [], [0x00, 0x00], [0x1C],
            [0xA2, 0x61, 0x6C, 0xF6, 0x61, 0x65, 0x81, 0xA3, 0x61, 0x70, 0xF9, 0x3C, 0x00, 0x61, 0x6B, 0x40, 0x61, 0x76, 0xF6],
        ]
        return fuzzer.pick(choices)
    }

    /// The CIDv1 (DAG-CBOR, SHA-256) of `data`.
    static func cid(of data: [UInt8]) -> [UInt8] { [0x01, 0x71, 0x12, 0x20] + Array(SHA256.hash(data: data)) }

    /// An unsigned LEB128 varint.
    static func varint(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = UInt64(max(0, value))
        repeat {
            bytes.append(UInt8(rest & 0x7F) | (rest > 0x7F ? 0x80 : 0))
            rest >>= 7
        } while rest > 0
        return bytes
    }

    /// DAG-CBOR's order of map keys: shorter first, then bytewise.
    static func keyOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
    }

    /// `value` as DAG-CBOR (integers in their shortest form, floats in 64 bits, keys in DAG-CBOR's order).
    static func encode(_ value: CBORValue) -> [UInt8] {
        func head(_ major: UInt8, _ value: UInt64) -> [UInt8] {
            switch value {
            case 0..<24: [major << 5 | UInt8(value)]
            case 24..<0x100: [major << 5 | 24, UInt8(value)]
            case 0x100..<0x1_0000: [major << 5 | 25] + withUnsafeBytes(of: UInt16(value).bigEndian, Array.init)
            case 0x1_0000..<0x1_0000_0000: [major << 5 | 26] + withUnsafeBytes(of: UInt32(value).bigEndian, Array.init)
            default: [major << 5 | 27] + withUnsafeBytes(of: value.bigEndian, Array.init)
            }
        }
        switch value {
        case .integer(let number): return number >= 0 ? head(0, UInt64(number)) : head(1, UInt64(-1 - number))
        case .bytes(let bytes): return head(2, UInt64(bytes.count)) + bytes
        case .text(let text): return head(3, UInt64(text.utf8.count)) + Array(text.utf8)
        case .array(let array): return head(4, UInt64(array.count)) + array.flatMap(encode)
        case .map(let map): return head(5, UInt64(map.count)) + map.keys.sorted(by: keyOrder).flatMap { encode(.text($0)) + encode(map[$0]!) }
        case .link(let cid): return [0xD8, 42] + encode(.bytes([0] + cid.bytes))
        case .bool(let flag): return [flag ? 0xF5 : 0xF4]
        case .null: return [0xF6]
        case .float(let number): return [0xFB] + withUnsafeBytes(of: number.bitPattern.bigEndian, Array.init)
        }
    }

    /// The fewest bytes any CBOR encoding of `value` takes (a float as a half): never more than the block it was read from.
    static func smallestSize(of value: CBORValue) -> Int {
        func head(_ count: Int) -> Int { count < 24 ? 1 : count < 0x100 ? 2 : count < 0x1_0000 ? 3 : count < 0x1_0000_0000 ? 5 : 9 }
        switch value {
        case .integer(let number): return head(Int(clamping: number >= 0 ? number : -1 - number))
        case .bytes(let bytes): return head(bytes.count) + bytes.count
        case .text(let text): return head(text.utf8.count) + text.utf8.count
        case .array(let array): return head(array.count) + array.reduce(0) { $0 + smallestSize(of: $1) }
        case .map(let map): return head(map.count) + map.reduce(0) { $0 + head($1.key.utf8.count) + $1.key.utf8.count + smallestSize(of: $1.value) }
        case .link(let cid): return 2 + head(cid.bytes.count + 1) + cid.bytes.count + 1
        case .bool, .null: return 1
        case .float: return 3
        }
    }
}
