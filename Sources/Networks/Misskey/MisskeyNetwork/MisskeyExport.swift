import BotClock
import BotCore
public import ExportFormats
public import Foundation
import MisskeyAPI
import Stores

/// Misskey's notes export (`notes-<date>.json`), as `mirror_bot import` reads it: every note read first; renotes,
/// quotes, notes not for everyone, warned ones (unless `POST_CW`) and notes of files only left out; each kept note
/// kept with its id on the instance; replies filed under whom they
/// answered (the note answered looked up once on the person's instance), else under `ArchivedPost.unknownReplyTarget`.
public struct MisskeyExportFormat: ExportFormat {
    /// The format.
    public init() {}

    /// "Misskey".
    public var network: String { "Misskey" }
    /// The files it reads, for messages.
    public var fileNames: String { "notes-<date>.json" }
    /// What `mirror_bot import --help` says of it.
    public var help: String {
        """
        Misskey: the notes-<date>.json from Settings → Import and export → Notes → Export (it arrives in the \
        person's drive). Renotes, quotes, followers-only and specified notes, notes behind a warning (unless \
        POST_CW=true) and notes of files only are left out; the MFM is kept as written. A reply is filed under \
        whom it answered by looking the note it answered up once on the person's instance (HUMAN_MISSKEY_URL and \
        HUMAN_MISSKEY_TOKEN; free). The export holds no reactions: `mirror_bot train classifier` reads them.
        """
    }

    /// Whether it reads the file at `path`: `notes-<date>.json` at the top or in `data/`.
    public func reads(_ path: String) -> Bool {
        let file = String(path.split(separator: "/").last ?? Substring(path))
        return (path.hasPrefix("data/") || !path.contains("/")) && file.hasPrefix("notes") && file.hasSuffix(".json")
    }

    /// None: a notes export is a plain JSON array, told from no other by its first bytes.
    public func fileName(forHead head: Data) -> String? { nil }

    /// Reads the newest export (by its date), files its replies, then stores its newest notes with their ids.
    public func importFiles(_ files: [ExportFiles.File], into destination: ImportDestination) async throws -> ImportReport {
        guard let file = files.last else { return ImportReport(network: network) }
        let contents = try MisskeyNotesExport.contents(of: file, copyingWarnings: destination.copyingWarnings)
        var report = ImportReport(network: network, postsRead: contents.read, repostsSkipped: contents.renotes)
        report.notCopied = contents.notCopied
        var newest = NewestPosts(keeping: destination.archive.rowLimit)
        var answered: [String: AccountID?] = [:]
        for entry in contents.notes {
            var replyUserID: AccountID?
            if let replyID = entry.note.replyId {
                if answered[replyID] == nil, let resolveAccount = destination.resolveAccount {
                    answered[replyID] = try await resolveAccount("note:" + replyID)
                    report.lookups += 1
                }
                replyUserID = (answered[replyID] ?? nil) ?? ArchivedPost.unknownReplyTarget
                if replyUserID == ArchivedPost.unknownReplyTarget { report.repliesWithoutTarget += 1 }
            }
            newest.add(
                ArchivedPost(
                    postID: PostID(entry.note.id), text: entry.note.text ?? "", replyUserID: replyUserID, createdAt: entry.createdAt,
                    contentWarning: entry.note.cw))
        }
        report.postsStored = try await destination.archive.insert(newest.kept)
        return report
    }

    /// What a Misskey notes export's import did, in words.
    public func summary(of report: ImportReport, archived: Int, resolving: Bool) -> String {
        var lines = [
            "Imported \(report.postsStored) new notes (\(report.postsRead) read: \(report.repostsSkipped) renotes and quotes skipped, "
                + "\(report.notCopied) never copied: followers-only, specified, behind a warning or files only). The archive holds \(archived) posts."
        ]
        if report.lookups > 0 {
            lines.append("Replies filed under whom they answered: \(report.lookups) notes looked up on the person's instance.")
        }
        if let line = report.repliesWithoutTargetLine(
            resolving: resolving, why: "the notes they answered are gone or hidden", howToAsk: "HUMAN_MISSKEY_URL and HUMAN_MISSKEY_TOKEN")
        {
            lines.append(line)
        }
        lines.append("The export holds no reactions: run `mirror_bot train classifier` to learn the person's (free on Misskey).")
        return lines.joined(separator: "\n")
    }
}

/// Misskey's notes export (Settings → Import and export → Notes: `notes-<date>.json`): a JSON array of the person's
/// notes, each with its id, text (MFM), `createdAt`, `replyId`, `renoteId`, `cw`, `visibility` and files; no author
/// (they are all the person's) and no reactions.
enum MisskeyNotesExport {
    /// A note of the export.
    struct Note: Decodable, Equatable {
        var id: String
        var text: String?
        var createdAt: String
        var replyId: String?
        var renoteId: String?
        var cw: String?
        var visibility: String?
    }

    /// What the export holds.
    struct Contents {
        /// The notes the bot may keep: public or home, with text, neither a renote nor a quote, without a warning (unless
        /// kept), each with its time.
        var notes: [(note: Note, createdAt: Date)] = []
        /// Renotes and quotes (never the person's own words to copy).
        var renotes = 0
        /// Notes read in all.
        var read = 0
        /// Followers-only and specified notes, warned ones (unless kept), and notes of files only.
        var notCopied = 0
    }

    /// Parses the export one note at a time; errors say the file and the entry.
    static func contents(of file: ExportFiles.File, copyingWarnings: Bool) throws -> Contents {
        var reader = try JSONArrayReader(url: file.url, name: file.name) { before in
            before.isEmpty ? nil : "expected a JSON array of notes (Misskey's notes export), not text before it"
        }
        var contents = Contents()
        let decoder = JSONDecoder()
        while let element = try reader.next() {
            let entry = reader.count
            let note: Note
            do {
                note = try decoder.decode(Note.self, from: element)
            } catch {
                throw ImportError(file: file.name, reason: "entry \(entry) is not a Misskey note (\(describe(error)))")
            }
            contents.read += 1
            guard let createdAt = ISO8601Time.date(from: note.createdAt), !note.id.isEmpty, !note.id.contains(where: \.isWhitespace) else {
                throw ImportError(
                    file: file.name, reason: "entry \(entry) has no valid id and createdAt (\(note.id.prefix(40)), \(note.createdAt.prefix(40)))")
            }
            if note.renoteId != nil {
                contents.renotes += 1
                continue
            }
            guard ["public", "home", nil].contains(note.visibility), let text = note.text, !text.isEmpty, note.cw == nil || copyingWarnings else {
                contents.notCopied += 1
                continue
            }
            contents.notes.append((note, createdAt))
        }
        return contents
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "no \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        default: "not a JSON object"
        }
    }
}
