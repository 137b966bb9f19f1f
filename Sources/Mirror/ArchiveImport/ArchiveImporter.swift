import BotCore
public import Classifier
import Foundation
import PostText
public import Stores

/// `mirror_bot import`: the free, uncapped way to train, from the human's "Download your archive" export.
///
/// Every file is parsed before anything is stored, so a malformed or truncated file stops the import with an error
/// naming the file and the place, and nothing is stored. Tweets go into the archive in one transaction; likes are
/// learned as favorites `likesPerBatch` at a time, each batch in one transaction of the word counts, each liked tweet
/// at most once ever: an import stopped midway (a kill) leaves whole batches learned, and importing again learns the
/// rest, nothing twice.
/// Retweets are skipped; t.co links are expanded; HTML entities are decoded. Likes have no author in the export, so
/// they are learned from their nouns alone. Import never calls the X API.
public struct ArchiveImporter: Sendable {
    /// What an import did.
    public struct Report: Sendable, Equatable {
        /// Tweets found in the tweet files.
        public var tweetsRead = 0
        /// Retweets left out.
        public var retweetsSkipped = 0
        /// Tweets newly stored (before the archive's row limit is applied).
        public var tweetsStored = 0
        /// Likes found.
        public var likesRead = 0
        /// Likes newly learned as favorite.
        public var likesLearned = 0
        /// Likes without text, which cannot be learned from (all of a Mastodon export's: it lists their addresses only).
        public var likesWithoutText = 0
        /// Mastodon: statuses never copied (followers-only, direct, or with a content warning unless `POST_CW`).
        public var notCopied = 0
        /// Mastodon: replies stored without whom they answered (the person's instance could not name them).
        public var repliesWithoutTarget = 0
        /// Mastodon: the accounts looked up on the person's instance to name whom replies answered.
        public var accountLookups = 0
        /// Whether the export was Mastodon's (else X's).
        public var isMastodon = false
        /// Whether the export was a Bluesky repository (else X's).
        public var isBluesky = false
        /// Bluesky: records the file named but did not hold (a partial export).
        public var recordsMissing = 0
        /// Whether the export was Misskey's notes.
        public var isMisskey = false
        /// Misskey: the notes a reply answered, looked up on the person's instance to name whom it answered.
        public var noteLookups = 0
        /// Whose archive it is, where it says (X's `account.js`, a Mastodon outbox's actor, a Bluesky repository's DID).
        public var owner: ArchiveOwner?

        /// A report from its parts (all zero by default).
        public init(
            tweetsRead: Int = 0, retweetsSkipped: Int = 0, tweetsStored: Int = 0, likesRead: Int = 0,
            likesLearned: Int = 0, likesWithoutText: Int = 0
        ) {
            self.tweetsRead = tweetsRead
            self.retweetsSkipped = retweetsSkipped
            self.tweetsStored = tweetsStored
            self.likesRead = likesRead
            self.likesLearned = likesLearned
            self.likesWithoutText = likesWithoutText
        }
    }

    /// The id the person's instance gives an account (`user@domain`), or nil when it does not know it: how a Mastodon
    /// export's replies are filed under whom they answered.
    public typealias AccountResolver = @Sendable (_ acct: String) async throws -> Int64?

    /// Where tweets go.
    public let archive: any TweetArchive
    /// What learns the likes.
    public let classifier: FavoriteClassifier
    /// Whether statuses with a content warning are kept, warning first (`POST_CW`).
    public let copyingWarnings: Bool
    /// Names whom a Mastodon reply answered (by `user@domain`), or a Misskey reply (by `note:<id>`, the note it
    /// answered); nil when no account of the person's is configured.
    public let resolveAccount: AccountResolver?
    /// Where a network whose ids are not numbers (Misskey) keeps what the archive's numbers stand for.
    public let networkIDs: (any NetworkIDStore)?
    /// Where the person's likes go, dated (what the day's likes are planned from); nil keeps none.
    public let personLikes: (any LikeLog)?
    /// Asked, once the archive is read and before anything is stored, whether the account it names may be imported;
    /// throws to refuse it (nothing is then stored). Nil imports any archive.
    public let checkOwner: (@Sendable (ArchiveOwner) async throws -> Void)?

    /// An importer into `archive` and `classifier`'s counts.
    public init(
        archive: any TweetArchive, classifier: FavoriteClassifier, copyingWarnings: Bool = false, resolveAccount: AccountResolver? = nil,
        networkIDs: (any NetworkIDStore)? = nil, personLikes: (any LikeLog)? = nil,
        checkOwner: (@Sendable (ArchiveOwner) async throws -> Void)? = nil
    ) {
        self.personLikes = personLikes
        self.checkOwner = checkOwner
        self.archive = archive
        self.classifier = classifier
        self.copyingWarnings = copyingWarnings
        self.resolveAccount = resolveAccount
        self.networkIDs = networkIDs
    }

