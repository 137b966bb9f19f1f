import Classifier
import Foundation
import NetworkRegistry
import Stores
import Synchronization
import TestSupport
import Testing

@testable import ArchiveImport
@testable import ExportFormats

/// Where an archive names its account, the importer says whose it is, and asks before storing anything.
@Suite("Whose archive it is", .serialized)
struct ArchiveOwnerTests {
    static let accountJS = #"""
        window.YTD.account.part0 = [
          {
            "account" : {
              "email" : "hanako@example.com",
              "createdVia" : "web",
              "username" : "hanako",
              "accountId" : "1234567",
              "createdAt" : "2011-05-01T10:00:00.000Z",
              "accountDisplayName" : "花子"
            }
          }
        ]
        """#

    /// The owners the importer asked about.
    final class Asked: Sendable {
        private let owners = Mutex<[ArchiveOwner]>([])
        func append(_ owner: ArchiveOwner) { owners.withLock { $0.append(owner) } }
        var all: [ArchiveOwner] { owners.withLock { $0 } }
    }

    /// Runs `body` with an importer over SQLite whose owner check records each owner asked about and refuses `refusing`.
    func withImporter(refusing: String? = nil, _ body: (ArchiveImporter, any PostArchive, Asked) async throws -> Void) async throws {
        try await TestServers.withStores(StoreBackends(archive: .sqlite, counts: .sqlite)) { database, store async throws in
            let classifier = FavoriteClassifier(store: store, tokenizer: ArchiveImporterTests.tokenizer, threshold: 3)
            let archive = database.archive(timeZone: TimeZone(identifier: "Asia/Tokyo")!, rowLimit: 10_000)
            try await archive.prepare()
            let asked = Asked()
            let importer = ArchiveImporter(
                formats: NetworkRegistry.exportFormats, archive: archive, classifier: classifier,
                checkOwner: { owner in
                    asked.append(owner)
                    if owner.account == refusing { throw ImportError(file: "archive", reason: "not the person's") }
                })
            try await body(importer, archive, asked)
        }
    }

    @Test("An X archive's account.js names the account (its id and username); refused by the check, nothing is stored, posts nor likes")
    func xAccount() async throws {
        let zip = try ExportFixture.zip(["tweets.js": ExportFixture.tweetsJS, "like.js": ExportFixture.likeJS, "account.js": Self.accountJS])
        defer { try? FileManager.default.removeItem(at: zip) }
        let hanako = ArchiveOwner(network: "X", account: "1234567", handle: "hanako")
        try await withImporter(refusing: "1234567") { importer, archive, asked in
            await #expect(throws: ImportError.self) { try await importer.importExport(at: zip.path) }
            #expect(asked.all == [hanako])
            let stored = try await archive.count()
            #expect(stored == 0)
        }
        try await withImporter { importer, archive, asked in
            let report = try await importer.importExport(at: zip.path)
            #expect(report.owner == hanako)
            #expect(report.owner?.description == "@hanako (X 1234567)")
            let stored = try await archive.count()
            #expect(stored == 2)
            // Without account.js (a single tweets.js) the archive names nobody, and nothing is asked.
            let folder = FileManager.default.temporaryDirectory.appending(path: "owner-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try ExportFixture.tweetsJS.write(to: folder.appending(path: "tweets.js"), atomically: true, encoding: .utf8)
            #expect(try await importer.importExport(at: folder.appending(path: "tweets.js").path).owner == nil)
            #expect(asked.all.count == 1)
        }
    }

    @Test("An account.js naming two accounts is refused by name, and nothing is stored")
    func xAccountMalformed() async throws {
        let two = Self.accountJS.replacingOccurrences(of: "  }\n]", with: "  },\n  {\"account\": {\"accountId\": \"99\", \"username\": \"taro\"}}\n]")
        #expect(two != Self.accountJS)
        for (text, reason) in [(two, "names 2 accounts")] {
            let zip = try ExportFixture.zip(["tweets.js": ExportFixture.tweetsJS, "account.js": text])
            defer { try? FileManager.default.removeItem(at: zip) }
            try await withImporter { importer, archive, _ in
                do {
                    _ = try await importer.importExport(at: zip.path)
                    Issue.record("imported an archive whose account.js \(reason)")
                } catch let error as ImportError {
                    #expect(error.reason.contains(reason), "\(error)")
                    #expect(error.file.hasSuffix("data/account.js"), "\(error)")
                }
                let stored = try await archive.count()
                #expect(stored == 0)
            }
        }
    }

    @Test("A Mastodon outbox names its actor (the username and server read from its address); an outbox by two actors is refused")
    func mastodonActor() async throws {
        let zip = try MastodonExportFixture.zip(["outbox.json": MastodonExportFixture.outbox])
        defer { try? FileManager.default.removeItem(at: zip) }
        try await withImporter(refusing: MastodonExportFixture.me) { importer, archive, asked in
            await #expect(throws: ImportError.self) { try await importer.importExport(at: zip.path) }
            let stored = try await archive.count()
            #expect(stored == 0)
            let owner = try #require(asked.all.first)
            #expect(owner == ArchiveOwner(network: "Mastodon", account: "https://mastodon.example/users/hanako", handle: "hanako"))
            #expect(owner.actorAddress?.username == "hanako" && owner.actorAddress?.server == "mastodon.example")
        }
        #expect(ArchiveOwner.actor("http://127.0.0.1:8080/users/person", on: "Mastodon").actorAddress?.server == "127.0.0.1:8080")
        let mixed = MastodonExportFixture.outbox.replacingOccurrences(
            of: #""type": "Announce", "actor": "https://mastodon.example/users/hanako""#,
            with: #""type": "Announce", "actor": "https://mastodon.example/users/taro""#)
        #expect(mixed != MastodonExportFixture.outbox)
        let mixedZip = try MastodonExportFixture.zip(["outbox.json": mixed])
        defer { try? FileManager.default.removeItem(at: mixedZip) }
        try await withImporter { importer, archive, asked in
            do {
                _ = try await importer.importExport(at: mixedZip.path)
                Issue.record("imported an outbox by two actors")
            } catch let error as ImportError {
                #expect(error.reason.contains("by 2 accounts"), "\(error)")
            }
            #expect(asked.all.isEmpty)
            let stored = try await archive.count()
            #expect(stored == 0)
        }
    }
}
