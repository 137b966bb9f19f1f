public import BotCore
public import Foundation

/// The person's posts (table `posts`): what the bot posts from and replies with. Minutes of the day and calendar
/// days are those of `timeZone`, DST included.
public protocol PostArchive: Sendable {
    /// The person's time zone.
    var timeZone: TimeZone { get }
    /// The most rows kept; inserting more deletes the oldest by `created_at`.
    var rowLimit: Int { get }

    /// Makes the stored minutes of the day those of this archive's zone (recomputed when the archive was last used
    /// with another, or by the original bot), and marks which stored posts contain a link where that is not known
    /// yet. Call once after opening.
    func prepare() async throws
    /// Stores `posts` in one transaction, skipping those already stored, then deletes the oldest rows beyond the row
    /// limit; how many were new.
    @discardableResult func insert(_ posts: [ArchivedPost]) async throws -> Int
    /// How many posts are stored.
    func count() async throws -> Int
    /// The newest stored post id (for `since_id`), or nil when the archive is empty.
    func newestPostID() async throws -> PostID?
    /// Whether one of the person's posts says exactly `text` (a remix must not be one of them).
    func containsText(_ text: String) async throws -> Bool
    /// How many stored posts were posted in each minute of the day (index 0 is 00:00), 1,440 entries.
    func minuteHistogram(includingReplies: Bool) async throws -> [Int]
    /// How many posts were posted on each calendar day that has any, oldest day first (quiet days absent).
    func postsPerDay(includingReplies: Bool) async throws -> [DayCount]
    /// A post drawn uniformly (one `Int.random` over the candidates in id order, `PostID`'s, the same on every database)
    /// from what `sample` allows; nil when there is none.
    func randomPost(_ sample: PostSample, using generator: inout some RandomNumberGenerator) async throws -> ArchivedPost?
    /// Up to `count` distinct posts drawn uniformly from what `sample` allows (the same on every database for a seed),
    /// in one read: the sources of a remix.
    func randomPosts(_ sample: PostSample, count: Int, using generator: inout some RandomNumberGenerator) async throws -> [ArchivedPost]
    /// A past reply drawn the same way from what `sample` allows; nil when there is none.
    func randomReply(_ sample: ReplySample, using generator: inout some RandomNumberGenerator) async throws -> ArchivedPost?
    /// Records that the bot posted a copy of `sourcePostID` (as `botPostID`, once known) at `postedAt`.
    func recordBotPost(sourcePostID: PostID, botPostID: PostID?, postedAt: Date) async throws
    /// The stored posts, newest first, at most `limit`.
    func newest(limit: Int) async throws -> [ArchivedPost]
    /// The stored posts among `ids` (at most 100), in no order; an id not stored is left out.
    func posts(withIDs ids: [PostID]) async throws -> [ArchivedPost]
    /// Deletes every stored post (`mirror_bot train clear`).
    func removeAll() async throws
    /// Deletes one stored post (the person deleted it); whether it was there.
    @discardableResult func remove(postID: PostID) async throws -> Bool
    /// The bot's posts made from `sourcePostID` (slots' copies, the original bot's records, answers), each once, ascending.
    func botCopies(of sourcePostID: PostID) async throws -> [PostID]
    /// The archived posts the bot made copies of (posts or answers) since `date`, each once: what the deletion
    /// watcher looks up.
    func copiedOriginals(since date: Date) async throws -> [PostID]
}

extension PostArchive {
    /// Every minute's count, replies included.
    public func minuteHistogram() async throws -> [Int] { try await minuteHistogram(includingReplies: true) }
    /// Every day's count, replies included.
    public func postsPerDay() async throws -> [DayCount] { try await postsPerDay(includingReplies: true) }

    /// A post that is not a reply, posted within ±`radius` minutes of `minute` of the day (wrapping around midnight),
    /// not in `excluded`; nil when there is none. `allowingMentions: false` skips posts that @-mention anyone;
    /// `allowingLinks: false` skips posts that contain a link; `notPostedSince` skips posts the bot posted (see
    /// `recordBotPost`) at or after that time, and posts with the same text as one of those.
    public func randomPost(
        nearMinute minute: Int, radius: Int, excluding excluded: Set<PostID> = [], allowingMentions: Bool = true, allowingLinks: Bool = true,
        notPostedSince: Date? = nil, using generator: inout some RandomNumberGenerator
    ) async throws -> ArchivedPost? {
        try await randomPost(
            PostSample(
                minute: minute, window: MinuteWindow(around: minute, radius: radius), excluded: excluded.sorted(),
                allowingMentions: allowingMentions, allowingLinks: allowingLinks,
                postedSince: notPostedSince ?? .distantFuture), using: &generator)
    }

