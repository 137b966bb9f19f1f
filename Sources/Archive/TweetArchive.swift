public import Foundation
import PostText

/// The human's tweets (table `tweets`): what the bot posts from and replies with.
///
/// Minutes of the day and calendar days are those of the human's time zone, so DST days are right: Postgres
/// computes them from `created_at`; for SQLite, which has no time zones, they are computed in Swift and stored in
/// `minute` and `day`. The statements live apart by dialect (`TweetArchive+Postgres.swift`, `+SQLite.swift`), the
/// only SQL for the archive; this file holds what both share.
public struct TweetArchive: Sendable {
    /// The database holding the table.
    public let database: ArchiveDatabase
    /// The human's time zone.
    public let timeZone: TimeZone
    /// The most rows kept; inserting more deletes the oldest by `created_at`.
    public let rowLimit: Int

    /// An archive in `database`, counting time in `timeZone`, keeping at most `rowLimit` tweets.
    public init(database: ArchiveDatabase, timeZone: TimeZone, rowLimit: Int) {
        self.database = database
        self.timeZone = timeZone
        self.rowLimit = rowLimit
    }

    /// The statements in the database's dialect.
    private var statements: any TweetArchiveStatements {
        switch database.backend {
        case .postgres: PostgresTweetArchive(database: database)
        case .sqlite: SQLiteTweetArchive(database: database)
        }
    }

    /// Makes the stored minutes of the day those of this archive's zone: recomputes them when the archive was last
    /// used with another zone (or by the original bot, which used the server's); and marks which stored tweets
    /// contain a link where that is not known yet (rows stored before it was kept). Call once after opening.
    public func prepare() async throws {
        let unmarked = try await statements.tweetsWithoutLinkMark()
        if !unmarked.isEmpty {
            try await statements.markLinks(unmarked.map { (id: $0.id, hasLink: PostLinks.containsLink($0.text)) })
        }
        try await statements.recomputeMinutes(in: timeZone)
    }

    /// Stores `tweets` in one transaction, skipping those already stored, then deletes the oldest rows beyond the
    /// row limit. Returns how many were new.
    @discardableResult
    public func insert(_ tweets: [ArchivedTweet]) async throws -> Int {
        guard !tweets.isEmpty else { return 0 }
        var seen = Set<Int64>()
        let unique = tweets.filter { seen.insert($0.tweetID).inserted }
        let rows = unique.map { NewTweet(tweet: $0, hasLink: PostLinks.containsLink($0.text)) }
        return try await statements.insert(rows, in: timeZone, keeping: rowLimit)
    }

    /// How many tweets are stored.
    public func count() async throws -> Int { try await statements.count() }

    /// The newest stored tweet id (for `since_id`), or nil when the archive is empty.
    public func newestTweetID() async throws -> Int64? { try await statements.newestTweetID() }

    /// How many stored tweets were posted in each minute of the day (index 0 is 00:00), 1,440 entries.
    public func minuteHistogram(includingReplies: Bool = true) async throws -> [Int] {
        var histogram = [Int](repeating: 0, count: MinuteWindow.minutesPerDay)
        for (minute, count) in try await statements.countsPerMinute(includingReplies: includingReplies)
        where histogram.indices.contains(minute) {
            histogram[minute] = count
        }
        return histogram
    }

    /// How many tweets were posted on each calendar day (human's zone) that has any, oldest day first.
    /// Days without tweets are absent, as in the original.
    public func postsPerDay(includingReplies: Bool = true) async throws -> [DayCount] {
        try await statements.postsPerDay(includingReplies: includingReplies, in: timeZone)
    }

