import BotClock
import BotCore
public import ExportFormats
public import Foundation
import PostText
import Stores

/// Mastodon's archive ("Request your archive": `outbox.json` and `likes.json`), as `mirror_bot import` reads it: every
/// status read first; boosts, and statuses not for everyone or behind a warning, left out (or, with `POST_CW`, kept
/// with their warning); replies filed under whom they answered (looked up once per account on the person's instance,
/// else under `ArchivedPost.unknownReplyTarget`); likes counted, not learned (the export lists only their addresses).
public struct MastodonExportFormat: ExportFormat {
    /// The format.
    public init() {}

    /// "Mastodon".
    public var network: String { "Mastodon" }
    /// The files it reads, for messages.
    public var fileNames: String { "outbox.json / likes.json" }
    /// What `mirror_bot import --help` says of it.
    public var help: String {
        """
        Mastodon: the .zip from "Request your archive" (Preferences → Import and export), or its outbox.json. \
        Boosts, and statuses that were followers-only, direct or behind a content warning (unless POST_CW=true) \
        are left out. A reply is filed under whom it answered by looking that account up once on the person's \
        instance (HUMAN_MASTODON_URL and HUMAN_MASTODON_TOKEN; free); without them, replies are stored without a \
        target and say so. likes.json lists only the liked statuses' addresses: run `mirror_bot train \
        classifier`, which reads the person's favourites from the API (free on Mastodon).
        """
    }

    /// Whether it reads the file at `path`: `outbox.json` or `likes.json`, wherever the zip keeps them.
    public func reads(_ path: String) -> Bool { ["outbox.json", "likes.json"].contains(Self.fileName(path)) }

    /// `outbox.json` or `likes.json`, by the ActivityStreams collection the file holds.
    public func fileName(forHead head: Data) -> String? {
        let text = String(decoding: head, as: UTF8.self)
        guard text.contains("\"orderedItems\"") else { return nil }
        return text.contains("\"Create\"") || text.contains("\"Announce\"") ? "outbox.json" : "likes.json"
    }

    private static func fileName(_ path: String) -> String { String(path.split(separator: "/").last ?? Substring(path)) }

    /// Reads the outbox (the one nearest the top) and counts the likes, then files replies and stores the statuses.
    public func importFiles(_ files: [ExportFiles.File], into destination: ImportDestination) async throws -> ImportReport {
        var report = ImportReport(network: network)
        var statuses: [MastodonOutbox.Status] = []
        if let outbox = files.first(where: { Self.fileName($0.path) == "outbox.json" }) {
            let contents = try MastodonOutbox.contents(of: outbox)
            report.postsRead = contents.statuses.count + contents.boosts
            report.repostsSkipped = contents.boosts
            statuses = contents.statuses.filter { $0.isPublic && ($0.warning == nil || destination.copyingWarnings) }
            report.notCopied = contents.statuses.count - statuses.count
            guard contents.actors.count <= 1 else {
                throw ImportError(
                    file: outbox.name,
                    reason:
                        "its activities are by \(contents.actors.count) accounts (\(contents.actors.sorted().prefix(3).joined(separator: ", "))), where an archive is one account's"
                )
            }
            report.owner = contents.actors.first.map { ArchiveOwner.actor($0, on: network) }
        }
        if let likes = files.first(where: { Self.fileName($0.path) == "likes.json" }) {
            report.likesRead = try MastodonOutbox.likedCount(in: likes)
            report.likesWithoutText = report.likesRead
        }
        if let owner = report.owner { try await destination.checkOwner?(owner) }
        var answered: [String: AccountID?] = [:]
        for acct in Set(statuses.compactMap(\.answeredAcct)).sorted() {
            guard let resolveAccount = destination.resolveAccount else { break }
            answered[acct] = try await resolveAccount(acct)
            report.lookups += 1
        }
        let tweets = statuses.map { status -> ArchivedPost in
            var replyUserID: AccountID?
            if status.inReplyTo != nil {
                replyUserID = status.answeredAcct.flatMap { answered[$0] ?? nil } ?? ArchivedPost.unknownReplyTarget
                if replyUserID == ArchivedPost.unknownReplyTarget { report.repliesWithoutTarget += 1 }
            }
            return ArchivedPost(
                postID: PostID(status.id), text: status.text, replyUserID: replyUserID, createdAt: status.publishedAt,
                contentWarning: status.warning)
        }
        report.postsStored = try await destination.archive.insert(tweets)
        return report
    }

    /// What a Mastodon export's import did, in words.
    public func summary(of report: ImportReport, archived: Int, resolving: Bool) -> String {
        var lines = [
            "Imported \(report.postsStored) new statuses (\(report.postsRead) read: \(report.repostsSkipped) boosts skipped, "
                + "\(report.notCopied) never copied: followers-only, direct or behind a content warning). The archive holds \(archived) posts."
        ]
        if report.lookups > 0 {
            lines.append("Replies filed under whom they answered: \(report.lookups) accounts looked up on the person's instance.")
        }
        if let line = report.repliesWithoutTargetLine(
            resolving: resolving, why: "the person's instance does not know those accounts", howToAsk: "HUMAN_MASTODON_URL and HUMAN_MASTODON_TOKEN")
        {
            lines.append(line)
        }
        if report.likesRead > 0 {
            lines.append(
                "likes.json lists \(report.likesRead) liked statuses by address only, so none was learned: run `mirror_bot train classifier` (free on Mastodon)."
            )
        }
        return lines.joined(separator: "\n")
    }
}

