import BotClock
import Foundation
import MisskeyAPI

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
        /// kept), each with its number and its Misskey id.
        var notes: [(note: Note, number: Int64, createdAt: Date)] = []
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
            guard let createdAt = ISO8601Time.date(from: note.createdAt), let number = MisskeyIDs.number(ofNote: note.id, createdAt: createdAt) else {
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
            contents.notes.append((note, number, createdAt))
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