    /// A tweet that is not a reply, posted within ±`radius` minutes of `minute` of the day (wrapping around
    /// midnight), not in `excluded`; nil when there is none. The choice is uniform and comes from `generator`.
    /// `allowingMentions: false` skips tweets that @-mention anyone; `allowingLinks: false` skips tweets that contain
    /// a link; `notPostedSince` skips tweets the bot posted (see `recordBotPost`) at or after that time.
    public func randomTweet(
        nearMinute minute: Int, radius: Int, excluding excluded: Set<Int64> = [],
        allowingMentions: Bool = true, allowingLinks: Bool = true, notPostedSince: Date? = nil,
        using generator: inout some RandomNumberGenerator
    ) async throws -> ArchivedTweet? {
        let sample = TweetSample(minute: minute, window: MinuteWindow(around: minute, radius: radius), excluded: Array(excluded),
                                 allowingMentions: allowingMentions, allowingLinks: allowingLinks,
                                 postedSince: notPostedSince ?? Date.distantFuture)
        return try await statements.randomTweet(sample, using: &generator)
    }

    /// A past reply of the human to `userID` (to anyone when nil), not in `excluded`, with a link only when
    /// `allowingLinks`; nil when there is none.
    public func randomReply(
        toUser userID: Int64?, excluding excluded: Set<Int64> = [], allowingLinks: Bool = true,
        using generator: inout some RandomNumberGenerator
    ) async throws -> ArchivedTweet? {
        try await statements.randomReply(ReplySample(userID: userID, excluded: Array(excluded), allowingLinks: allowingLinks), using: &generator)
    }

    /// Records that the bot posted a copy of `sourceTweetID` (as `botTweetID`, once known) at `postedAt`.
    public func recordBotPost(sourceTweetID: Int64, botTweetID: Int64?, postedAt: Date) async throws {
        try await statements.recordBotPost(sourceTweetID: sourceTweetID, botTweetID: botTweetID, postedAt: postedAt)
    }

    /// The stored tweets, newest first, at most `limit`.
    public func newest(limit: Int) async throws -> [ArchivedTweet] { try await statements.newest(limit: limit) }

    /// Deletes every stored tweet (`mirror_bot train clear`).
    public func removeAll() async throws { try await statements.removeAll() }

    /// The bot's posts made from `sourceTweetID`: copies posted in its slots (and the original bot's records) and
    /// answers made of it, each id once, oldest first.
    public func botCopies(of sourceTweetID: Int64) async throws -> [Int64] { try await statements.botCopies(of: sourceTweetID) }

    /// The archived tweets the bot made copies of (posts or answers) since `date`, each once: what the deletion
    /// watcher looks up.
    public func copiedOriginals(since date: Date) async throws -> [Int64] { try await statements.copiedOriginals(since: date) }

    /// Deletes one stored tweet (the person deleted it); whether it was there.
    @discardableResult
    public func remove(tweetID: Int64) async throws -> Bool { try await statements.remove(tweetID: tweetID) }

    // MARK: - Rules both dialects follow

    /// A POSIX regular expression matching an @-mention: `@` or `＠` before a username character, not inside a word.
    static let mentionPattern = "(^|[^A-Za-z0-9_])[@＠][A-Za-z0-9_]"

    /// Whether `text` matches `mentionPattern`, tested in Swift for SQLite.
    static func mentionsSomeone(_ text: String) -> Bool {
        func isUsernameCharacter(_ scalar: Unicode.Scalar?) -> Bool {
            guard let scalar, scalar.isASCII else { return false }
            return scalar == "_" || ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
        }
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() where scalar == "@" || scalar == "＠" {
            let before = index > 0 ? scalars[index - 1] : nil
            let after = index + 1 < scalars.count ? scalars[index + 1] : nil
            if !isUsernameCharacter(before) && isUsernameCharacter(after) { return true }
        }
        return false
    }

    /// A JSON array of ids, which SQLite's `json_each` reads as a table (SQLite has no array parameters).
    static func jsonArray(_ ids: [Int64]) -> String { "[" + ids.map(String.init).joined(separator: ",") + "]" }
}

/// A tweet to store, with what Swift computed of it.
struct NewTweet: Sendable {
    var tweet: ArchivedTweet
    var hasLink: Bool
}

