import BotCore
import Classifier
import Foundation
import MisskeyAPI
import NetworkRegistry
import Stores
import Synchronization
import TestSupport
import Testing

@testable import ArchiveImport
@testable import ExportFormats

/// Misskey's notes export, written as Misskey writes it (`notes-<date>.json`: a JSON array of notes).
@Suite("Importing the person's Misskey notes", .serialized)
struct MisskeyImportTests {
    static let notes = """
        [{"id":"9x1a2b3c4d5e6f7g","text":"$[x2 **おはよう**] :igyo:","createdAt":"2025-11-01T00:00:00.000Z","fileIds":[],"files":[],"replyId":null,"renoteId":null,"poll":null,"cw":null,"visibility":"public","visibleUserIds":[],"localOnly":false,"reactionAcceptance":null},
        {"id":"9x1a2b3c4d5e6f7h","text":"home も写す","createdAt":"2025-11-01T01:00:00.000Z","fileIds":[],"files":[],"replyId":null,"renoteId":null,"poll":null,"cw":null,"visibility":"home","visibleUserIds":[],"localOnly":true,"reactionAcceptance":null},
        {"id":"9x1a2b3c4d5e6f7i","text":"フォロワーだけ","createdAt":"2025-11-01T02:00:00.000Z","fileIds":[],"files":[],"replyId":null,"renoteId":null,"poll":null,"cw":null,"visibility":"followers","visibleUserIds":[],"localOnly":false,"reactionAcceptance":null},
        {"id":"9x1a2b3c4d5e6f7j","text":"@bob ないしょ","createdAt":"2025-11-01T03:00:00.000Z","fileIds":[],"files":[],"replyId":null,"renoteId":null,"poll":null,"cw":null,"visibility":"specified","visibleUserIds":["bobid"],"localOnly":false,"reactionAcceptance":null},
        {"id":"9x1a2b3c4d5e6f7k","text":"ネタバレ","createdAt":"2025-11-01T04:00:00.000Z","fileIds":[],"files":[],"replyId":null,"renoteId":null,"poll":null,"cw":"注意","visibility":"public","visibleUserIds":[],"localOnly":false,"reactionAcceptance":null},
        {"id":"9x1a2b3c4d5e6f7l","text":null,"createdAt":"2025-11-01T05:00:00.000Z","fileIds":[],"files":[],"replyId":null,"renoteId":"9x0000000000zzzz","poll":null,"cw":null,"visibility":"public","visibleUserIds":[],"localOnly":false,"reactionAcceptance":null},
        {"id":"9x1a2b3c4d5e6f7m","text":"@taro それな","createdAt":"2025-11-01T06:00:00.000Z","fileIds":[],"files":[],"replyId":"9x0000000000taro","renoteId":null,"poll":null,"cw":null,"visibility":"public","visibleUserIds":[],"localOnly":false,"reactionAcceptance":null},
        {"id":"9x1a2b3c4d5e6f7n","text":"@ghost 誰？","createdAt":"2025-11-01T07:00:00.000Z","fileIds":[],"files":[],"replyId":"9x000000000ghost","renoteId":null,"poll":null,"cw":null,"visibility":"public","visibleUserIds":[],"localOnly":false,"reactionAcceptance":null}]
        """

    func withImporter(
        _ copyingWarnings: Bool = false, resolver: ImportDestination.AccountResolver?,
        _ body: (ArchiveImporter, any StoreSet) async throws -> Void
    ) async throws {
        try await TestServers.withStores(StoreBackends(archive: .sqlite, counts: .sqlite)) { database, store async throws in
            let classifier = FavoriteClassifier(store: store, tokenizer: ArchiveImporterTests.tokenizer, threshold: 3)
            let archive = database.archive(timeZone: TimeZone(identifier: "Asia/Tokyo")!, rowLimit: 10_000)
            try await archive.prepare()
            try await body(
                ArchiveImporter(
                    formats: NetworkRegistry.exportFormats, archive: archive, classifier: classifier, copyingWarnings: copyingWarnings,
                    resolveAccount: resolver), database)
        }
    }

    static func file(_ text: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "misskey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appending(path: "notes-2025-11-02-00-00-00.json")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test(
        "Public and home notes in their MFM, numbered as the Misskey module numbers them and kept beside; followers-only, specified, warned notes and renotes left out; replies filed under whom they answered, one look-up a note"
    )
    func importsNotes() async throws {
        let url = try Self.file(Self.notes)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let asked = LockedList()
        try await withImporter(resolver: { address in
            asked.append(address)
            return address == "note:9x0000000000taro" ? 4_242 : nil
        }) { importer, database in
            let report = try await importer.importExport(at: url.path)
            #expect(
                report.network == "Misskey" && report.postsRead == 8 && report.repostsSkipped == 1 && report.notCopied == 3 && report.postsStored == 4
            )
            #expect(report.lookups == 2 && report.repliesWithoutTarget == 1)
            #expect(Set(asked.items) == ["note:9x000000000ghost", "note:9x0000000000taro"] && asked.items.count == 2)
            let stored = try await importer.destination.archive.newest(limit: 10)
            #expect(stored.map(\.text).sorted() == ["$[x2 **おはよう**] :igyo:", "@ghost 誰？", "@taro それな", "home も写す"])
            #expect(stored.first { $0.text == "@taro それな" }?.replyUserID == 4_242)
            #expect(stored.first { $0.text == "@ghost 誰？" }?.replyUserID == ArchivedPost.unknownReplyTarget)
            // Each note keeps the instance's id.
            #expect(stored.contains { $0.postID == "9x1a2b3c4d5e6f7g" })
            // Again: nothing new.
            #expect(try await importer.importExport(at: url.path).postsStored == 0)
        }
    }

    @Test("A cut export, a note without an id and one whose time is no time are refused by name, and nothing is stored")
    func malformed() async throws {
        try await withImporter(resolver: nil) { importer, _ in
            for (text, expected) in [
                (String(Self.notes.dropLast(100)), "cut short"),
                (Self.notes.replacingOccurrences(of: #"{"id":"9x1a2b3c4d5e6f7h","#, with: "{"), "entry 2 is not a Misskey note"),
                (Self.notes.replacingOccurrences(of: "2025-11-01T07:00:00.000Z", with: "yesterday"), "entry 8 has no valid id and createdAt"),
            ] {
                let url = try Self.file(text)
                defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
                let error = try await #require(throws: ImportError.self) { try await importer.importExport(at: url.path) }
                #expect(error.reason.contains(expected), "\(error)")
                #expect(!error.description.contains("\n"))
                #expect(try await importer.destination.archive.count() == 0)
            }
        }
    }
}

/// A list appended to from the resolver's closure.
final class LockedList: Sendable {
    private let list = Mutex<[String]>([])
    func append(_ item: String) { list.withLock { $0.append(item) } }
    var items: [String] { list.withLock { $0 } }
}
