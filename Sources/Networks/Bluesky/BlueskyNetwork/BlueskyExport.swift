import ATProtoRepository
import BlueskyAPI
import BotClock
import BotCore
public import ExportFormats
public import Foundation
import Stores

/// A Bluesky repository export (Settings → "Export my data": a `.car` file), as `mirror_bot import` reads it: every
/// post read first; reposts, quotes, posts without text and (unless `POST_CW`) labelled posts left out; replies filed
/// under whom they answered (by DID, as the Bluesky module names accounts); likes counted, not learned (the export holds
/// only the liked posts' addresses).
public struct BlueskyExportFormat: ExportFormat {
    /// The format.
    public init() {}

    /// "Bluesky".
    public var network: String { "Bluesky" }
    /// The files it reads, for messages.
    public var fileNames: String { ".car" }
    /// What `mirror_bot import --help` says of it.
    public var help: String {
        """
        Bluesky: the .car file from Settings → "Export my data", or the same from \
        'https://bsky.social/xrpc/com.atproto.sync.getRepo?did=did:plc:…' (no login; read with libcbor). Reposts, \
        quotes, posts with a label (!warn, porn, …) and posts without text are left out; shortened links are \
        written out whole from their facets; replies are filed under the DID they answered; likes are counted only \
        (the file holds their addresses). It is read whole, so it wants about as much memory as the file's size.
        """
    }

    /// Whether it reads the file at `path`: a `.car` at the top or in `data/`.
    public func reads(_ path: String) -> Bool {
        (path.hasPrefix("data/") || !path.contains("/")) && path.lowercased().hasSuffix(".car")
    }

    /// `repository.car` for a CAR file.
    public func fileName(forHead head: Data) -> String? { BlueskyExport.isCAR(head) ? "repository.car" : nil }

    /// Reads the first repository whole, then stores its newest posts.
    public func importFiles(_ files: [ExportFiles.File], into destination: ImportDestination) async throws -> ImportReport {
        guard let file = files.first else { return ImportReport(network: network) }
        let contents = try BlueskyExport.contents(of: file, copyingLabels: destination.copyingWarnings)
        var report = ImportReport(
            network: network, postsRead: contents.postsRead + contents.reposts, repostsSkipped: contents.reposts, likesRead: contents.likes,
            likesWithoutText: contents.likes)
        report.notCopied = contents.notCopied
        report.recordsMissing = contents.missing
        if !contents.did.isEmpty { report.owner = ArchiveOwner(network: network, account: contents.did, handle: nil) }
        var newest = NewestPosts(keeping: destination.archive.rowLimit)
        for post in contents.posts { newest.add(post) }
        if let owner = report.owner { try await destination.checkOwner?(owner) }
        report.postsStored = try await destination.archive.insert(newest.kept)
        return report
    }

    /// What a Bluesky repository's import did, in words.
    public func summary(of report: ImportReport, archived: Int, resolving: Bool) -> String {
        var lines = [
            "Imported \(report.postsStored) new posts (\(report.postsRead) read: \(report.repostsSkipped) reposts skipped, "
                + "\(report.notCopied) never copied: labelled, quotes or without text). The archive holds \(archived) posts."
        ]
        if report.recordsMissing > 0 {
            lines.append("\(report.recordsMissing) records the export names are not in the file (a partial export?): they were left out.")
        }
        if report.likesRead > 0 {
            lines.append(
                "The export lists \(report.likesRead) likes by address only, so none was learned; the bot does not like on Bluesky unless LIKES=on.")
        }
        return lines.joined(separator: "\n")
    }
}