    /// Up to `count` posts that are not replies, posted within ±`radius` minutes of `minute` of the day, none in
    /// `excluded`, under the same rules as `randomPost` (the bot's own posts are not left out: a remix is not a copy).
    public func randomPosts(
        nearMinute minute: Int, radius: Int, count: Int, excluding excluded: Set<PostID> = [], allowingMentions: Bool = true,
        allowingLinks: Bool = true, using generator: inout some RandomNumberGenerator
    ) async throws -> [ArchivedPost] {
        try await randomPosts(
            PostSample(
                minute: minute, window: MinuteWindow(around: minute, radius: radius), excluded: excluded.sorted(),
                allowingMentions: allowingMentions, allowingLinks: allowingLinks, postedSince: .distantFuture),
            count: count, using: &generator)
    }

    /// A past reply of the person to `userID` (to anyone when nil; stored under one of `formerIDs`, the ids older
    /// releases gave that account, as well), not in `excluded`, with a link only when `allowingLinks`; nil when there
    /// is none.
    public func randomReply(
        toUser userID: AccountID?, formerIDs: [AccountID] = [], excluding excluded: Set<PostID> = [], allowingLinks: Bool = true,
        using generator: inout some RandomNumberGenerator
    ) async throws -> ArchivedPost? {
        try await randomReply(
            ReplySample(userID: userID, formerIDs: formerIDs, excluded: excluded.sorted(), allowingLinks: allowingLinks), using: &generator)
    }
}

/// One of the person's posts as the archive keeps it. Reposts are never archived.
public struct ArchivedPost: Sendable, Equatable, Hashable {
    /// The post's id on its network.
    public var postID: PostID
    /// The text as written: HTML entities decoded, links expanded by whoever stores it.
    public var text: String
    /// The user it replies to, or nil for a post that is not a reply.
    public var replyUserID: AccountID?
    /// When it was posted.
    public var createdAt: Date
    /// Its content warning (Mastodon's `spoiler_text`), kept when `POST_CW=true`; nil for a post without one.
    public var contentWarning: String?

    /// `replyUserID` of a reply whose addressee no one can name (a Mastodon export's reply to an account the person's
    /// instance does not know): never a post, never an answer to a mentioner, a fallback at most.
    public static let unknownReplyTarget: AccountID = "-1"

    /// A post from its parts.
    public init(postID: PostID, text: String, replyUserID: AccountID? = nil, createdAt: Date, contentWarning: String? = nil) {
        self.postID = postID
        self.text = text
        self.replyUserID = replyUserID
        self.createdAt = createdAt
        self.contentWarning = contentWarning
    }
}

/// How many posts the person made on one calendar day of their time zone.
public struct DayCount: Sendable, Equatable {
    /// The day as `YYYY-MM-DD` in the person's zone.
    public var day: String
    /// Posts that day.
    public var count: Int

    /// A count from its parts.
    public init(day: String, count: Int) {
        self.day = day
        self.count = count
    }
}

/// What a post is drawn from: non-replies in a window of minutes of the day, less what is excluded.
public struct PostSample: Sendable, Equatable {
    /// The minute asked about.
    public var minute: Int
    /// The minutes the post may have been posted in.
    public var window: MinuteWindow
    /// Posts left out, ascending.
    public var excluded: [PostID]
    /// Whether a post that @-mentions someone may be drawn.
    public var allowingMentions: Bool
    /// Whether a post with a link may be drawn.
    public var allowingLinks: Bool
    /// Posts posted by the bot at or after this (and posts with their texts) are left out.
    public var postedSince: Date

    /// A sample from its parts.
    public init(minute: Int, window: MinuteWindow, excluded: [PostID], allowingMentions: Bool, allowingLinks: Bool, postedSince: Date) {
        self.minute = minute
        self.window = window
        self.excluded = excluded
        self.allowingMentions = allowingMentions
        self.allowingLinks = allowingLinks
        self.postedSince = postedSince
    }
}

/// What a reply is drawn from: the person's replies to a user (to anyone when nil), less what is excluded.
public struct ReplySample: Sendable, Equatable {
    /// The user answered; nil: anyone.
    public var userID: AccountID?
    /// The ids older releases gave that user, under which replies to them may be stored too.
    public var formerIDs: [AccountID]
    /// Replies left out, ascending.
    public var excluded: [PostID]
    /// Whether a reply with a link may be drawn.
    public var allowingLinks: Bool

    /// A sample from its parts.
    public init(userID: AccountID?, formerIDs: [AccountID] = [], excluded: [PostID], allowingLinks: Bool) {
        self.userID = userID
        self.formerIDs = formerIDs
        self.excluded = excluded
        self.allowingLinks = allowingLinks
    }

