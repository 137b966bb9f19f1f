import Classifier
import Foundation
import NetworkRegistry
import RedisClient
import Stores
import TestSupport
import Testing
import Tokenizer
import WordCounts
import ZIPFoundation

@testable import ArchiveImport
@testable import ExportFormats
@testable import XNetwork

/// Builds archive exports the way X writes them.
enum ExportFixture {
    static func post(_ id: Int, _ text: String, at createdAt: String, replyTo: String? = nil, links: [(String, String)] = []) -> String {
        let urls = links.map { #"{"url": "\#($0.0)", "expanded_url": "\#($0.1)", "display_url": "x", "indices": ["0", "1"]}"# }
        return #"""
            {"tweet": {"edit_info": {"initial": {"editTweetIds": ["\#(id)"]}}, "retweeted": false, "source": "web",
             "entities": {"hashtags": [], "symbols": [], "user_mentions": [], "urls": [\#(urls.joined(separator: ","))]},
             "display_text_range": ["0", "10"], "favorite_count": "0", "id_str": "\#(id)", "truncated": false, "retweet_count": "0",
             "id": "\#(id)", "created_at": "\#(createdAt)", "favorited": false, "full_text": "\#(text)", "lang": "ja"
             \#(replyTo.map { #", "in_reply_to_user_id_str": "\#($0)", "in_reply_to_user_id": "\#($0)""# } ?? "")}}
            """#
    }

    static var tweetsJS: String {
        "window.YTD.tweets.part0 = [\n"
            + [
                post(
                    101, "おはよう &amp; 寿司 https://t.co/a", at: "Sat Aug 12 16:10:37 +0000 2023",
                    links: [("https://t.co/a", "https://example.com/sushi")]),
                post(102, "@taro それな", at: "Sun Aug 13 01:00:00 +0000 2023", replyTo: "300"),
                post(103, "RT @friend: 拡散希望", at: "Sun Aug 13 02:00:00 +0000 2023"),
            ].joined(separator: ",\n") + "\n]"
    }

    static var tweetsPart1JS: String {
        "window.YTD.tweets.part1 = [\n" + post(104, "夜のラーメン", at: "Mon Aug 14 14:59:59 +0000 2023") + "\n]"
    }

    static var likeJS: String {
        #"""
        window.YTD.like.part0 = [
          {"like": {"tweetId": "9001", "fullText": "猫の写真 https://t.co/z", "expandedUrl": "https://twitter.com/i/web/status/9001"}},
          {"like": {"tweetId": "9002", "fullText": "ラーメン最高"}},
          {"like": {"tweetId": "9003"}}
        ]
        """#
    }

    /// A zip with the given `data/` files.
    static func zip(_ files: [String: String]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appending(path: "twitter-\(UUID().uuidString).zip")
        let archive = try ZIPFoundation.Archive(url: url, accessMode: .create)
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            let data = Data(text.utf8)
            try archive.addEntry(with: "data/" + name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) {
                position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url
    }
}

@Suite("Importing the human's downloaded archive", .serialized)
struct ArchiveImporterTests {
    static let tokenizer: PostTokenizer = try! PostTokenizer()

    func withImporter(_ backends: StoreBackends, _ body: (ArchiveImporter) async throws -> Void) async throws {
        try await TestServers.withStores(backends) { database, store async throws in
            let classifier = FavoriteClassifier(store: store, tokenizer: Self.tokenizer, threshold: 3)
            let archive = database.archive(timeZone: TimeZone(identifier: "Asia/Tokyo")!, rowLimit: 10_000)
            try await archive.prepare()
            try await body(ArchiveImporter(formats: NetworkRegistry.exportFormats, archive: archive, classifier: classifier))
        }
    }

    @Test(
        "An X archive's likes are stored as the person's likes, dated by their Snowflake (X's like.js says nothing of when), once; an id too old to hold a time is not",
        arguments: StoreBackends.archives)
    func datesLikesBySnowflake(_ backend: StoreBackends.ArchiveKind) async throws {
        let likeJS = """
            window.YTD.like.part0 = [
              {"like": {"tweetId": "1212092628029698048", "fullText": "猫の写真"}},
              {"like": {"tweetId": "1212092628029698049"}},
              {"like": {"tweetId": "9003", "fullText": "ラーメン"}}
            ]
            """
        let zip = try ExportFixture.zip(["like.js": likeJS])
        defer { try? FileManager.default.removeItem(at: zip) }
        try await TestServers.withStores(StoreBackends(archive: backend, counts: .sqlite)) { database, store async throws in
            let importer = ArchiveImporter(
                formats: NetworkRegistry.exportFormats, archive: database.archive(timeZone: TimeZone(identifier: "Asia/Tokyo")!, rowLimit: 100),
                classifier: FavoriteClassifier(store: store, tokenizer: Self.tokenizer, threshold: 3), personLikes: database.likes)
            _ = try await importer.importExport(at: zip.path)
            _ = try await importer.importExport(at: zip.path)
            let likes = try await database.likes.personLikes()
            #expect(likes.map(\.postID) == [1_212_092_628_029_698_048, 1_212_092_628_029_698_049])
            // 2019-12-31 19:26:16.771 UTC, as the id's top bits say.
            #expect(abs(likes[0].likedAt.timeIntervalSince1970 - 1_577_820_376.771) < 0.001 && likes.allSatisfy { !$0.isExact })
        }
    }

    @Test("A zip's tweets (all parts) go to the archive, retweets skipped, links expanded; its likes are learned once", arguments: StoreBackends.all)
    func importsZip(_ backend: StoreBackends) async throws {
        let zip = try ExportFixture.zip([
            "tweets.js": ExportFixture.tweetsJS, "tweets-part1.js": ExportFixture.tweetsPart1JS,
            "like.js": ExportFixture.likeJS, "account.js": "window.YTD.account.part0 = []",
        ])
        defer { try? FileManager.default.removeItem(at: zip) }
        try await withImporter(backend) { importer in
            let report = try await importer.importExport(at: zip.path)
            #expect(
                report
                    == ImportReport(network: "X", postsRead: 4, repostsSkipped: 1, postsStored: 3, likesRead: 3, likesLearned: 2, likesWithoutText: 1)
            )
            let stored = try await importer.destination.archive.newest(limit: 10)
            #expect(stored.map(\.postID) == [104, 102, 101])
            #expect(stored[2].text == "おはよう & 寿司 https://example.com/sushi")
            #expect(stored[2].createdAt == Date(timeIntervalSince1970: 1_691_856_637))
            #expect(stored[1].replyUserID == 300)
            #expect(try await importer.destination.archive.minuteHistogram()[23 * 60 + 59] == 1)  // 14:59:59 UTC is 23:59 in Tokyo
            let counts = try await importer.classifier.store.counts(for: ["猫", "写真", "ラーメン"])
            #expect(counts.count(of: "猫", in: .favorite) == 1)
            #expect(counts.count(of: .favorite) == 2)

            let again = try await importer.importExport(at: zip.path)
            #expect(again.postsStored == 0)
            #expect(again.likesLearned == 0)
            #expect(try await importer.classifier.store.counts(for: ["猫"]).count(of: "猫", in: .favorite) == 1)
        }
    }

    @Test("An extracted folder and a single tweets.js import too", arguments: StoreBackends.all)
    func foldersAndFiles(_ backend: StoreBackends) async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appending(path: "data"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try ExportFixture.tweetsJS.write(to: folder.appending(path: "data/tweet.js"), atomically: true, encoding: .utf8)  // the pre-2022 name
        try await withImporter(backend) { importer in
            #expect(try await importer.importExport(at: folder.path).postsStored == 2)
            let single = folder.appending(path: "tweets-part1.js")
            try ExportFixture.tweetsPart1JS.write(to: single, atomically: true, encoding: .utf8)
            #expect(try await importer.importExport(at: single.path).postsStored == 1)
        }
    }

    @Test("A truncated or malformed file names the file and the place, and nothing is stored", arguments: StoreBackends.all)
    func malformedFilesStoreNothing(_ backend: StoreBackends) async throws {
        let truncated = String(ExportFixture.tweetsPart1JS.dropLast(40))
        let zip = try ExportFixture.zip(["tweets.js": ExportFixture.tweetsJS, "tweets-part1.js": truncated, "like.js": ExportFixture.likeJS])
        defer { try? FileManager.default.removeItem(at: zip) }
        try await withImporter(backend) { importer in
            let error = try await #require(throws: ImportError.self) { try await importer.importExport(at: zip.path) }
            #expect(error.file == "\(zip.path): data/tweets-part1.js")
            #expect(error.description.contains("malformed or cut short"))
            #expect(error.description.hasSuffix("Nothing was imported."))
            #expect(try await importer.destination.archive.count() == 0)
            #expect(try await importer.classifier.store.counts(for: ["猫"]).count(of: .favorite) == 0)

            let badDate = ExportFixture.tweetsJS.replacingOccurrences(of: "Sat Aug 12 16:10:37 +0000 2023", with: "2023-08-12")
            let other = try ExportFixture.zip(["tweets.js": badDate])
            defer { try? FileManager.default.removeItem(at: other) }
            let dateError = try await #require(throws: ImportError.self) { try await importer.importExport(at: other.path) }
            #expect(dateError.reason.contains("entry 1 has created_at \"2023-08-12\""))

            let missing = try ExportFixture.zip(["tweets.js": #"window.YTD.tweets.part0 = [{"tweet": {"id_str": "1", "full_text": "x"}}]"#])
            defer { try? FileManager.default.removeItem(at: missing) }
            let keyError = try await #require(throws: ImportError.self) { try await importer.importExport(at: missing.path) }
            #expect(keyError.reason.contains("entry 1 (tweet) has no \"created_at\"") || keyError.reason.contains("createdAt"))
        }
    }

    @Test("Files that are not an archive are refused with a reason")
    func notAnArchive() throws {
        let text = FileManager.default.temporaryDirectory.appending(path: "notes-\(UUID().uuidString).txt")
        try "hello".write(to: text, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: text) }
        #expect(throws: ImportError.self) { try ExportFiles(path: text.path, formats: NetworkRegistry.exportFormats) }
        let fakeZip = FileManager.default.temporaryDirectory.appending(path: "broken-\(UUID().uuidString).zip")
        try "not a zip".write(to: fakeZip, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: fakeZip) }
        let error = try #require(throws: ImportError.self) { try ExportFiles(path: fakeZip.path, formats: NetworkRegistry.exportFormats) }
        #expect(error.reason.contains("not a readable zip archive"))
        #expect(throws: ImportError.self) { try ExportFiles(path: "/nonexistent/archive.zip", formats: NetworkRegistry.exportFormats) }
    }

    @Test("The archive's dates parse exactly, zones and leap days included")
    func dates() {
        #expect(ExportDate.parse("Sat Aug 12 16:10:37 +0000 2023") == Date(timeIntervalSince1970: 1_691_856_637))
        #expect(ExportDate.parse("Thu Feb 29 23:59:59 +0900 2024") == Date(timeIntervalSince1970: 1_709_218_799))
        #expect(ExportDate.parse("Thu Jan 01 00:00:00 +0000 1970") == Date(timeIntervalSince1970: 0))
        #expect(ExportDate.parse("Sat Aug 32 16:10:37 +0000 2023") == nil)
        #expect(ExportDate.parse("2023-08-12T16:10:37Z") == nil)
    }

    @Test("Data file names: tweets, parts, the old tweet.js, likes and the account; nothing else")
    func fileNames() {
        #expect(XExportFormat.kind(of: "data/tweets.js") == .tweets)
        #expect(XExportFormat.kind(of: "data/tweets-part12.js") == .tweets)
        #expect(XExportFormat.kind(of: "tweet.js") == .tweets)
        #expect(XExportFormat.kind(of: "data/like.js") == .likes)
        #expect(XExportFormat.kind(of: "data/like-part2.js") == .likes)
        #expect(XExportFormat.kind(of: "data/tweets-media.js") == nil)
        #expect(XExportFormat.kind(of: "data/account.js") == .account)
        #expect(XExportFormat.kind(of: "data/account-timezone.js") == nil)
    }
}
