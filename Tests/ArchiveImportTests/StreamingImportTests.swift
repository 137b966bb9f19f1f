import BotCore
import Classifier
import Foundation
import NetworkRegistry
import Stores
import TestSupport
import Testing

@testable import ArchiveImport
@testable import ExportFormats

/// The import reads exports of any size a megabyte at a time, and refuses what is not sound by name.
@Suite("Reading exports in little memory, and refusing unsound ones", .serialized)
struct StreamingImportTests {
    static func file(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appending(path: "array-\(UUID().uuidString).js")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("Each element of a JSON array, across the megabyte chunks it is read in, with brackets and quotes inside strings")
    func arrayElements() throws {
        let long = String(repeating: "あ", count: 600_000)  // 1.8 MB: elements straddle chunk boundaries
        let text = #"window.YTD.tweets.part0 = [ {"a": "x]\"}{[", "n": [1, [2]]}, "\#(long)" ,"plain",  {"b": "\\"}, 42 ]"#
        let url = try Self.file(text)
        defer { try? FileManager.default.removeItem(at: url) }
        var reader = try JSONArrayReader(url: url, name: "t.js")
        var elements: [String] = []
        while let element = try reader.next() { elements.append(String(decoding: element, as: UTF8.self)) }
        #expect(elements == [#"{"a": "x]\"}{[", "n": [1, [2]]}"#, "\"\(long)\"", "\"plain\"", #"{"b": "\\"}"#, "42"])
        #expect(reader.count == 5)
    }

    @Test("An array cut short, a missing comma, and a wrong prefix are refused with the file and the place")
    func malformedArrays() throws {
        for (text, expected) in [
            (#"window.YTD.like.part0 = [ {"a": 1}, {"b": "#, "inside entry 2"),
            (#"[ {"a": 1} {"b": 2} ]"#, "expected ',' or ']' after entry 1"),
            (#"var posts = [ {"a": 1} ]"#, "not `window.YTD.<name>.partN =`"),
        ] {
            let url = try Self.file(text)
            defer { try? FileManager.default.removeItem(at: url) }
            let error = #expect(throws: ImportError.self) {
                var reader = try JSONArrayReader(url: url, name: "x.js") { prefix in
                    prefix.isEmpty || prefix.hasPrefix("window.YTD.") ? nil : "it starts with `\(prefix)`, not `window.YTD.<name>.partN =`"
                }
                while try reader.next() != nil {}
            }
            #expect(error?.reason.contains(expected) == true, "\(String(describing: error))")
        }
    }

    @Test("Only the newest posts the archive keeps are held, newest first, as its row limit keeps them")
    func newestPosts() {
        var newest = NewestPosts(keeping: 3)
        for index in 0..<20 {
            newest.add(ArchivedPost(postID: PostID(index), text: "\(index)", createdAt: Date(timeIntervalSince1970: Double(index % 7))))
        }
        #expect(newest.kept.map(\.postID) == [13, 6, 19])
    }

    func withImporter(_ body: (ArchiveImporter) async throws -> Void) async throws {
        try await TestServers.withStores(StoreBackends(archive: .sqlite, counts: .sqlite)) { database, store async throws in
            let archive = database.archive(timeZone: TimeZone(identifier: "UTC")!, rowLimit: 10_000)
            try await archive.prepare()
            try await body(
                ArchiveImporter(
                    formats: NetworkRegistry.exportFormats, archive: archive,
                    classifier: FavoriteClassifier(store: store, tokenizer: ArchiveImporterTests.tokenizer, threshold: 3)))
        }
    }

    @Test(
        "A zip entry past the size limit, one that inflates past what it declares, and a date in the year 99999 are refused with one line; nothing is stored"
    )
    func unsoundExports() async throws {
        try await withImporter { importer in
            let zip = try ExportFixture.zip(["tweets.js": ExportFixture.tweetsJS, "like.js": ExportFixture.likeJS])
            defer { try? FileManager.default.removeItem(at: zip) }
            let capped = try await #require(throws: ImportError.self) {
                try await importer.importExport(at: zip.path, limits: .init(entryBytes: 200))
            }
            #expect(capped.reason.contains("more than the 200 an export's file may hold"), "\(capped)")

            // The central directory says data/tweets.js holds 100 bytes; it inflates to far more.
            var bytes = try Data(contentsOf: zip)
            let entryName = Data("data/tweets.js".utf8)
            var patched = 0
            for signature in [Data([0x50, 0x4B, 0x01, 0x02]), Data([0x50, 0x4B, 0x03, 0x04])] {
                var search = bytes.startIndex
                while let found = bytes.range(of: signature, in: search..<bytes.endIndex) {
                    let header = found.lowerBound
                    let (sizeOffset, nameOffset) = signature[2] == 0x01 ? (24, 46) : (22, 30)
                    if bytes.count > header + nameOffset + entryName.count,
                        bytes[(header + nameOffset)..<(header + nameOffset + entryName.count)] == entryName
                    {
                        withUnsafeBytes(of: UInt32(100).littleEndian) {
                            bytes.replaceSubrange((header + sizeOffset)..<(header + sizeOffset + 4), with: $0)
                        }
                        patched += 1
                    }
                    search = found.upperBound
                }
            }
            #expect(patched == 2)
            let lying = FileManager.default.temporaryDirectory.appending(path: "lying-\(UUID().uuidString).zip")
            try bytes.write(to: lying)
            defer { try? FileManager.default.removeItem(at: lying) }
            let inflated = try await #require(throws: ImportError.self) { try await importer.importExport(at: lying.path) }
            #expect(
                inflated.reason.contains("inflates past the 100 bytes it declared") || inflated.reason.contains("cannot be extracted"), "\(inflated)")
            #expect(!inflated.description.contains("\n"))

            let future = ExportFixture.tweetsJS.replacingOccurrences(of: "Sat Aug 12 16:10:37 +0000 2023", with: "Sat Aug 12 16:10:37 +0000 99999")
            let farZip = try ExportFixture.zip(["tweets.js": future])
            defer { try? FileManager.default.removeItem(at: farZip) }
            let date = try await #require(throws: ImportError.self) { try await importer.importExport(at: farZip.path) }
            #expect(date.reason.contains("entry 1 has created_at \"Sat Aug 12 16:10:37 +0000 99999\", not a date"), "\(date)")
            #expect(try await importer.destination.archive.count() == 0)
        }
    }

    /// `zip` with its one central directory entry repeated `copies` times under other names of the same length
    /// (`data/tweets-part1.js` → `-part2.js` …), all pointing at the same local header and data: how a crafted zip
    /// makes one compressed block inflate many times.
    static func overlapping(_ zip: URL, copies: Int) throws -> URL {
        var bytes = try Data(contentsOf: zip)
        let end = try #require(bytes.range(of: Data([0x50, 0x4B, 0x05, 0x06]), options: .backwards)).lowerBound
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        let (directorySize, directoryStart) = (u32(end + 12), u32(end + 16))
        let entry = bytes[directoryStart..<(directoryStart + directorySize)]
        var directory = Data()
        for copy in 1...copies {
            var renamed = Data(entry)
            let name = try #require(renamed.range(of: Data("part1.js".utf8)))
            renamed.replaceSubrange(name, with: Data("part\(copy).js".utf8))
            directory += renamed
        }
        var record = Data(bytes[end..<(end + 22)])
        withUnsafeBytes(of: UInt16(copies).littleEndian) {
            record.replaceSubrange(8..<10, with: $0)
            record.replaceSubrange(10..<12, with: $0)
        }
        withUnsafeBytes(of: UInt32(directory.count).littleEndian) { record.replaceSubrange(12..<16, with: $0) }
        bytes = bytes[..<directoryStart] + directory + record
        let url = FileManager.default.temporaryDirectory.appending(path: "overlapping-\(UUID().uuidString).zip")
        try bytes.write(to: url)
        return url
    }

    @Test(
        "A zip bomb of every other kind is refused before it is inflated: entries sharing their data, too many bytes together, too many files or entries; nothing is stored"
    )
    func zipBombs() async throws {
        try await withImporter { importer in
            let big =
                "window.YTD.tweets.part1 = [\n"
                + (0..<400).map { ExportFixture.post(1_000 + $0, "猫 \($0)", at: "Sat Aug 12 16:10:37 +0000 2023") }
                .joined(separator: ",\n") + "\n]"
            let single = try ExportFixture.zip(["tweets-part1.js": big])
            defer { try? FileManager.default.removeItem(at: single) }
            // Nine names for one block of data: refused at the second, before anything is extracted.
            let crafted = try Self.overlapping(single, copies: 9)
            defer { try? FileManager.default.removeItem(at: crafted) }
            let shared = try await #require(throws: ImportError.self) { try await importer.importExport(at: crafted.path) }
            #expect(shared.reason.contains("holds the same data as data/tweets-part1.js"), "\(shared)")
            #expect(shared.file.hasSuffix("data/tweets-part2.js"))
            // The crafted zip is otherwise sound: with one copy it imports.
            let sound = try Self.overlapping(single, copies: 1)
            defer { try? FileManager.default.removeItem(at: sound) }
            let size = Int64(big.utf8.count)
            // Two data files, each under the per-file cap, together over the total cap.
            let two = try ExportFixture.zip(["tweets.js": ExportFixture.tweetsJS, "tweets-part1.js": big])
            defer { try? FileManager.default.removeItem(at: two) }
            let total = try await #require(throws: ImportError.self) {
                try await importer.importExport(at: two.path, limits: .init(entryBytes: size, totalBytes: size + 10))
            }
            #expect(total.reason.contains("declare more than \(size + 10) bytes together"), "\(total)")
            let files = try await #require(throws: ImportError.self) { try await importer.importExport(at: two.path, limits: .init(dataFiles: 1)) }
            #expect(files.reason.contains("more than 1 data files"), "\(files)")
            let entries = try await #require(throws: ImportError.self) { try await importer.importExport(at: two.path, limits: .init(entries: 1)) }
            #expect(entries.reason.contains("lists more than 1 entries"), "\(entries)")
            #expect(try await importer.destination.archive.count() == 0)
            let report = try await importer.importExport(at: sound.path)
            #expect(report.postsStored == 400)
        }
    }