/// A Bluesky account's exported repository (Settings → "Export my data": a `.car` file): the person's posts as the
/// archive keeps them, their reposts and likes counted. Read with libcbor through `ATProtoRepository`.
enum BlueskyExport {
    /// What the export holds.
    struct Contents {
        /// The account's DID.
        var did = ""
        /// The posts that may be copied, as the archive keeps them (ids and whom replies answered as the Bluesky
        /// module makes them, so that the bot finds them as if it had read them from Bluesky).
        var posts: [ArchivedPost] = []
        /// Posts read in all.
        var postsRead = 0
        /// Reposts (never copied).
        var reposts = 0
        /// Posts never copied: with a label (`!warn`, `porn`, …, unless `POST_CW`), quotes, posts without text (images alone).
        var notCopied = 0
        /// Likes (the export holds only the liked posts' addresses).
        var likes = 0
        /// Records whose block the file lacked.
        var missing = 0
    }

    /// Whether `head`, a file's first bytes, starts a CAR file: a short varint, then a CBOR map naming `roots` and
    /// `version`.
    static func isCAR(_ head: some Collection<UInt8>) -> Bool {
        let bytes = Array(head.prefix(64))
        guard bytes.count > 2, bytes[0] < 0x80, bytes[1] & 0xE0 == 0xA0 else { return false }
        let text = String(decoding: bytes, as: UTF8.self)
        return text.contains("roots") && text.contains("version")
    }

    /// Reads the repository at `file`, keeping labelled posts (with their labels as their warning) when
    /// `copyingLabels`; errors name the file and say what is wrong.
    static func contents(of file: ExportFiles.File, copyingLabels: Bool) throws -> Contents {
        let repository: Repository
        do {
            repository = try Repository(car: Array(try Data(contentsOf: file.url)))
        } catch let error as RepositoryError {
            throw ImportError(file: file.name, reason: "it is not a readable Bluesky repository export: \(error)")
        } catch {
            throw ImportError(file: file.name, reason: "it could not be read (\(error))")
        }
        var contents = Contents(did: repository.did)
        do {
            let counts = try repository.forEachRecord(in: [PostRecord.type, "app.bsky.feed.repost", "app.bsky.feed.like"]) { record in
                switch record.collection {
                case "app.bsky.feed.repost": contents.reposts += 1
                case "app.bsky.feed.like": contents.likes += 1
                default:
                    contents.postsRead += 1
                    guard let post = try archived(record, file: file.name, copyingLabels: copyingLabels) else {
                        contents.notCopied += 1
                        return
                    }
                    contents.posts.append(post)
                }
            }
            contents.missing = counts.missing
        } catch let error as RepositoryError {
            throw ImportError(file: file.name, reason: "its record tree cannot be read: \(error)")
        }
        return contents
    }

    /// The archive's form of a post record; nil for one never copied (a quote, no text, labelled unless `copyingLabels`).
    static func archived(_ record: Repository.Record, file: String, copyingLabels: Bool) throws -> ArchivedPost? {
        let post: PostRecord
        do {
            post = try JSONDecoder().decode(PostRecord.self, from: JSONEncoder().encode(record.value.json))
        } catch {
            throw ImportError(file: file, reason: "the post \(record.rkey) is not an app.bsky.feed.post record (\(error))")
        }
        guard let tid = TID(record.rkey), let id = Int64(exactly: tid.value) else {
            throw ImportError(file: file, reason: "the post \(record.rkey) has a record key that is not a TID")
        }
        let labels = (post.labels?.values ?? []).map(\.val)
        guard labels.isEmpty || copyingLabels, post.embed?.isQuote != true else { return nil }
        let text = post.textWithFullLinks
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        let answered = post.reply.flatMap { ATURI($0.parent.uri) }.map { AccountID($0.repo) }
        // The time the post claims, unless it is none or outside the years 1970 to 9999 (as every export's times are
        // kept): then the time its record key was made.
        let claimed = ISO8601Time.date(from: post.createdAt)
        return ArchivedPost(
            postID: PostID(id), text: text, replyUserID: answered, createdAt: claimed ?? tid.date,
            contentWarning: labels.isEmpty ? nil : labels.joined(separator: ", "))
    }
}
