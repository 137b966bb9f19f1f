import BotCore
public import ExportFormats
public import Foundation
import PostText
import Stores
import XAPI

/// X's archive ("Download your archive": `data/tweets.js`, `data/tweets-partN.js` and the pre-2022 `data/tweet.js`,
/// `data/like.js`, `data/account.js`), as `mirror_bot import` reads it: the free, uncapped way to train.
///
/// Tweets go into the archive in one transaction; likes are learned as the person's `likesPerBatch` at a time, each
/// batch in one transaction of the word counts, each liked tweet at most once ever: an import stopped midway (a kill)
/// leaves whole batches learned, and importing again learns the rest, nothing twice. Retweets are skipped; t.co links
/// are expanded; HTML entities are decoded. Likes have no author in the export, so they are learned from their nouns
/// alone. Import never calls the X API.
public struct XExportFormat: ExportFormat {
    /// The format.
    public init() {}

    /// "X".
    public var network: String { "X" }
    /// The files it reads, for messages.
    public var fileNames: String { "tweets.js / like.js" }
    /// What `mirror_bot import --help` says of it.
    public var help: String {
        """
        X: the .zip from "Download your archive" (Settings → Your account), its folder, or its data/tweets.js or like.js. \
        Retweets are left out; t.co links are written out whole; likes carry their text and are learned into the \
        favorite filter (dated by their ids, since the export says nothing of when).
        """
    }

    /// What an X archive's file holds.
    enum Kind { case tweets, likes, account }

    /// What the file at `path` holds, or nil for files the import does not read: at the top, or in the archive's `data/`.
    static func kind(of path: String) -> Kind? {
        guard path.hasPrefix("data/") || !path.contains("/") else { return nil }
        let file = String(path.split(separator: "/").last ?? Substring(path))
        guard file.hasSuffix(".js") else { return nil }
        let base = String(file.dropLast(3))
        func matches(_ stem: String) -> Bool {
            base == stem || (base.hasPrefix(stem + "-part") && Int(base.dropFirst(stem.count + 5)) != nil)
        }
        if matches("tweets") || matches("tweet") { return .tweets }
        if matches("like") { return .likes }
        if base == "account" { return .account }
        return nil
    }

    /// Whether it reads the file at `path`.
    public func reads(_ path: String) -> Bool { Self.kind(of: path) != nil }

    /// `tweets.js` or `like.js`, by the variable the file assigns.
    public func fileName(forHead head: Data) -> String? {
        let text = String(decoding: head, as: UTF8.self)
        if text.contains("window.YTD.tweet") { return "tweets.js" }
        if text.contains("window.YTD.like") { return "like.js" }
        return nil
    }

    /// Parses and converts everything first (an error leaves both stores untouched), asks about the owner, stores the
    /// tweets, then learns the likes a batch at a time.
    public func importFiles(_ files: [ExportFiles.File], into destination: ImportDestination) async throws -> ImportReport {
        var report = ImportReport(network: network)
        let tweetFiles = files.filter { Self.kind(of: $0.path) == .tweets }
        let likeFiles = files.filter { Self.kind(of: $0.path) == .likes }
        if let file = files.first(where: { Self.kind(of: $0.path) == .account }), let account = try ExportParser.account(in: file) {
            report.owner = ArchiveOwner(network: network, account: account.accountId, handle: account.username)
        }
        var tweets = NewestPosts(keeping: destination.archive.rowLimit)
        for file in tweetFiles {
            try ExportParser.forEachTweet(in: file) { tweet, entry in
                report.postsRead += 1
                guard let archived = try Self.archived(tweet, file: file.name, entry: entry) else {
                    report.repostsSkipped += 1
                    return
                }
                tweets.add(archived)
            }
        }
        // The likes are read through once to check them (none held), then again to learn them a batch at a time.
        for file in likeFiles {
            try ExportParser.forEachLike(in: file) { like, _ in
                report.likesRead += 1
                if Self.learnable(like) == nil { report.likesWithoutText += 1 }
            }
        }

        if let owner = report.owner { try await destination.checkOwner?(owner) }
        report.postsStored = try await destination.archive.insert(tweets.kept)
        var batch: [(id: String, text: String)] = []
        var dated: [PersonLike] = []
        let learn = destination.learnLikes
        for file in likeFiles {
            try await ExportParser.forEachLike(in: file) { like, _ in
                // X's like.js says nothing of when: a like is dated by the liked tweet's id (a Snowflake holds its time).
                if let id = Int64(like.tweetId), let at = XSnowflake.date(of: id) {
                    dated.append(PersonLike(postID: PostID(id), likedAt: at, isExact: false))
                }
                guard let learnable = Self.learnable(like), let learn else { return }
                batch.append(learnable)
                if batch.count == ImportDestination.likesPerBatch {
                    report.likesLearned += try await learn(batch)
                    batch = []
                }
            }
        }
        if !batch.isEmpty, let learn { report.likesLearned += try await learn(batch) }
        try await destination.personLikes?.recordPersonLikes(dated)
        return report
    }