    @Test("An element past 16 MiB is refused by its number and place, having held no more than that")
    func hugeElement() throws {
        let url = try Self.file(
            "window.YTD.tweets.part0 = [ {\"a\": 1}, \"" + String(repeating: "x", count: JSONArrayReader.elementLimit + 10) + "\" ]")
        defer { try? FileManager.default.removeItem(at: url) }
        let error = #expect(throws: ImportError.self) {
            var reader = try JSONArrayReader(url: url, name: "t.js")
            while try reader.next() != nil {}
        }
        #expect(error?.reason.contains("entry 2 is larger than 16 MiB") == true, "\(String(describing: error))")
    }

    @Test("Likes are learned a batch at a time as they are read: 4,500 likes in three files, every one learned once")
    func likesInBatches() async throws {
        try await withImporter { importer in
            func part(_ number: Int, _ range: Range<Int>) -> String {
                "window.YTD.like.part\(number) = [\n"
                    + range.map { #"{"like": {"tweetId": "\#(50_000 + $0)", "fullText": "猫とラーメン \#($0)"}}"# }
                    .joined(separator: ",\n") + "\n]"
            }
            let zip = try ExportFixture.zip([
                "like.js": part(0, 0..<1_500), "like-part1.js": part(1, 1_500..<3_000), "like-part2.js": part(2, 3_000..<4_500),
            ])
            defer { try? FileManager.default.removeItem(at: zip) }
            let report = try await importer.importExport(at: zip.path)
            #expect(report.likesRead == 4_500 && report.likesLearned == 4_500)
            #expect(ImportDestination.likesPerBatch < 4_500)
            // Again: nothing is learned twice.
            #expect(try await importer.importExport(at: zip.path).likesLearned == 0)
        }
    }
}
