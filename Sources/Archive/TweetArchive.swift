public import Foundation
import GRDB
import Logging
import PostgresNIO
import PostText

/// The human's tweets (table `tweets`): what the bot posts from and replies with.
///
/// Minutes of the day and calendar days are those of the human's time zone, so DST days are right: Postgres
/// computes them from `created_at`; for SQLite, which has no time zones, they are computed here and stored in
/// `minute` and `day`. Every query here is the only SQL for the archive, in both dialects.
public struct TweetArchive: Sendable {
    /// The database holding the table.
    public let database: ArchiveDatabase
    /// The human's time zone.
    public let timeZone: TimeZone
    /// The most rows kept; inserting more deletes the oldest by `created_at`.
    public let rowLimit: Int

    private var zoneName: String { timeZone.identifier }
    private var logger: Logger { database.logger }

    /// An archive in `database`, counting time in `timeZone`, keeping at most `rowLimit` tweets.
    public init(database: ArchiveDatabase, timeZone: TimeZone, rowLimit: Int) {
        self.database = database
        self.timeZone = timeZone
        self.rowLimit = rowLimit
    }

    /// Makes the stored minutes of the day those of this archive's zone: recomputes them when the archive was last
    /// used with another zone (or by the original bot, which used the server's); and marks which stored tweets
    /// contain a link where that is not known yet (rows stored before it was kept). Call once after opening.
    public func prepare() async throws {
        try await markLinks()
        if case .sqlite = database.backend {
            let zone = timeZone
            return try await database.write("recomputing minutes of the day for \(zoneName)") { db in
                let stored = try String.fetchOne(db, sql: "SELECT value FROM archive_settings WHERE name = 'minute_time_zone'")
                guard stored != zone.identifier else { return }
                let update = try db.cachedStatement(sql: "UPDATE tweets SET minute = ?, day = ? WHERE id = ?")
                for row in try Row.fetchAll(db, sql: "SELECT id, created_at FROM tweets") {
                    let local = LocalTime(of: row["created_at"], in: zone)
                    try update.execute(arguments: [local.minute, local.day, row["id"] as Int64])
                }
                try db.execute(sql: """
                    INSERT INTO archive_settings (name, value) VALUES ('minute_time_zone', ?)
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value
                    """, arguments: [zone.identifier])
            }
        }
        try await transaction("recomputing minutes of the day for \(zoneName)") { connection in
            let rows = try await connection.query(
                "SELECT value FROM archive_settings WHERE name = 'minute_time_zone' FOR UPDATE", logger: logger)
            for try await stored in rows.decode(String.self) where stored == zoneName { return }
            let zone = zoneName
            try await connection.query("""
                UPDATE tweets SET minute = (extract(hour FROM created_at AT TIME ZONE \(zone)) * 60
                                          + extract(minute FROM created_at AT TIME ZONE \(zone)))::integer
                """, logger: logger)
            try await connection.query("""
                INSERT INTO archive_settings (name, value) VALUES ('minute_time_zone', \(zone))
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """, logger: logger)
        }
    }

    /// Sets `has_link` on the rows that have none yet, with the rule X links by (`PostLinks`).
    private func markLinks() async throws {
        if case .sqlite = database.backend {
            return try await database.write("marking tweets with links") { db in
                let update = try db.cachedStatement(sql: "UPDATE tweets SET has_link = ? WHERE id = ?")
                for row in try Row.fetchAll(db, sql: "SELECT id, text FROM tweets WHERE has_link IS NULL") {
                    try update.execute(arguments: [PostLinks.containsLink(row["text"]), row["id"] as Int64])
                }
            }
        }
        let rows = try await query("reading tweets without a link mark", "SELECT id, text FROM tweets WHERE has_link IS NULL",
                                   as: (Int64, String).self)
        guard !rows.isEmpty else { return }
        let ids = rows.map(\.0), marks = rows.map { PostLinks.containsLink($0.1) }
        try await transaction("marking tweets with links") { connection in
            try await connection.query("""
                UPDATE tweets SET has_link = m.has_link FROM unnest(\(ids)::bigint[], \(marks)::boolean[]) AS m(id, has_link)
                WHERE tweets.id = m.id
                """, logger: logger)
        }
    }

