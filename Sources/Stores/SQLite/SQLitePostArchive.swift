import BotClock
import BotCore
import Foundation
import GRDB
import PostText
import Stores

/// The person's posts in SQLite: minutes and days computed in Swift (`LocalTime`) and stored, arrays passed as JSON
/// (`json_each`), the @-mention filter in Swift (no regular expressions). Random picks read the rows in id
/// order and draw with one `Int.random` over their count, as every archive does.
struct SQLitePostArchive: PostArchive {
    let database: SQLiteStoreSet
    let timeZone: TimeZone
    let rowLimit: Int

    func prepare() async throws {
        let unmarked = try await postsWithoutLinkMark()
        if !unmarked.isEmpty { try await markLinks(unmarked.map { (id: $0.id, hasLink: PostLinks.containsLink($0.text)) }) }
        try await recomputeMinutes(in: timeZone)
    }

    func insert(_ posts: [ArchivedPost]) async throws -> Int {
        guard !posts.isEmpty else { return 0 }
        return try await insert(ArchiveRules.distinct(posts), in: timeZone, keeping: rowLimit)
    }

    func minuteHistogram(includingReplies: Bool) async throws -> [Int] {
        ArchiveRules.histogram(try await countsPerMinute(includingReplies: includingReplies))
    }

    func postsPerDay(includingReplies: Bool) async throws -> [DayCount] {
        try await database.read("counting posts per day") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT day, count(*) FROM tweets WHERE day IS NOT NULL AND (? OR reply_user_id IS NULL) GROUP BY day ORDER BY day
                    """, arguments: [includingReplies]
            ).map { DayCount(day: try $0.decode(atIndex: 0), count: try $0.decode(atIndex: 1)) }
        }
    }

    private func recomputeMinutes(in zone: TimeZone) async throws {
        try await database.write("recomputing minutes of the day for \(zone.identifier)") { db in
            let stored = try String.fetchOne(db, sql: "SELECT value FROM archive_settings WHERE name = 'minute_time_zone'")
            guard stored != zone.identifier else { return }
            let update = try db.cachedStatement(sql: "UPDATE tweets SET minute = ?, day = ? WHERE id = ?")
            // A row whose created_at is no date keeps no minute (so it is never drawn), and is reported.
            let rows = try Row.fetchAll(db, sql: "SELECT id, created_at FROM tweets")
            let times = database.decodedRows(rows, of: "the archive (a post's time)") { row in
                (id: try row.decode(Int64.self, forColumn: "id"), createdAt: try row.decode(Date.self, forColumn: "created_at"))
            }
            try db.execute(sql: "UPDATE tweets SET minute = NULL, day = NULL")
            for time in times {
                let local = LocalTime(of: time.createdAt, in: zone)
                try update.execute(arguments: [local.minute, local.day, time.id])
            }
            try db.execute(
                sql: """
                    INSERT INTO archive_settings (name, value) VALUES ('minute_time_zone', ?)
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value
                    """, arguments: [zone.identifier])
        }
    }

    private func postsWithoutLinkMark() async throws -> [(id: Int64, text: String)] {
        try await database.read("reading posts without a link mark") { db in
            database.decodedRows(try Row.fetchAll(db, sql: "SELECT id, text FROM tweets WHERE has_link IS NULL"), of: "the archive (a post's text)") {
                (id: try $0.decode(Int64.self, atIndex: 0), text: try $0.decode(String.self, atIndex: 1))
            }
        }
    }

    private func markLinks(_ marks: [(id: Int64, hasLink: Bool)]) async throws {
        try await database.write("marking posts with links") { db in
            let update = try db.cachedStatement(sql: "UPDATE tweets SET has_link = ? WHERE id = ?")
            for mark in marks { try update.execute(arguments: [mark.hasLink, mark.id]) }
        }
    }

    private func insert(_ posts: [ArchivedPost], in zone: TimeZone, keeping rowLimit: Int) async throws -> Int {
        try await database.write("inserting \(posts.count) posts") { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO tweets (tweet_id, text, reply_user_id, created_at, minute, day, has_link, content_warning) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (tweet_id) DO NOTHING
                    """)
            var inserted = 0
            for post in posts {
                let local = LocalTime(of: post.createdAt, in: zone)
                try insert.execute(arguments: [
                    post.postID, post.text, post.replyUserID, post.createdAt,
                    local.minute, local.day, PostLinks.containsLink(post.text), post.contentWarning,
                ])
                inserted += db.changesCount
            }
            if inserted > 0 {
                try db.execute(
                    sql: """
                        DELETE FROM tweets WHERE id IN (
                            SELECT id FROM tweets ORDER BY created_at DESC, length(tweet_id) DESC, tweet_id DESC LIMIT -1 OFFSET ?
                        )
                        """, arguments: [rowLimit])
            }
            return inserted
        }
    }

    func count() async throws -> Int {
        try await database.read("counting posts") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tweets") ?? 0 }
    }

    func containsText(_ text: String) async throws -> Bool {
        try await database.read("looking a text up in the archive") { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tweets WHERE text = ?)", arguments: [text]) ?? false
        }
    }

    func newestPostID() async throws -> PostID? {
        try await database.read("reading the newest post id") { db in
            try PostID.fetchOne(db, sql: "SELECT tweet_id FROM tweets ORDER BY length(tweet_id) DESC, tweet_id DESC LIMIT 1")
        }
    }

    private func countsPerMinute(includingReplies: Bool) async throws -> [(minute: Int, count: Int)] {
        try await database.read("reading the minute histogram") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT minute, count(*) FROM tweets WHERE minute IS NOT NULL AND (? OR reply_user_id IS NULL) GROUP BY minute
                    """, arguments: [includingReplies]
            ).map { (minute: try $0.decode(atIndex: 0), count: try $0.decode(atIndex: 1)) }
        }
    }

    func randomPost(_ sample: PostSample, using generator: inout some RandomNumberGenerator) async throws -> ArchivedPost? {
        try await candidates(sample).randomElementByOffset(using: &generator)
    }

    func randomPosts(_ sample: PostSample, count: Int, using generator: inout some RandomNumberGenerator) async throws -> [ArchivedPost] {
        try await candidates(sample).randomSample(count: count, using: &generator)
    }

    /// The posts `sample` allows, in id order (`PostID`'s).
    private func candidates(_ sample: PostSample) async throws -> [ArchivedPost] {
        let firstLow = sample.window.first.lowerBound
        let firstHigh = sample.window.first.upperBound
        let secondLow = sample.window.second?.lowerBound ?? 1
        let secondHigh = sample.window.second?.upperBound ?? 0
        // The same rows in the same order as the Postgres query, so a seed picks the same post on either; the
        // @-mention test runs here (SQLite has no regular expressions).
        let candidates = try await database.read("sampling a post near minute \(sample.minute)") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT tweet_id, text, reply_user_id, created_at, content_warning FROM tweets WHERE reply_user_id IS NULL
                      AND (minute BETWEEN ? AND ? OR minute BETWEEN ? AND ?)
                      AND tweet_id NOT IN (SELECT value FROM json_each(?))
                      AND NOT EXISTS (SELECT 1 FROM tweets AS excluded WHERE excluded.tweet_id IN (SELECT value FROM json_each(?))
                                        AND excluded.text = tweets.text)
                      AND (? OR has_link IS NOT 1)
                      AND NOT EXISTS (SELECT 1 FROM bot_posts LEFT JOIN tweets AS posted ON posted.tweet_id = bot_posts.source_tweet_id
                                      WHERE bot_posts.posted_at >= ?
                                        AND (bot_posts.source_tweet_id = tweets.tweet_id OR posted.text = tweets.text))
                    ORDER BY length(tweet_id), tweet_id
                    """,
                arguments: [
                    firstLow, firstHigh, secondLow, secondHigh, ArchiveRules.jsonArray(sample.excluded),
                    ArchiveRules.jsonArray(sample.excluded), sample.allowingLinks, sample.postedSince,
                ])
            return database.decodedRows(rows, of: "the archive (posts to copy)", ArchivedPost.init(row:))
        }.filter { sample.allowingMentions || !ArchiveRules.mentionsSomeone($0.text) }
        return candidates
    }

    func randomReply(_ sample: ReplySample, using generator: inout some RandomNumberGenerator) async throws -> ArchivedPost? {
        let anyUser = sample.userID == nil
        let users = ArchiveRules.jsonArray(sample.userIDs)
        let candidates = try await database.read("sampling a reply to \(sample.whom)") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT tweet_id, text, reply_user_id, created_at, content_warning FROM tweets
                    WHERE reply_user_id IS NOT NULL AND (? OR reply_user_id IN (SELECT value FROM json_each(?)))
                      AND tweet_id NOT IN (SELECT value FROM json_each(?)) AND (? OR has_link IS NOT 1) ORDER BY length(tweet_id), tweet_id
                    """, arguments: [anyUser, users, ArchiveRules.jsonArray(sample.excluded), sample.allowingLinks])
            return database.decodedRows(rows, of: "the archive (replies)", ArchivedPost.init(row:))
        }
        return candidates.randomElementByOffset(using: &generator)
    }

    func recordBotPost(sourcePostID: PostID, botPostID: PostID?, postedAt: Date) async throws {
        try await database.write("recording a post of post \(sourcePostID)") { db in
            try db.execute(
                sql: "INSERT INTO bot_posts (source_tweet_id, bot_tweet_id, posted_at) VALUES (?, ?, ?)",
                arguments: [sourcePostID, botPostID, postedAt])
        }
    }

    func newest(limit: Int) async throws -> [ArchivedPost] {
        try await database.read("reading posts") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT tweet_id, text, reply_user_id, created_at, content_warning FROM tweets ORDER BY created_at DESC, length(tweet_id) DESC, tweet_id DESC LIMIT ?
                    """, arguments: [limit])
            return database.decodedRows(rows, of: "the archive (newest posts)", ArchivedPost.init(row:))
        }
    }

    func posts(withIDs ids: [PostID]) async throws -> [ArchivedPost] {
        let chosen = Array(ids.prefix(100))
        guard !chosen.isEmpty else { return [] }
        return try await database.read("reading posts by id") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT tweet_id, text, reply_user_id, created_at, content_warning FROM tweets
                    WHERE tweet_id IN (\(Array(repeating: "?", count: chosen.count).joined(separator: ", ")))
                    """, arguments: StatementArguments(chosen))
            return database.decodedRows(rows, of: "the archive (posts by id)", ArchivedPost.init(row:))
        }
    }

    func remove(postID: PostID) async throws -> Bool {
        try await database.write("removing post \(postID)") { db in
            try db.execute(sql: "DELETE FROM tweets WHERE tweet_id = ?", arguments: [postID])
            return db.changesCount > 0
        }
    }

    func botCopies(of sourcePostID: PostID) async throws -> [PostID] {
        try await database.read("reading the bot's copies of post \(sourcePostID)") { db in
            try PostID.fetchAll(db, sql: Self.botCopiesSQL, arguments: [sourcePostID, sourcePostID, sourcePostID])
        }
    }

    func copiedOriginals(since date: Date) async throws -> [PostID] {
        try await database.read("reading the posts the bot copied") { db in
            try PostID.fetchAll(db, sql: Self.copiedOriginalsSQL, arguments: [date, date])
        }
    }

    func removeAll() async throws {
        try await database.write("clearing the archive") { db in try db.execute(sql: "DELETE FROM tweets") }
    }
}

extension ArchivedPost {
    /// A post from an SQLite row of `tweet_id, text, reply_user_id, created_at, content_warning`.
    init(row: Row) throws {
        self.init(
            postID: try row.decode(atIndex: 0), text: try row.decode(atIndex: 1), replyUserID: try row.decode(atIndex: 2),
            createdAt: try row.decode(atIndex: 3), contentWarning: try row.decode(atIndex: 4))
    }
}

extension SQLitePostArchive {
    /// The archived posts copied since a date (twice the date).
    static let copiedOriginalsSQL = """
        SELECT source_tweet_id FROM (
            SELECT source_tweet_id FROM bot_posts WHERE bot_tweet_id IS NOT NULL AND posted_at >= ?
            UNION SELECT source_tweet_id FROM mention_replies
            WHERE reply_tweet_id IS NOT NULL AND source_tweet_id IS NOT NULL AND handled_at >= ?
        ) AS copies WHERE source_tweet_id IN (SELECT tweet_id FROM tweets) ORDER BY length(source_tweet_id), source_tweet_id
        """

    /// The bot's posts made of one post (three times the source id).
    static let botCopiesSQL = """
        SELECT bot_tweet_id FROM (
            SELECT bot_tweet_id FROM plan_slots WHERE source_tweet_id = ? AND bot_tweet_id IS NOT NULL
            UNION SELECT bot_tweet_id FROM bot_posts WHERE source_tweet_id = ? AND bot_tweet_id IS NOT NULL
            UNION SELECT reply_tweet_id FROM mention_replies WHERE source_tweet_id = ? AND reply_tweet_id IS NOT NULL
        ) AS copies ORDER BY length(bot_tweet_id), bot_tweet_id
        """
}
