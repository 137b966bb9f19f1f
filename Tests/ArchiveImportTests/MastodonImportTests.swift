import Classifier
import Foundation
import NetworkRegistry
import Stores
import Synchronization
import TestSupport
import Testing
import ZIPFoundation

@testable import ArchiveImport
@testable import ExportFormats
@testable import MastodonNetwork

/// Builds Mastodon archive exports the way Mastodon writes them (`outbox.json`, `likes.json`, ActivityStreams).
enum MastodonExportFixture {
    static let me = "https://mastodon.example/users/hanako"
    static let publicAudience = "https://www.w3.org/ns/activitystreams#Public"

    static func create(
        _ id: Int64, _ content: String, published: String = "2023-08-12T16:10:37Z", to: [String] = [publicAudience],
        cc: [String] = ["\(me)/followers"], summary: String? = nil, inReplyTo: String? = nil, tags: String = "[]"
    ) -> String {
        func list(_ values: [String]) -> String { "[" + values.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
        return """
            {"id": "\(me)/statuses/\(id)/activity", "type": "Create", "actor": "\(me)", "published": "\(published)", "to": \(list(to)), "cc": \(list(cc)),
             "object": {"id": "\(me)/statuses/\(id)", "type": "Note", "summary": \(summary.map { "\"\($0)\"" } ?? "null"),
                        "inReplyTo": \(inReplyTo.map { "\"\($0)\"" } ?? "null"), "published": "\(published)", "url": "https://mastodon.example/@hanako/\(id)",
                        "attributedTo": "\(me)", "to": \(list(to)), "cc": \(list(cc)), "sensitive": \(summary != nil), "content": "\(content)",
                        "contentMap": {"ja": "\(content)"}, "attachment": [], "tag": \(tags), "replies": {"id": "x", "type": "Collection"}}}
            """
    }

    static var outbox: String {
        let items = [
            create(110_000_000_000_000_001, "<p>おはよう &amp; 寿司<br>二行目</p>"),
            create(110_000_000_000_000_002, "<p>unlisted も写す</p>", to: ["\(me)/followers"], cc: [publicAudience]),
            create(110_000_000_000_000_003, "<p>フォロワー限定</p>", to: ["\(me)/followers"], cc: []),
            create(110_000_000_000_000_004, "<p>DM</p>", to: ["https://other.example/users/bob"], cc: []),
            create(110_000_000_000_000_005, "<p>ネタバレ本文</p>", summary: "注意"),
            create(
                110_000_000_000_000_006,
                #"<p><span class=\"h-card\"><a href=\"https://mastodon.example/@taro\" class=\"u-url mention\">@<span>taro</span></a></span> それな</p>"#,
                inReplyTo: "https://mastodon.example/users/taro/statuses/99",
                tags: #"[{"type": "Mention", "href": "https://mastodon.example/users/taro", "name": "@taro"}]"#),
            create(
                110_000_000_000_000_007, "<p>@bob@other.example いいね</p>", inReplyTo: "https://other.example/users/bob/statuses/42",
                tags: #"[{"type": "Mention", "href": "https://other.example/users/bob", "name": "@bob@other.example"}]"#),
            create(110_000_000_000_000_008, "<p>誰だっけ</p>", inReplyTo: "https://gone.example/users/ghost/statuses/7"),
            #"{"id": "\#(me)/statuses/110000000000000009/activity", "type": "Announce", "actor": "\#(me)", "published": "2023-08-13T00:00:00Z", "to": ["\#(publicAudience)"], "object": "https://other.example/users/bob/statuses/43"}"#,
        ]
        return
            #"{"@context": "https://www.w3.org/ns/activitystreams", "id": "outbox.json", "type": "OrderedCollection", "totalItems": \#(items.count), "orderedItems": [\#(items.joined(separator: ",\n"))]}"#
    }

    static let likes =
        #"{"@context": "https://www.w3.org/ns/activitystreams", "id": "likes.json", "type": "OrderedCollection", "orderedItems": ["https://other.example/users/bob/statuses/1", "https://mastodon.example/users/taro/statuses/2"]}"#

    /// A zip with the files at its top, as Mastodon makes it.
    static func zip(_ files: [String: String]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appending(path: "mastodon-\(UUID().uuidString).zip")
        let archive = try ZIPFoundation.Archive(url: url, accessMode: .create)
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            let data = Data(text.utf8)
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url
    }
}

@Suite("Importing the person's Mastodon archive", .serialized)
struct MastodonImportTests {
    func withImporter(_ copyingWarnings: Bool = false, resolver: ImportDestination.AccountResolver?, _ body: (ArchiveImporter) async throws -> Void)
        async throws
    {
        try await TestServers.withStores(StoreBackends(archive: .sqlite, counts: .sqlite)) { database, store async throws in
            let classifier = FavoriteClassifier(store: store, tokenizer: ArchiveImporterTests.tokenizer, threshold: 3)
            let archive = database.archive(timeZone: TimeZone(identifier: "Asia/Tokyo")!, rowLimit: 10_000)
            try await archive.prepare()
            try await body(
                ArchiveImporter(
                    formats: NetworkRegistry.exportFormats, archive: archive, classifier: classifier, copyingWarnings: copyingWarnings,
                    resolveAccount: resolver))
        }
    }

    @Test(
        "Public and unlisted statuses as written text; boosts, followers-only, direct and warned ones left out; replies filed under whom they answered, looked up once each"
    )
    func importsOutbox() async throws {
        let zip = try MastodonExportFixture.zip([
            "outbox.json": MastodonExportFixture.outbox, "likes.json": MastodonExportFixture.likes,
            "actor.json": "{}",
        ])
        defer { try? FileManager.default.removeItem(at: zip) }
        let asked = Mutex<[String]>([])
        let resolver: ImportDestination.AccountResolver = { acct in
            asked.withLock { $0.append(acct) }
            return ["taro@mastodon.example": 300, "bob@other.example": 9_300][acct]
        }
        try await withImporter(resolver: resolver) { importer in
            let report = try await importer.importExport(at: zip.path)
            #expect(report.network == "Mastodon")
            #expect(report.postsRead == 9 && report.repostsSkipped == 1 && report.notCopied == 3 && report.postsStored == 5)
            #expect(report.likesRead == 2 && report.likesWithoutText == 2 && report.likesLearned == 0)
            #expect(report.lookups == 3 && report.repliesWithoutTarget == 1)
            #expect(asked.withLock { $0 } == ["bob@other.example", "ghost@gone.example", "taro@mastodon.example"])
            let stored = Dictionary(uniqueKeysWithValues: try await importer.destination.archive.newest(limit: 10).map { ($0.postID, $0) })
            #expect(stored[110_000_000_000_000_001]?.text == "おはよう & 寿司\n二行目")
            #expect(stored[110_000_000_000_000_001]?.replyUserID == nil)
            #expect(stored[110_000_000_000_000_001]?.createdAt == Date(timeIntervalSince1970: 1_691_856_637))
            #expect(stored[110_000_000_000_000_002]?.text == "unlisted も写す")
            #expect(stored[110_000_000_000_000_006]?.replyUserID == 300 && stored[110_000_000_000_000_006]?.text == "@taro それな")
            #expect(stored[110_000_000_000_000_007]?.replyUserID == 9_300)
            #expect(stored[110_000_000_000_000_008]?.replyUserID == ArchivedPost.unknownReplyTarget)  // never a post, never an answer
            #expect(stored[110_000_000_000_000_003] == nil && stored[110_000_000_000_000_004] == nil && stored[110_000_000_000_000_005] == nil)
            // Again: nothing new.
            #expect(try await importer.importExport(at: zip.path).postsStored == 0)
        }
    }

    @Test("Without a Mastodon account to ask, replies are stored without a target and counted; POST_CW keeps warned statuses with their warning")
    func withoutResolverAndWithWarnings() async throws {
        let zip = try MastodonExportFixture.zip(["outbox.json": MastodonExportFixture.outbox])
        defer { try? FileManager.default.removeItem(at: zip) }
        try await withImporter(true, resolver: nil) { importer in
            let report = try await importer.importExport(at: zip.path)
            #expect(report.lookups == 0 && report.repliesWithoutTarget == 3)
            #expect(report.notCopied == 2 && report.postsStored == 6)
            let warned = try await importer.destination.archive.newest(limit: 10).first { $0.postID == 110_000_000_000_000_005 }
            #expect(warned?.text == "ネタバレ本文" && warned?.contentWarning == "注意")
        }
    }

    @Test("A truncated outbox, a note without a status number and a date past the year 9999 are refused by name, and nothing is stored")
    func malformed() async throws {
        try await withImporter(resolver: nil) { importer in
            for (outbox, expected) in [
                (String(MastodonExportFixture.outbox.dropLast(200)), "malformed or cut short"),
                (
                    MastodonExportFixture.outbox.replacingOccurrences(
                        of: "statuses/110000000000000001\", \"type\": \"Note\"", with: "notes/abc\", \"type\": \"Note\""),
                    "does not end in a status number"
                ),
                (
                    MastodonExportFixture.outbox.replacingOccurrences(of: "2023-08-12T16:10:37Z", with: "99999-08-12T16:10:37Z"),
                    "entry 1 was published"
                ),
            ] {
                let zip = try MastodonExportFixture.zip(["outbox.json": outbox])
                defer { try? FileManager.default.removeItem(at: zip) }
                let error = try await #require(throws: ImportError.self) { try await importer.importExport(at: zip.path) }
                #expect(error.file.hasSuffix("outbox.json"))
                #expect(error.reason.contains(expected), "\(error)")
                #expect(error.description.hasSuffix("Nothing was imported."))
                #expect(try await importer.destination.archive.count() == 0)
            }
        }
    }

    @Test("Whom a reply answered: the mention of the parent's author, else the parent's address")
    func answeredAccount() {
        let tags = [MastodonOutbox.Tag(type: "Mention", href: "https://other.example/users/bob", name: "@bob@other.example")]
        #expect(MastodonOutbox.answeredAcct(parent: "https://other.example/users/bob/statuses/1", tags: tags) == "bob@other.example")
        #expect(MastodonOutbox.answeredAcct(parent: "https://mastodon.example/users/taro/statuses/2", tags: []) == "taro@mastodon.example")
        #expect(MastodonOutbox.answeredAcct(parent: "https://misskey.example/notes/9abc", tags: []) == nil)
        #expect(
            MastodonExportFormat().reads("outbox.json") && MastodonExportFormat().reads("data/likes.json") && !MastodonExportFormat().reads("like.js")
        )
    }
}