    /// Stores `tweets` in one transaction, skipping those already stored, then deletes the oldest rows beyond the
    /// row limit. Returns how many were new.
    @discardableResult
    public func insert(_ tweets: [ArchivedTweet]) async throws -> Int {
        guard !tweets.isEmpty else { return 0 }
        var seen = Set<Int64>()
        let unique = tweets.filter { seen.insert($0.tweetID).inserted }
        let ids = unique.map(\.tweetID)
        let texts = unique.map(\.text)
        let replyUserIDs = unique.map { $0.replyUserID ?? 0 }  // 0 stands for "not a reply": no X user has id 0.
        let dates = unique.map(\.createdAt)
        let links = unique.map { PostLinks.containsLink($0.text) }
        let zone = zoneName
        let limit = rowLimit
        if case .sqlite = database.backend {
            let timeZone = timeZone
            return try await database.write("inserting \(unique.count) tweets") { db in
                let insert = try db.cachedStatement(sql: """
                    INSERT INTO tweets (tweet_id, text, reply_user_id, created_at, minute, day, has_link) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (tweet_id) DO NOTHING
                    """)
                var inserted = 0
                for (tweet, hasLink) in zip(unique, links) {
                    let local = LocalTime(of: tweet.createdAt, in: timeZone)
                    try insert.execute(arguments: [tweet.tweetID, tweet.text, tweet.replyUserID, tweet.createdAt, local.minute, local.day, hasLink])
                    inserted += db.changesCount
                }
                if inserted > 0 {
                    try db.execute(sql: """
                        DELETE FROM tweets WHERE id IN (
                            SELECT id FROM tweets ORDER BY created_at DESC, tweet_id DESC LIMIT -1 OFFSET ?
                        )
                        """, arguments: [limit])
                }
                return inserted
            }
        }
        return try await transaction("inserting \(unique.count) tweets") { connection in
            let rows = try await connection.query("""
                WITH inserted AS (
                    INSERT INTO tweets (tweet_id, text, reply_user_id, created_at, minute, has_link)
                    SELECT t.tweet_id, t.text, NULLIF(t.reply_user_id, 0), t.created_at,
                           (extract(hour FROM t.created_at AT TIME ZONE \(zone)) * 60
                            + extract(minute FROM t.created_at AT TIME ZONE \(zone)))::integer, t.has_link
                    FROM unnest(\(ids)::bigint[], \(texts)::text[], \(replyUserIDs)::bigint[], \(dates)::timestamptz[], \(links)::boolean[])
                         AS t(tweet_id, text, reply_user_id, created_at, has_link)
                    ON CONFLICT (tweet_id) DO NOTHING
                    RETURNING 1
                )
                SELECT count(*)::bigint FROM inserted
                """, logger: logger)
            var inserted = 0
            for try await count in rows.decode(Int64.self) { inserted = Int(count) }
            if inserted > 0 {
                try await connection.query("""
                    DELETE FROM tweets WHERE id IN (
                        SELECT id FROM tweets ORDER BY created_at DESC, tweet_id DESC OFFSET \(limit)
                    )
                    """, logger: logger)
            }
            return inserted
        }
    }

    /// How many tweets are stored.
    public func count() async throws -> Int {
        if case .sqlite = database.backend {
            return try await database.read("counting tweets") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tweets") ?? 0 }
        }
        return try await single("counting tweets", "SELECT count(*)::bigint FROM tweets") ?? 0
    }

    /// The newest stored tweet id (for `since_id`), or nil when the archive is empty.
    public func newestTweetID() async throws -> Int64? {
        if case .sqlite = database.backend {
            return try await database.read("reading the newest tweet id") { db in try Int64.fetchOne(db, sql: "SELECT max(tweet_id) FROM tweets") }
        }
        return try await query("reading the newest tweet id", "SELECT max(tweet_id) FROM tweets", as: Int64?.self).first ?? nil
    }

    /// How many stored tweets were posted in each minute of the day (index 0 is 00:00), 1,440 entries.
    public func minuteHistogram(includingReplies: Bool = true) async throws -> [Int] {
        let rows: [(Int, Int64)]
        if case .sqlite = database.backend {
            rows = try await database.read("reading the minute histogram") { db in
                try Row.fetchAll(db, sql: """
                    SELECT minute, count(*) FROM tweets WHERE minute IS NOT NULL AND (? OR reply_user_id IS NULL) GROUP BY minute
                    """, arguments: [includingReplies]).map { ($0[0], $0[1]) }
            }
        } else {
            rows = try await query("reading the minute histogram", """
            SELECT minute, count(*)::bigint FROM tweets
            WHERE minute IS NOT NULL AND (\(includingReplies) OR reply_user_id IS NULL)
            GROUP BY minute
            """, as: (Int, Int64).self)
        }
        var histogram = [Int](repeating: 0, count: MinuteWindow.minutesPerDay)
        for (minute, count) in rows where histogram.indices.contains(minute) { histogram[minute] = Int(count) }
        return histogram
    }