/// The Mastodon archive export ("Request your archive": `outbox.json` and `likes.json`, ActivityStreams): the
/// person's statuses as `Create` activities of `Note`s, their boosts as `Announce`s, their likes as the liked
/// statuses' addresses only.
enum MastodonOutbox {
    /// The public audience, as ActivityStreams writes it (also in its short forms).
    static let publicAudience: Set<String> = ["https://www.w3.org/ns/activitystreams#Public", "as:Public", "Public"]

    /// A status of the outbox, as the archive keeps it.
    struct Status: Equatable {
        /// Its id on the person's instance (the last part of its address).
        var id: Int64
        /// Its text as written (HTML turned to text).
        var text: String
        /// When it was posted.
        var publishedAt: Date
        /// The status it answers, by address.
        var inReplyTo: String?
        /// Whom it answers, as `user@domain`, when the archive says (its mention of the parent's author).
        var answeredAcct: String?
        /// Whether everyone may see it (public or unlisted).
        var isPublic: Bool
        /// Its content warning, if any.
        var warning: String?
    }

    /// What the outbox holds.
    struct Contents {
        var statuses: [Status] = []
        var boosts = 0
        /// The actors of its activities (one, the person's, in an archive of theirs).
        var actors: Set<String> = []
    }

    /// Parses `outbox.json` one activity at a time; errors say the file and the entry.
    static func contents(of file: ExportFiles.File) throws -> Contents {
        var reader = try JSONArrayReader(url: file.url, name: file.name, key: "orderedItems")
        var contents = Contents()
        let decoder = JSONDecoder()
        while let element = try reader.next() {
            let entry = reader.count
            let activity: Activity
            do {
                activity = try decoder.decode(Activity.self, from: element)
            } catch {
                throw ImportError(file: file.name, reason: "entry \(entry) is not an ActivityStreams activity (\(describe(error)))")
            }
            if let actor = activity.actor, ["Create", "Announce"].contains(activity.type) { contents.actors.insert(actor) }
            switch activity.type {
            case "Announce":
                contents.boosts += 1
            case "Create":
                guard case .note(let note)? = activity.object, note.type == "Note" else { continue }
                contents.statuses.append(try status(note, entry: entry, file: file.name))
            default:
                continue
            }
        }
        return contents
    }

    /// How many statuses `likes.json` lists (by address only: the export holds nothing more of them).
    static func likedCount(in file: ExportFiles.File) throws -> Int {
        var reader = try JSONArrayReader(url: file.url, name: file.name, key: "orderedItems")
        while try reader.next() != nil {}
        return reader.count
    }

    private static func status(_ note: Note, entry: Int, file: String) throws -> Status {
        guard let last = note.id.split(separator: "/").last, let id = Int64(last) else {
            throw ImportError(file: file, reason: "entry \(entry)'s note has the id \"\(note.id.prefix(80))\", which does not end in a status number")
        }
        guard let published = note.published, let date = ISO8601Time.date(from: published), date.timeIntervalSince1970 > 0,
            date < Date(timeIntervalSince1970: 32_503_680_000)
        else {
            throw ImportError(
                file: file, reason: "entry \(entry) was published \"\(note.published ?? "")\", not a time like \"2023-08-12T16:10:37Z\"")
        }
        let audience = (note.to?.values ?? []) + (note.cc?.values ?? [])
        let warning = note.summary.flatMap { $0.isEmpty ? nil : WrittenText.from(html: $0) }
        return Status(
            id: id, text: WrittenText.from(html: note.content ?? ""), publishedAt: date, inReplyTo: note.inReplyTo,
            answeredAcct: note.inReplyTo.flatMap { answeredAcct(parent: $0, tags: note.tag ?? []) },
            isPublic: audience.contains { publicAudience.contains($0) }, warning: warning)
    }

    /// Whom a reply to `parent` answers: the mention of the parent's author (`@user@domain`), else the address's
    /// own `https://domain/users/user/statuses/N` read as `user@domain`.
    static func answeredAcct(parent: String, tags: [Tag]) -> String? {
        guard let url = URL(string: parent), let host = url.host else { return nil }
        let parts = url.pathComponents
        guard let users = parts.firstIndex(of: "users"), users + 1 < parts.count else { return nil }
        let actor = "\(url.scheme ?? "https")://\(host)/users/\(parts[users + 1])"
        if let mention = tags.first(where: { $0.type == "Mention" && $0.href == actor }), let name = mention.name {
            let acct = name.hasPrefix("@") ? String(name.dropFirst()) : name
            return acct.contains("@") ? acct : "\(acct)@\(host)"
        }
        return "\(parts[users + 1])@\(host)"
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): "malformed or cut short: \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has no \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: "\(error)"
        }
    }

    // MARK: - ActivityStreams, as far as the import reads it

    struct Activity: Decodable {
        var type: String
        var actor: String?
        var object: ObjectOrLink?
    }

    /// An activity's object: a whole object, or its address.
    enum ObjectOrLink: Decodable {
        case note(Note)
        case link(String)

        init(from decoder: any Decoder) throws {
            if let address = try? decoder.singleValueContainer().decode(String.self) {
                self = .link(address)
                return
            }
            self = .note(try Note(from: decoder))
        }
    }

    struct Note: Decodable {
        var id: String
        var type: String
        var published: String?
        var content: String?
        var summary: String?
        var inReplyTo: String?
        var to: Audience?
        var cc: Audience?
        var tag: [Tag]?
    }

    /// `to` and `cc`: one address or several.
    struct Audience: Decodable {
        var values: [String]
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let many = try? container.decode([String].self) { values = many } else { values = [try container.decode(String.self)] }
        }
    }

    struct Tag: Decodable {
        var type: String?
        var href: String?
        var name: String?
    }
}
