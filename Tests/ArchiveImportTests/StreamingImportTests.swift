import Stores
@testable import ArchiveImport
import Classifier
import Foundation
import Testing
import TestSupport

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
        for (text, expected) in [(#"window.YTD.like.part0 = [ {"a": 1}, {"b": "#, "inside entry 2"),
                                 (#"[ {"a": 1} {"b": 2} ]"#, "expected ',' or ']' after entry 1"),
                                 (#"var tweets = [ {"a": 1} ]"#, "not `window.YTD.<name>.partN =`")] {
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

    @Test("Only the newest tweets the archive keeps are held, newest first, as its row limit keeps them")
    func newestTweets() {
        var newest = NewestTweets(keeping: 3)
        for index in 0..<20 { newest.add(ArchivedTweet(tweetID: Int64(index), text: "\(index)", createdAt: Date(timeIntervalSince1970: Double(index % 7)))) }
        #expect(newest.kept.map(\.tweetID) == [13, 6, 19])
    }

    func withImporter(_ body: (ArchiveImporter) async throws -> Void) async throws {
        try await TestServers.withStores(StoreBackends(archive: .sqlite, counts: .sqlite)) { database, store async throws in
            let archive = database.archive(timeZone: TimeZone(identifier: "UTC")!, rowLimit: 10_000)
            try await archive.prepare()
            try await body(ArchiveImporter(archive: archive, classifier: FavoriteClassifier(store: store, tokenizer: ArchiveImporterTests.tokenizer, threshold: 3)))
        }
    }

    @Test("A zip entry past the size limit, one that inflates past what it declares, and a date in the year 99999 are refused with one line; nothing is stored")
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
                    if bytes.count > header + nameOffset + entryName.count, bytes[(header + nameOffset)..<(header + nameOffset + entryName.count)] == entryName {
                        withUnsafeBytes(of: UInt32(100).littleEndian) { bytes.replaceSubrange((header + sizeOffset)..<(header + sizeOffset + 4), with: $0) }
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
            #expect(inflated.reason.contains("inflates past the 100 bytes it declared") || inflated.reason.contains("cannot be extracted"), "\(inflated)")
            #expect(!inflated.description.contains("\n"))

            let future = ExportFixture.tweetsJS.replacingOccurrences(of: "Sat Aug 12 16:10:37 +0000 2023", with: "Sat Aug 12 16:10:37 +0000 99999")
            let farZip = try ExportFixture.zip(["tweets.js": future])
            defer { try? FileManager.default.removeItem(at: farZip) }
            let date = try await #require(throws: ImportError.self) { try await importer.importExport(at: farZip.path) }
            #expect(date.reason.contains("entry 1 has created_at \"Sat Aug 12 16:10:37 +0000 99999\", not a date"), "\(date)")
            #expect(try await importer.archive.count() == 0)
        }
    }
}