    /// How many tweets were posted on each calendar day (human's zone) that has any, oldest day first.
    /// Days without tweets are absent, as in the original.
    public func postsPerDay(includingReplies: Bool = true) async throws -> [DayCount] {
        if case .sqlite = database.backend {
            return try await database.read("counting posts per day") { db in
                try Row.fetchAll(db, sql: """
                    SELECT day, count(*) FROM tweets WHERE day IS NOT NULL AND (? OR reply_user_id IS NULL) GROUP BY day ORDER BY day
                    """, arguments: [includingReplies]).map { DayCount(day: $0[0], count: $0[1]) }
            }
        }
        let zone = zoneName
        return try await query("counting posts per day", """
            SELECT to_char(created_at AT TIME ZONE \(zone), 'YYYY-MM-DD') AS day, count(*)::bigint FROM tweets
            WHERE \(includingReplies) OR reply_user_id IS NULL
            GROUP BY day ORDER BY day
            """, as: (String, Int64).self).map { DayCount(day: $0.0, count: Int($0.1)) }
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
        let window = MinuteWindow(around: minute, radius: radius)
        let firstLow = window.first.lowerBound, firstHigh = window.first.upperBound
        let secondLow = window.second?.lowerBound ?? 1, secondHigh = window.second?.upperBound ?? 0
        let excludedIDs = Array(excluded)
        let postedSince = notPostedSince ?? Date.distantFuture
        if case .sqlite = database.backend {
            // The same rows in the same order as the Postgres query, so a seed picks the same tweet on either;
            // the @-mention test runs here (SQLite has no regular expressions).
            let candidates = try await database.read("sampling a tweet near minute \(minute)") { db in
                try Row.fetchAll(db, sql: """
                    SELECT tweet_id, text, reply_user_id, created_at FROM tweets WHERE reply_user_id IS NULL
                      AND (minute BETWEEN ? AND ? OR minute BETWEEN ? AND ?)
                      AND tweet_id NOT IN (SELECT value FROM json_each(?))
                      AND (? OR has_link IS NOT 1)
                      AND NOT EXISTS (SELECT 1 FROM bot_posts WHERE source_tweet_id = tweets.tweet_id AND posted_at >= ?)
                    ORDER BY tweet_id
                    """, arguments: [firstLow, firstHigh, secondLow, secondHigh, Self.jsonArray(excludedIDs), allowingLinks, postedSince])
                .map(ArchivedTweet.init(row:))
            }.filter { allowingMentions || !Self.mentionsSomeone($0.text) }
            return candidates.randomElementByOffset(using: &generator)
        }
        return try await randomRow("sampling a tweet near minute \(minute)", using: &generator) { select, tail in
            """
            SELECT \(unescaped: select) FROM tweets WHERE reply_user_id IS NULL
              AND (minute BETWEEN \(firstLow) AND \(firstHigh) OR minute BETWEEN \(secondLow) AND \(secondHigh))
              AND tweet_id <> ALL(\(excludedIDs)::bigint[])
              AND (\(allowingMentions) OR text !~ \(Self.mentionPattern))
              AND (\(allowingLinks) OR has_link IS NOT TRUE)
              AND NOT EXISTS (SELECT 1 FROM bot_posts WHERE source_tweet_id = tweets.tweet_id AND posted_at >= \(postedSince))
              \(unescaped: tail)
            """
        }
    }

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

    /// A past reply of the human to `userID` (to anyone when nil), not in `excluded`, with a link only when
    /// `allowingLinks`; nil when there is none.
    public func randomReply(
        toUser userID: Int64?, excluding excluded: Set<Int64> = [], allowingLinks: Bool = true,
        using generator: inout some RandomNumberGenerator
    ) async throws -> ArchivedTweet? {
        let excludedIDs = Array(excluded)
        let anyUser = userID == nil
        let user = userID ?? 0
        if case .sqlite = database.backend {
            let candidates = try await database.read("sampling a reply to user \(userID.map(String.init) ?? "anyone")") { db in
                try Row.fetchAll(db, sql: """
                    SELECT tweet_id, text, reply_user_id, created_at FROM tweets
                    WHERE reply_user_id IS NOT NULL AND (? OR reply_user_id = ?)
                      AND tweet_id NOT IN (SELECT value FROM json_each(?)) AND (? OR has_link IS NOT 1) ORDER BY tweet_id
                    """, arguments: [anyUser, user, Self.jsonArray(excludedIDs), allowingLinks]).map(ArchivedTweet.init(row:))
            }
            return candidates.randomElementByOffset(using: &generator)
        }
        return try await randomRow("sampling a reply to user \(userID.map(String.init) ?? "anyone")", using: &generator) { select, tail in
            """
            SELECT \(unescaped: select) FROM tweets
            WHERE reply_user_id IS NOT NULL AND (\(anyUser) OR reply_user_id = \(user))
              AND tweet_id <> ALL(\(excludedIDs)::bigint[]) AND (\(allowingLinks) OR has_link IS NOT TRUE) \(unescaped: tail)
            """
        }
    }