    /// Imports the export at `path` (zip, folder, or a single `tweets.js` / `like.js`, or Mastodon's `outbox.json`).
    /// Files are read a megabyte at a time, and only the newest tweets the archive can keep are held.
    public func importExport(at path: String, limits: ExportFiles.Limits = ExportFiles.Limits()) async throws -> Report {
        let files = try ExportFiles(path: path, limits: limits)
        var report = Report()
        if files.outboxFile != nil || files.mastodonLikesFile != nil { return try await importMastodon(files) }
        if let repository = files.repositoryFile { return try await importBluesky(repository) }
        if let notes = files.misskeyNotesFile { return try await importMisskey(notes) }

        // Parse and convert everything first: an error here leaves both stores untouched.
        if let file = files.accountFile, let account = try ExportParser.account(in: file) {
            report.owner = ArchiveOwner(network: "X", account: account.accountId, handle: account.username)
        }
        var tweets = NewestTweets(keeping: archive.rowLimit)
        for file in files.tweetFiles {
            try ExportParser.forEachTweet(in: file) { tweet, entry in
                report.tweetsRead += 1
                guard let archived = try Self.archived(tweet, file: file.name, entry: entry) else {
                    report.retweetsSkipped += 1
                    return
                }
                tweets.add(archived)
            }
        }
        // The likes are read through once to check them (none held), then again to learn them a batch at a time.
        for file in files.likeFiles {
            try ExportParser.forEachLike(in: file) { like, _ in
                report.likesRead += 1
                if Self.learnable(like) == nil { report.likesWithoutText += 1 }
            }
        }

        if let owner = report.owner { try await checkOwner?(owner) }
        report.tweetsStored = try await archive.insert(tweets.kept)
        var batch: [(id: String, tweet: FavoriteClassifier.Tweet)] = []
        var dated: [PersonLike] = []
        for file in files.likeFiles {
            try await ExportParser.forEachLike(in: file) { like, _ in
                // X's like.js says nothing of when: a like is dated by the liked tweet's id (a Snowflake holds its time).
                if let id = Int64(like.tweetId), let at = XSnowflake.date(of: id) {
                    dated.append(PersonLike(postID: id, likedAt: at, isExact: false))
                }
                guard let learnable = Self.learnable(like) else { return }
                batch.append(learnable)
                if batch.count == Self.likesPerBatch {
                    report.likesLearned += try await classifier.learnOnce(batch, as: .favorite, source: .import)
                    batch = []
                }
            }
        }
        if !batch.isEmpty { report.likesLearned += try await classifier.learnOnce(batch, as: .favorite, source: .import) }
        try await personLikes?.recordPersonLikes(dated)
        return report
    }

    /// How many likes are learned in one round trip to the word counts.
    static let likesPerBatch = 2_000

    /// A like's id and text as the classifier learns it (its t.co link expanded); nil when the export gave no text.
    static func learnable(_ like: ExportParser.Like) -> (id: String, tweet: FavoriteClassifier.Tweet)? {
        guard let text = like.fullText, !text.isEmpty else { return nil }
        let expanded = like.expandedUrl.map { url in Self.replacingTcoLinks(in: text, with: url) } ?? text
        return (like.tweetId, .init(text: expanded))
    }

    /// A Mastodon export: every status read first; boosts, and statuses not for everyone or behind a warning, left
    /// out (or, with `POST_CW`, kept with their warning); replies filed under whom they answered (looked up once per
    /// account on the person's instance, else under `ArchivedTweet.unknownReplyTarget`); likes counted, not learned
    /// (the export lists only their addresses).
    private func importMastodon(_ files: ExportFiles) async throws -> Report {
        var report = Report()
        report.isMastodon = true
        var statuses: [MastodonOutbox.Status] = []
        if let outbox = files.outboxFile {
            let contents = try MastodonOutbox.contents(of: outbox)
            report.tweetsRead = contents.statuses.count + contents.boosts
            report.retweetsSkipped = contents.boosts
            statuses = contents.statuses.filter { $0.isPublic && ($0.warning == nil || copyingWarnings) }
            report.notCopied = contents.statuses.count - statuses.count
            guard contents.actors.count <= 1 else {
                throw ImportError(
                    file: outbox.name,
                    reason:
                        "its activities are by \(contents.actors.count) accounts (\(contents.actors.sorted().prefix(3).joined(separator: ", "))), where an archive is one account's"
                )
            }
            report.owner = contents.actors.first.map(ArchiveOwner.mastodonActor)
        }
        if let likes = files.mastodonLikesFile {
            report.likesRead = try MastodonOutbox.likedCount(in: likes)
            report.likesWithoutText = report.likesRead
        }
        if let owner = report.owner { try await checkOwner?(owner) }
        var answered: [String: Int64?] = [:]
        for acct in Set(statuses.compactMap(\.answeredAcct)).sorted() {
            guard let resolveAccount else { break }
            answered[acct] = try await resolveAccount(acct)
            report.accountLookups += 1
        }
        let tweets = statuses.map { status -> ArchivedTweet in
            var replyUserID: Int64?
            if status.inReplyTo != nil {
                replyUserID = status.answeredAcct.flatMap { answered[$0] ?? nil } ?? ArchivedTweet.unknownReplyTarget
                if replyUserID == ArchivedTweet.unknownReplyTarget { report.repliesWithoutTarget += 1 }
            }
            return ArchivedTweet(
                tweetID: status.id, text: status.text, replyUserID: replyUserID, createdAt: status.publishedAt,
                contentWarning: status.warning)
        }
        report.tweetsStored = try await archive.insert(tweets)
        return report
    }

