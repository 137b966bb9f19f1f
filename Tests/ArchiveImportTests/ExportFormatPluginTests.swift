import ArchiveImport
import BotCore
import Classifier
import ExportFormats
import Foundation
import NetworkRegistry
import Stores
import Synchronization
import TestSupport
import Testing

/// A format made only for this test: `memo.txt`, a post a line (`<id> <text>`), its first line naming the owner.
struct LineExportFormat: ExportFormat {
    var network: String { "Memo" }
    var fileNames: String { "memo.txt" }
    var help: String { "Memo: memo.txt, a post a line." }
    func reads(_ path: String) -> Bool { path == "memo.txt" || path == "data/memo.txt" }
    func fileName(forHead head: Data) -> String? { head.starts(with: Data("owner ".utf8)) ? "memo.txt" : nil }

    func importFiles(_ files: [ExportFiles.File], into destination: ImportDestination) async throws -> ImportReport {
        var report = ImportReport(network: network)
        var posts = NewestPosts(keeping: destination.archive.rowLimit)
        for file in files {
            let lines = try String(contentsOf: file.url, encoding: .utf8).split(separator: "\n")
            for (number, line) in lines.enumerated() {
                let words = line.split(separator: " ", maxSplits: 1).map(String.init)
                if number == 0, words.first == "owner" {
                    report.owner = ArchiveOwner(network: network, account: words.last ?? "", handle: nil)
                    continue
                }
                guard words.count == 2, let id = Int64(words[0]) else {
                    throw ImportError(file: file.name, reason: "line \(number + 1) is not `<id> <text>`")
                }
                report.postsRead += 1
                posts.add(ArchivedPost(postID: PostID(id), text: words[1], createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(id))))
            }
        }
        if let owner = report.owner { try await destination.checkOwner?(owner) }
        report.postsStored = try await destination.archive.insert(posts.kept)
        return report
    }

    func summary(of report: ImportReport, archived: Int, resolving: Bool) -> String { "Imported \(report.postsStored) memos." }
}

@Suite("Import: the formats are plug-ins, each network's from its folder through the registry")
struct ExportFormatPluginTests {
    static let formats: [any ExportFormat] = NetworkRegistry.exportFormats + [LineExportFormat()]

    func folder(_ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "export-\(UUID().uuidString)")
        for (path, text) in files {
            let url = folder.appending(path: path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return folder
    }

    @Test("The registry lists one format per network, X first; the messages name every format")
    func registryFormats() throws {
        #expect(NetworkRegistry.exportFormats.map(\.network) == ["X", "Mastodon", "Bluesky", "Misskey"])
        #expect(
            ExportFiles.listing(Self.formats)
                == "tweets.js / like.js (X), outbox.json / likes.json (Mastodon), .car (Bluesky), notes-<date>.json (Misskey) or memo.txt (Memo)")
        let text = FileManager.default.temporaryDirectory.appending(path: "nothing-\(UUID().uuidString).txt")
        try "hello".write(to: text, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: text) }
        let error = try #require(throws: ImportError.self) { try ExportFiles(path: text.path, formats: Self.formats) }
        #expect(error.reason.hasSuffix("or memo.txt (Memo) file"), "\(error)")
    }

    @Test("A format registered beside the networks' is found by its files and imports through the same importer", arguments: StoreBackends.archives)
    func aFormatAdded(_ backend: StoreBackends.ArchiveKind) async throws {
        let export = try folder(["data/memo.txt": "owner alice\n1 朝ごはん\n2 昼ごはん\n3 晩ごはん"])
        defer { try? FileManager.default.removeItem(at: export) }
        try await TestServers.withStores(StoreBackends(archive: backend, counts: .memory)) { database, store async throws in
            let archive = database.archive(timeZone: TimeZone(identifier: "Asia/Tokyo")!, rowLimit: 10_000)
            try await archive.prepare()
            let classifier = FavoriteClassifier(store: store, tokenizer: ArchiveImporterTests.tokenizer, threshold: 3)
            // The program's registry does not know the format: the folder holds nothing it reads.
            let programs = ArchiveImporter(formats: NetworkRegistry.exportFormats, archive: archive, classifier: classifier)
            await #expect(throws: ImportError.self) { try await programs.importExport(at: export.path) }
            let owners = Owners()
            let importer = ArchiveImporter(
                formats: Self.formats, archive: archive, classifier: classifier, checkOwner: { owners.append($0) })
            let report = try await importer.importExport(at: export.path)
            #expect(report.network == "Memo" && report.postsRead == 3 && report.postsStored == 3)
            #expect(owners.all == [ArchiveOwner(network: "Memo", account: "alice", handle: nil)])
            #expect(importer.format(of: report)?.summary(of: report, archived: 3, resolving: false) == "Imported 3 memos.")
            #expect(try await archive.count() == 3)
            #expect(try await importer.importExport(at: export.path).postsStored == 0, "importing again stores nothing twice")
        }
    }

    @Test("An export holding two networks' files is refused naming both, and nothing is stored")
    func twoNetworksRefused() async throws {
        let export = try folder([
            "data/tweets.js": ExportFixture.tweetsJS, "outbox.json": MastodonExportFixture.outbox,
        ])
        defer { try? FileManager.default.removeItem(at: export) }
        let error = try #require(throws: ImportError.self) { try ExportFiles(path: export.path, formats: Self.formats) }
        #expect(error.reason.contains("2 networks' exports (X, Mastodon)"), "\(error)")
        // Each alone is read by its own format.
        let x = try folder(["data/tweets.js": ExportFixture.tweetsJS])
        defer { try? FileManager.default.removeItem(at: x) }
        #expect(try ExportFiles(path: x.path, formats: Self.formats).format.network == "X")
    }

    @Test("Replies stored without whom they answered: Mastodon's and Misskey's summaries say why, or what to set, in the shared sentence")
    func repliesWithoutTargetSentence() throws {
        let formats = Dictionary(uniqueKeysWithValues: Self.formats.map { ($0.network, $0) })
        let mastodon = try #require(formats["Mastodon"])
        let misskey = try #require(formats["Misskey"])
        var report = ImportReport(network: "Mastodon", postsRead: 5, postsStored: 5)
        #expect(!mastodon.summary(of: report, archived: 5, resolving: false).contains("without whom"))
        report.repliesWithoutTarget = 2
        let unresolved = mastodon.summary(of: report, archived: 5, resolving: false)
        #expect(
            unresolved.contains(
                "2 replies are stored without whom they answered: set HUMAN_MASTODON_URL and HUMAN_MASTODON_TOKEN before importing to look them up;"
                    + " the bot answers no one with them (REPLY_FALLBACK=any may)."), "\(unresolved)")
        let resolved = misskey.summary(of: report, archived: 5, resolving: true)
        #expect(
            resolved.contains("2 replies are stored without whom they answered (the notes they answered are gone or hidden); the bot answers"),
            "\(resolved)")
    }
}

/// The owners an import asked about.
final class Owners: Sendable {
    private let owners = Mutex<[ArchiveOwner]>([])
    func append(_ owner: ArchiveOwner) { owners.withLock { $0.append(owner) } }
    var all: [ArchiveOwner] { owners.withLock { $0 } }
}