    /// "Imported 3 new tweets (4 read, 1 retweets skipped) and learned 2 new likes (…)".
    public func summary(of report: ImportReport, archived: Int, resolving: Bool) -> String {
        "Imported \(report.postsStored) new tweets (\(report.postsRead) read, \(report.repostsSkipped) retweets skipped) "
            + "and learned \(report.likesLearned) new likes (\(report.likesRead) read, \(report.likesWithoutText) without text). "
            + "The archive holds \(archived) tweets."
    }

    /// A like's id and text as the classifier learns it (its t.co link expanded); nil when the export gave no text.
    static func learnable(_ like: ExportParser.Like) -> (id: String, text: String)? {
        guard let text = like.fullText, !text.isEmpty else { return nil }
        let expanded = like.expandedUrl.map { url in Self.replacingTcoLinks(in: text, with: url) } ?? text
        return (like.tweetId, expanded)
    }

    /// The archive's form of an exported tweet; nil for a retweet.
    static func archived(_ tweet: ExportParser.Tweet, file: String, entry: Int) throws -> ArchivedPost? {
        let rawText = tweet.fullText ?? tweet.text ?? ""
        if rawText.hasPrefix("RT @") { return nil }
        guard let idText = tweet.idStr ?? tweet.id, let id = Int64(idText) else {
            throw ImportError(file: file, reason: "entry \(entry) has no numeric id_str")
        }
        guard let createdAt = ExportDate.parse(tweet.createdAt) else {
            throw ImportError(
                file: file,
                reason: "entry \(entry) has created_at \"\(tweet.createdAt.prefix(60))\", not a date like \"Sat Aug 12 16:10:37 +0000 2023\"")
        }
        let links = (tweet.entities?.urls ?? []).compactMap { link in link.expandedUrl.map { (link.url, $0) } }
        let text = WrittenText.from(escaped: rawText, links: links)
        let replyUserID = tweet.inReplyToUserIdStr.flatMap { Int64($0) }.map { AccountID($0) }
        return ArchivedPost(postID: PostID(id), text: text, replyUserID: replyUserID, createdAt: createdAt)
    }

    /// A like's text with its t.co link replaced by the like's `expandedUrl` (the export gives one per like).
    static func replacingTcoLinks(in text: String, with url: String) -> String {
        guard let range = text.range(of: "https://t.co/") else { return text }
        let end = text[range.upperBound...].firstIndex { $0.isWhitespace } ?? text.endIndex
        return text.replacingCharacters(in: range.lowerBound..<end, with: url)
    }
}

/// Parses the archive's data files: `window.YTD.tweets.part0 = [ {"tweet": {...}}, ... ]` and
/// `window.YTD.like.part0 = [ {"like": {...}}, ... ]`.
enum ExportParser {
    /// A tweet as the archive writes it: numbers as strings, `full_text` HTML-escaped,
    /// `created_at` like `Sat Aug 12 16:10:37 +0000 2023`.
    struct Tweet: Decodable {
        var idStr: String?
        var id: String?
        var fullText: String?
        var text: String?
        var createdAt: String
        var inReplyToUserIdStr: String?
        var entities: Entities?

        struct Entities: Decodable {
            var urls: [Link]?
        }

        struct Link: Decodable {
            var url: String
            var expandedUrl: String?
        }
    }

    /// A like: the archive has no author, and `fullText` is sometimes missing.
    struct Like: Decodable {
        var tweetId: String
        var fullText: String?
        var expandedUrl: String?
    }

    /// The account an X archive is of (`account.js`): its user id and its username then.
    struct Account: Decodable {
        var accountId: String
        var username: String?
    }

    private struct TweetEntry: Decodable { var tweet: Tweet }
    private struct AccountEntry: Decodable { var account: Account }
    private struct LikeEntry: Decodable { var like: Like }

    /// Hands each tweet of `file` to `body`, with its entry number (from 1), reading the file a megabyte at a time.
    static func forEachTweet(in file: ExportFiles.File, _ body: (Tweet, Int) throws -> Void) throws {
        try forEachEntry(TweetEntry.self, in: file) { try body($0.tweet, $1) }
    }