    /// A Bluesky repository export: every post read first; reposts, quotes, posts without text and (unless `POST_CW`)
    /// labelled posts left out; replies filed under whom they answered (by DID, as the Bluesky module names accounts); likes counted, not
    /// learned (the export holds only the liked posts' addresses).
    private func importBluesky(_ file: ExportFiles.File) async throws -> Report {
        let contents = try BlueskyExport.contents(of: file, copyingLabels: copyingWarnings)
        var report = Report(
            tweetsRead: contents.postsRead + contents.reposts, retweetsSkipped: contents.reposts, likesRead: contents.likes,
            likesWithoutText: contents.likes)
        report.isBluesky = true
        report.notCopied = contents.notCopied
        report.recordsMissing = contents.missing
        if !contents.did.isEmpty { report.owner = ArchiveOwner(network: "Bluesky", account: contents.did, handle: nil) }
        var newest = NewestTweets(keeping: archive.rowLimit)
        for post in contents.posts { newest.add(post) }
        if let owner = report.owner { try await checkOwner?(owner) }
        report.tweetsStored = try await archive.insert(newest.kept)
        return report
    }

    /// A Misskey notes export: every note read first; renotes, quotes, notes not for everyone, warned ones (unless
    /// `POST_CW`) and notes of files only left out; each kept note numbered as the Misskey module numbers it (what the
    /// number stands for kept beside it); replies filed under whom they answered (the note answered looked up once on
    /// the person's instance), else under
    /// `ArchivedTweet.unknownReplyTarget`.
    private func importMisskey(_ file: ExportFiles.File) async throws -> Report {
        let contents = try MisskeyNotesExport.contents(of: file, copyingWarnings: copyingWarnings)
        var report = Report(tweetsRead: contents.read, retweetsSkipped: contents.renotes)
        report.isMisskey = true
        report.notCopied = contents.notCopied
        var newest = NewestTweets(keeping: archive.rowLimit)
        var answered: [String: Int64?] = [:]
        for entry in contents.notes {
            var replyUserID: Int64?
            if let replyID = entry.note.replyId {
                if answered[replyID] == nil, let resolveAccount {
                    answered[replyID] = try await resolveAccount("note:" + replyID)
                    report.noteLookups += 1
                }
                replyUserID = (answered[replyID] ?? nil) ?? ArchivedTweet.unknownReplyTarget
                if replyUserID == ArchivedTweet.unknownReplyTarget { report.repliesWithoutTarget += 1 }
            }
            newest.add(
                ArchivedTweet(
                    tweetID: entry.number, text: entry.note.text ?? "", replyUserID: replyUserID, createdAt: entry.createdAt,
                    contentWarning: entry.note.cw))
        }
        let kept = newest.kept
        let ids = Dictionary(contents.notes.map { ($0.number, $0.note.id) }, uniquingKeysWith: { first, _ in first })
        try await networkIDs?.remember(
            Dictionary(kept.compactMap { tweet in ids[tweet.tweetID].map { (tweet.tweetID, $0) } }, uniquingKeysWith: { first, _ in first }))
        report.tweetsStored = try await archive.insert(kept)
        return report
    }

    /// The archive's form of an exported tweet; nil for a retweet.
    static func archived(_ tweet: ExportParser.Tweet, file: String, entry: Int) throws -> ArchivedTweet? {
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
        return ArchivedTweet(tweetID: id, text: text, replyUserID: tweet.inReplyToUserIdStr.flatMap { Int64($0) }, createdAt: createdAt)
    }

    /// A like's text with its t.co link replaced by the like's `expandedUrl` (the export gives one per like).
    static func replacingTcoLinks(in text: String, with url: String) -> String {
        guard let range = text.range(of: "https://t.co/") else { return text }
        let end = text[range.upperBound...].firstIndex { $0.isWhitespace } ?? text.endIndex
        return text.replacingCharacters(in: range.lowerBound..<end, with: url)
    }
}

/// The newest tweets of an import, as many as the archive keeps (its row limit keeps the newest by time, then id):
/// older ones could never stay, so they are not held.
struct NewestTweets {
    private let limit: Int
    private var tweets: [ArchivedTweet] = []

    init(keeping limit: Int) { self.limit = max(1, limit) }

    /// Adds one; past twice the limit, only the newest `limit` are kept.
    mutating func add(_ tweet: ArchivedTweet) {
        tweets.append(tweet)
        if tweets.count >= 2 * limit { trim() }
    }

    /// The newest `limit`, newest first.
    var kept: [ArchivedTweet] {
        var copy = self
        copy.trim()
        return copy.tweets
    }

    private mutating func trim() {
        tweets.sort { ($0.createdAt, $0.tweetID) > ($1.createdAt, $1.tweetID) }
        if tweets.count > limit { tweets.removeLast(tweets.count - limit) }
    }
}