    /// Records that the bot posted a copy of `sourceTweetID` (as `botTweetID`, once known) at `postedAt`.
    public func recordBotPost(sourceTweetID: Int64, botTweetID: Int64?, postedAt: Date) async throws {
        if case .sqlite = database.backend {
            return try await database.write("recording a post of tweet \(sourceTweetID)") { db in
                try db.execute(sql: "INSERT INTO bot_posts (source_tweet_id, bot_tweet_id, posted_at) VALUES (?, ?, ?)",
                               arguments: [sourceTweetID, botTweetID, postedAt])
            }
        }
        try await transaction("recording a post of tweet \(sourceTweetID)") { connection in
            try await connection.query("""
                INSERT INTO bot_posts (source_tweet_id, bot_tweet_id, posted_at) VALUES (\(sourceTweetID), \(botTweetID), \(postedAt))
                """, logger: logger)
        }
    }

    /// The stored tweets, newest first, at most `limit`.
    public func newest(limit: Int) async throws -> [ArchivedTweet] {
        if case .sqlite = database.backend {
            return try await database.read("reading tweets") { db in
                try Row.fetchAll(db, sql: """
                    SELECT tweet_id, text, reply_user_id, created_at FROM tweets ORDER BY created_at DESC, tweet_id DESC LIMIT ?
                    """, arguments: [limit]).map(ArchivedTweet.init(row:))
            }
        }
        return try await query("reading tweets", """
            SELECT tweet_id, text, reply_user_id, created_at FROM tweets
            ORDER BY created_at DESC, tweet_id DESC LIMIT \(limit)
            """, as: (Int64, String, Int64?, Date).self).map(ArchivedTweet.init(row:))
    }

    /// Deletes every stored tweet (`mirror_bot train clear`).
    public func removeAll() async throws {
        if case .sqlite = database.backend {
            return try await database.write("clearing the archive") { db in try db.execute(sql: "DELETE FROM tweets") }
        }
        try await transaction("clearing the archive") { connection in
            try await connection.query("DELETE FROM tweets", logger: logger)
        }
    }

    // MARK: - Helpers

    /// Counts the rows a query selects, then reads the one at a random offset in `tweet_id` order: the random
    /// choice stays in Swift so a seeded generator makes it repeatable. `makeQuery(selectList, tail)` builds the
    /// query from its select list and the text that ends it.
    private func randomRow(
        _ operation: String, using generator: inout some RandomNumberGenerator,
        _ makeQuery: (_ selectList: String, _ tail: String) -> PostgresQuery
    ) async throws -> ArchivedTweet? {
        let count: Int = try await single(operation, makeQuery("count(*)::bigint", "")) ?? 0
        guard count > 0 else { return nil }
        let offset = Int.random(in: 0..<count, using: &generator)
        let rowQuery = makeQuery("tweet_id, text, reply_user_id, created_at", "ORDER BY tweet_id LIMIT 1 OFFSET \(offset)")
        return try await query(operation, rowQuery, as: (Int64, String, Int64?, Date).self)
            .first.map(ArchivedTweet.init(row:))
    }

    private func single(_ operation: String, _ sql: PostgresQuery) async throws -> Int? {
        try await query(operation, sql, as: Int64.self).first.map(Int.init)
    }

    private func query<each Column: PostgresDecodable & Sendable>(
        _ operation: String, _ sql: PostgresQuery, as types: (repeat each Column).Type
    ) async throws -> [(repeat each Column)] {
        try await database.rows(operation, sql, as: (repeat each Column).self)
    }

    private func transaction<Result: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await database.transaction(operation, body)
    }
}

extension ArchivedTweet {
    init(row: (Int64, String, Int64?, Date)) {
        self.init(tweetID: row.0, text: row.1, replyUserID: row.2, createdAt: row.3)
    }

    /// A tweet from an SQLite row of `tweet_id, text, reply_user_id, created_at`.
    init(row: Row) {
        self.init(tweetID: row[0], text: row[1], replyUserID: row[2], createdAt: row[3])
    }
}

extension Array {
    /// The element at a uniformly random offset, drawn as the Postgres path draws it (one `Int.random` call over
    /// the count), so that a seeded generator picks the same row on either backend; nil when empty.
    func randomElementByOffset(using generator: inout some RandomNumberGenerator) -> Element? {
        isEmpty ? nil : self[Int.random(in: 0..<count, using: &generator)]
    }
}