    /// The ids replies to the user may be stored under: theirs, then their former ones; empty for anyone.
    public var userIDs: [AccountID] { userID.map { [$0] + formerIDs } ?? [] }

    /// "user 300" or "anyone", for error messages.
    public var whom: String { userID.map { "user \($0)" } ?? "anyone" }
}

/// The rules every archive follows, whatever holds the rows.
public enum ArchiveRules {
    /// A POSIX regular expression matching an @-mention: `@` or `＠` before a username character, not inside a word,
    /// or right after X's old `RT` (`RT@user`, a repost written by hand).
    public static let mentionPattern = "(^|[^A-Za-z0-9_]|[Rr][Tt])[@＠][A-Za-z0-9_]"

    /// Whether `text` matches `mentionPattern` (tested in Swift where the database has no regular expressions).
    public static func mentionsSomeone(_ text: String) -> Bool { !mentionedNames(in: text).isEmpty }

    /// The accounts `text` mentions, as written, lowercased, without the `@`, each once, in order: where
    /// `mentionPattern` matches, the name runs on over letters, digits, `_`, `.` and `-`, and over a second `@` and a
    /// host (`bob@example.social` on the fediverse, `alice.bsky.social` on Bluesky); a final `.` or `-` is not part
    /// of it.
    public static func mentionedNames(in text: String) -> [String] {
        func isUsernameCharacter(_ scalar: Unicode.Scalar?) -> Bool {
            guard let scalar, scalar.isASCII else { return false }
            return scalar == "_" || ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
        }
        func isHandleCharacter(_ scalar: Unicode.Scalar) -> Bool { isUsernameCharacter(scalar) || scalar == "." || scalar == "-" }
        let scalars = Array(text.unicodeScalars)
        var names: [String] = []
        var index = 0
        while index < scalars.count {
            defer { index += 1 }
            guard scalars[index] == "@" || scalars[index] == "＠" else { continue }
            let before = index > 0 ? scalars[index - 1] : nil
            let afterRT = index >= 2 && "rR".unicodeScalars.contains(scalars[index - 2]) && "tT".unicodeScalars.contains(scalars[index - 1])
            guard !isUsernameCharacter(before) || afterRT, index + 1 < scalars.count, isUsernameCharacter(scalars[index + 1]) else { continue }
            var end = index + 1
            while end < scalars.count, isHandleCharacter(scalars[end]) { end += 1 }
            // `@bob@example.social`: the host is part of the name.
            if end + 1 < scalars.count, scalars[end] == "@", isUsernameCharacter(scalars[end + 1]) {
                end += 1
                while end < scalars.count, isHandleCharacter(scalars[end]) { end += 1 }
            }
            var name = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
            while let last = name.last, last == "." || last == "-" { name.removeLast() }
            name = name.lowercased()
            if !names.contains(name) { names.append(name) }
            index = end - 1
        }
        return names
    }

    /// `posts` with each id once (the first kept), in order.
    public static func distinct(_ posts: [ArchivedPost]) -> [ArchivedPost] {
        var seen = Set<PostID>()
        return posts.filter { seen.insert($0.postID).inserted }
    }

    /// A 1,440-entry histogram from counts per minute (minutes outside the day are dropped).
    public static func histogram(_ counts: [(minute: Int, count: Int)]) -> [Int] {
        var histogram = [Int](repeating: 0, count: MinuteWindow.minutesPerDay)
        for (minute, count) in counts where histogram.indices.contains(minute) { histogram[minute] = count }
        return histogram
    }

    /// A JSON array of ids (SQLite's `json_each` reads it as a table).
    public static func jsonArray<Kind>(_ ids: [NetworkIdentifier<Kind>]) -> String {
        let encoded = try? JSONEncoder().encode(ids.map(\.text))
        return encoded.flatMap { String(data: $0, encoding: .utf8) } ?? "[]"
    }
}

extension Array {
    /// Up to `count` distinct elements, drawn uniformly (a partial Fisher–Yates shuffle, so that a seeded generator
    /// draws the same rows on any database), in the order drawn.
    public func randomSample(count: Int, using generator: inout some RandomNumberGenerator) -> [Element] {
        var pool = self
        let taken = Swift.min(Swift.max(0, count), pool.count)
        for index in 0..<taken { pool.swapAt(index, Int.random(in: index..<pool.count, using: &generator)) }
        return Array(pool.prefix(taken))
    }

    /// The element at a uniformly random offset, drawn as every archive draws it (one `Int.random` over the count), so
    /// that a seeded generator picks the same row on any database; nil when empty.
    public func randomElementByOffset(using generator: inout some RandomNumberGenerator) -> Element? {
        isEmpty ? nil : self[Int.random(in: 0..<count, using: &generator)]
    }
}