    /// Hands each like of `file` to `body`, with its entry number.
    static func forEachLike(in file: ExportFiles.File, _ body: (Like, Int) throws -> Void) throws {
        try forEachEntry(LikeEntry.self, in: file) { try body($0.like, $1) }
    }

    /// The account `file` (`account.js`) names, nil when it names none; throws when it names more than one.
    static func account(in file: ExportFiles.File) throws -> Account? {
        var accounts: [Account] = []
        try forEachEntry(AccountEntry.self, in: file) { entry, _ in accounts.append(entry.account) }
        guard let account = accounts.first else { return nil }
        guard accounts.allSatisfy({ $0.accountId == account.accountId }) else {
            throw ImportError(file: file.name, reason: "it names \(Set(accounts.map(\.accountId)).count) accounts, where an archive is one account's")
        }
        return account
    }

    /// Hands each like of `file` to `body`, with its entry number, waiting for `body` before reading the next.
    static func forEachLike(
        in file: ExportFiles.File, isolation: isolated (any Actor)? = #isolation,
        _ body: (Like, Int) async throws -> Void
    ) async throws {
        var entries = try EntryReader(LikeEntry.self, in: file)
        while let (entry, number) = try entries.next() { try await body(entry.like, number) }
    }

    /// The entries of the JSON array after `window.YTD.<name>.partN =`, decoded one at a time; errors say where the
    /// file is broken.
    private static func forEachEntry<Entry: Decodable>(_ type: Entry.Type, in file: ExportFiles.File, _ body: (Entry, Int) throws -> Void) throws {
        var entries = try EntryReader(type, in: file)
        while let (entry, number) = try entries.next() { try body(entry, number) }
    }

    /// The entries of the JSON array after `window.YTD.<name>.partN =`, decoded one at a time.
    private struct EntryReader<Entry: Decodable> {
        private var reader: JSONArrayReader
        private let file: ExportFiles.File
        private let decoder = JSONDecoder()

        init(_ type: Entry.Type, in file: ExportFiles.File) throws {
            reader = try JSONArrayReader(url: file.url, name: file.name) { prefix in
                prefix.isEmpty || (prefix.hasPrefix("window.YTD.") && prefix.hasSuffix("="))
                    ? nil
                    : "it starts with `\(prefix.prefix(40))`, not `window.YTD.<name>.partN =`"
            }
            self.file = file
            decoder.keyDecodingStrategy = .convertFromSnakeCase
        }

        /// The next entry and its number (from 1), or nil after the last; errors say where the file is broken.
        mutating func next() throws -> (Entry, Int)? {
            guard let element = try reader.next() else { return nil }
            let number = reader.count
            do {
                return (try decoder.decode(Entry.self, from: element), number)
            } catch DecodingError.dataCorrupted(let context) {
                throw ImportError(file: file.name, reason: "the JSON is malformed or cut short (entry \(number): \(ExportParser.describe(context)))")
            } catch DecodingError.keyNotFound(let key, let context) {
                throw ImportError(file: file.name, reason: "\(ExportParser.place(number, context.codingPath)) has no \"\(key.stringValue)\"")
            } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
                throw ImportError(file: file.name, reason: "\(ExportParser.place(number, context.codingPath)): \(context.debugDescription)")
            }
        }
    }

    /// "entry 12 (tweet.created_at)", counting entries from 1 as a person would.
    fileprivate static func place(_ number: Int, _ path: [any CodingKey]) -> String {
        let rest = path.map(\.stringValue).joined(separator: ".")
        return "entry \(number)" + (rest.isEmpty ? "" : " (\(rest))")
    }

    fileprivate static func describe(_ context: DecodingError.Context) -> String {
        let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
        return underlying ?? context.debugDescription
    }
}

/// `Sat Aug 12 16:10:37 +0000 2023`, the archive's time format, parsed without a DateFormatter (fast, thread-safe).
enum ExportDate {
    private static let months = [
        "Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6,
        "Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12,
    ]

    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, let month = months[String(parts[1])], let day = Int(parts[2]), let year = Int(parts[5]) else { return nil }
        let clock = parts[3].split(separator: ":").compactMap { Int($0) }
        let zone = parts[4]
        guard clock.count == 3, zone.count == 5, let zoneHours = Int(zone.dropFirst().prefix(2)), let zoneMinutes = Int(zone.suffix(2)),
            (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        // A year past 9999 (a crafted or damaged file) is no date a tweet was written on.
        guard (1970...9999).contains(year) else { return nil }
        let sign = zone.first == "-" ? -1 : 1
        let seconds =
            daysSince1970(year: year, month: month, day: day) * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]
            - sign * (zoneHours * 3_600 + zoneMinutes * 60)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
