import ATProtoRepository
import BlueskyAPI
import FakeBluesky
import Foundation
import Testing

/// `ATProtoRepository` on CAR files: what the fake's `getRepo` writes (DAG-CBOR blocks, SHA-256 CIDs, a tree with
/// left and right subtrees and shared key prefixes) reads back record for record, and a file that is not one, cut
/// short, or crafted to exhaust memory or the stack is refused with a `RepositoryError`, never a crash.
@Suite("A Bluesky repository export (CAR) read with libcbor")
struct RepositoryExportTests {
    @Test(
        "Every record of the fake's export of an account reads back in key order with the value written: posts, the profile and reposts, nothing else"
    )
    func readsBack() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        let car = await server.repositoryExport(of: BlueskyFixture.person)
        let repository = try Repository(car: car)
        #expect(repository.did == BlueskyFixture.person)
        var read: [(key: String, value: JSONValue)] = []
        let counts = try repository.forEachRecord(in: [PostRecord.type, "app.bsky.actor.profile", "app.bsky.feed.repost"]) { record in
            read.append(("\(record.collection)/\(record.rkey)", record.value.json))
        }
        let posts = await server.records(of: BlueskyFixture.person, in: PostRecord.type)
        let profile = await server.records(of: BlueskyFixture.person, in: "app.bsky.actor.profile")
        #expect(counts.missing == 0 && counts.read == read.count)
        #expect(read.map(\.key) == read.map(\.key).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }, "in key order")
        for post in posts + profile {
            let key = post.uri.split(separator: "/").suffix(2).joined(separator: "/")
            #expect(read.first { $0.key == key }?.value == post.value, "\(key)")
        }
        let reposts = read.filter { $0.key.hasPrefix("app.bsky.feed.repost/") }
        #expect(reposts.count == 1 && reposts.first?.value["subject"]?["uri"]?.stringValue?.hasPrefix("at://") == true)
        #expect(read.count == posts.count + profile.count + reposts.count)
        // Only the collections asked for.
        #expect(try repository.forEachRecord(in: ["app.bsky.feed.like"]) { _ in }.read == 0)
    }

    @Test(
        "Bad files are refused with a reason: empty, not a CAR, cut short at any point, bytes flipped anywhere (none crashes); blocks crafted against libcbor and the stack"
    )
    func refusesBadFiles() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        let car = await server.repositoryExport(of: BlueskyFixture.person)
        // Why it was refused; nil when read, with the parts missing counted in `missing`.
        var missing = 0
        func reason(_ bytes: [UInt8]) -> String? {
            do {
                missing = try Repository(car: bytes).forEachRecord(in: [PostRecord.type, "app.bsky.actor.profile"]) { _ in }.missing
                return nil
            } catch let error as RepositoryError {
                return error.reason
            } catch {
                return "not a RepositoryError: \(error)"
            }
        }
        #expect(reason([]) == "the file is empty")
        #expect(reason(Array("{\"posts\": []}".utf8))?.hasPrefix("not a CAR file") == true)
        // Cut anywhere: refused, saying why; or, cut between two blocks, read with the blocks cut off counted missing.
        var cuts = Array(stride(from: 1, to: car.count, by: max(1, car.count / 150)))
        // And exactly where the last block starts (the header and each block: a varint length, then that many bytes).
        func varint(at index: Int) -> (value: Int, size: Int) {
            var value = 0
            var size = 0
            while true {
                let byte = car[index + size]
                value |= Int(byte & 0x7F) << (7 * size)
                size += 1
                if byte & 0x80 == 0 { return (value, size) }
            }
        }
        var offset = 0
        var lastBlock = 0
        while offset < car.count {
            lastBlock = offset
            let (length, size) = varint(at: offset)
            offset += size + length
        }
        cuts.append(lastBlock)
        for length in cuts {
            missing = 0
            let why = reason(Array(car.prefix(length)))
            #expect(why.map { !$0.hasPrefix("not a RepositoryError") } ?? (missing > 0), "cut at \(length): \(why ?? "read as whole")")
        }
        // Bytes flipped: read (a flip inside a text) or refused with a reason; never anything else.
        var state: UInt64 = 42
        for _ in 0..<300 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var mutated = car
            let index = Int((state >> 33) % UInt64(car.count))
            mutated[index] ^= UInt8(truncatingIfNeeded: state >> 13) | 1
            #expect(reason(mutated)?.hasPrefix("not a RepositoryError") != true, "byte \(index)")
        }
        // Blocks crafted against libcbor and the converter: an array declaring 2^40 elements (libcbor would allocate
        // them first), nesting 100 deep, a tag other than 42, a key that is not text, an indefinite length, bytes after
        // the item.
        let crafted: [([UInt8], String)] = [
            ([0x9B, 0, 0, 0x01, 0, 0, 0, 0, 0, 0x00], "declaring more elements"),
            ([0xBB, 0, 0, 0x01, 0, 0, 0, 0, 0, 0x00], "declaring more elements"),
            (Array(repeating: 0x81, count: 100) + [0x00], "nested deeper than 64"),
            ([0xC1, 0x00], "a CBOR tag other than 42"),
            ([0xA1, 0x01, 0x02], "a map whose key is not text"),
            ([0x9F, 0x00, 0xFF], "an array of indefinite length"),
            ([0x00, 0x00], "1 bytes after its item"),
            ([0xD8, 42, 0x43, 0x01, 0x71, 0x12], "a link that is not a byte string starting with 0"),
        ]
        for (bytes, expected) in crafted {
            do {
                _ = try DAGCBOR.decode(bytes)
                Issue.record("\(bytes.prefix(12)) was decoded")
            } catch {
                #expect(error.reason.contains(expected), "\(error.reason)")
            }
        }
    }
}