/// What a post is sampled from: non-replies in a window of minutes of the day, less what is excluded.
struct TweetSample: Sendable {
    var minute: Int
    var window: MinuteWindow
    var excluded: [Int64]
    var allowingMentions: Bool
    var allowingLinks: Bool
    var postedSince: Date
}

/// What a reply is sampled from: the human's replies to a user (to anyone when nil), less what is excluded.
struct ReplySample: Sendable {
    var userID: Int64?
    var excluded: [Int64]
    var allowingLinks: Bool

    /// "user 300" or "anyone", for error messages.
    var whom: String { userID.map { "user \($0)" } ?? "anyone" }
}

/// The archive's statements in one dialect. Random picks read the same rows in the same order and draw the same way
/// (one `Int.random` over their count) in both, so a seed picks the same tweet on either engine.
protocol TweetArchiveStatements: Sendable {
    func recomputeMinutes(in zone: TimeZone) async throws
    func tweetsWithoutLinkMark() async throws -> [(id: Int64, text: String)]
    func markLinks(_ marks: [(id: Int64, hasLink: Bool)]) async throws
    func insert(_ tweets: [NewTweet], in zone: TimeZone, keeping rowLimit: Int) async throws -> Int
    func count() async throws -> Int
    func newestTweetID() async throws -> Int64?
    func countsPerMinute(includingReplies: Bool) async throws -> [(minute: Int, count: Int)]
    func postsPerDay(includingReplies: Bool, in zone: TimeZone) async throws -> [DayCount]
    func randomTweet(_ sample: TweetSample, using generator: inout some RandomNumberGenerator) async throws -> ArchivedTweet?
    func randomReply(_ sample: ReplySample, using generator: inout some RandomNumberGenerator) async throws -> ArchivedTweet?
    func recordBotPost(sourceTweetID: Int64, botTweetID: Int64?, postedAt: Date) async throws
    func newest(limit: Int) async throws -> [ArchivedTweet]
    func removeAll() async throws
    func remove(tweetID: Int64) async throws -> Bool
    func botCopies(of sourceTweetID: Int64) async throws -> [Int64]
    func copiedOriginals(since date: Date) async throws -> [Int64]
}

/// The archived tweets copied since a date, in both dialects (`?` placeholders, twice the date).
let copiedOriginalsSQL = """
    SELECT DISTINCT source_tweet_id FROM (
        SELECT source_tweet_id FROM bot_posts WHERE bot_tweet_id IS NOT NULL AND posted_at >= ?
        UNION SELECT source_tweet_id FROM mention_replies
        WHERE reply_tweet_id IS NOT NULL AND source_tweet_id IS NOT NULL AND handled_at >= ?
    ) AS copies WHERE source_tweet_id IN (SELECT tweet_id FROM tweets) ORDER BY source_tweet_id
    """

/// The bot's posts made of one tweet, in both dialects (`?` placeholders, three times the source id).
let botCopiesSQL = """
    SELECT bot_tweet_id FROM (
        SELECT bot_tweet_id FROM plan_slots WHERE source_tweet_id = ? AND bot_tweet_id IS NOT NULL
        UNION SELECT bot_tweet_id FROM bot_posts WHERE source_tweet_id = ? AND bot_tweet_id IS NOT NULL
        UNION SELECT reply_tweet_id FROM mention_replies WHERE source_tweet_id = ? AND reply_tweet_id IS NOT NULL
    ) AS copies ORDER BY bot_tweet_id
    """

extension Array {
    /// The element at a uniformly random offset, drawn as the Postgres path draws it (one `Int.random` call over
    /// the count), so that a seeded generator picks the same row on either backend; nil when empty.
    func randomElementByOffset(using generator: inout some RandomNumberGenerator) -> Element? {
        isEmpty ? nil : self[Int.random(in: 0..<count, using: &generator)]
    }
}
