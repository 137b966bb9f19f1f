import BotCore
import Foundation
import Logging
import PostText
import PostgresNIO
import Stores

/// The person's posts in Postgres: minutes and days computed with `AT TIME ZONE`, arrays bound whole (`unnest`,
/// `= ANY`), the @-mention filter as a POSIX regular expression. Random picks read the rows in id order (`PostID`'s: `length(tweet_id), tweet_id` bytewise) and draw
/// with one `Int.random` over their count, as every archive does, so a seed picks the same post on any database.
struct PostgresPostArchive: PostArchive {
    let database: PostgresStoreSet
    let timeZone: TimeZone
    let rowLimit: Int
    private var logger: Logger { database.logger }

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
        try await postsPerDay(includingReplies: includingReplies, in: timeZone)
    }

    private func recomputeMinutes(in zone: TimeZone) async throws {
        let zone = zone.identifier
        let logger = logger
        try await database.transaction("recomputing minutes of the day for \(zone)") { connection in
            let rows = try await connection.query(
                "SELECT value FROM archive_settings WHERE name = 'minute_time_zone' FOR UPDATE", logger: logger)
            for try await stored in rows.decode(String.self) where stored == zone { return }
            try await connection.query(
                """
                UPDATE tweets SET minute = (extract(hour FROM created_at AT TIME ZONE \(zone)) * 60
                                          + extract(minute FROM created_at AT TIME ZONE \(zone)))::integer
                """, logger: logger)
            try await connection.query(
                """
                INSERT INTO archive_settings (name, value) VALUES ('minute_time_zone', \(zone))
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """, logger: logger)
        }
    }

    private func postsWithoutLinkMark() async throws -> [(id: Int64, text: String)] {
        try await database.rows(
            "reading posts without a link mark", "SELECT id, text FROM tweets WHERE has_link IS NULL",
            as: (Int64, String).self
        ).map { (id: $0.0, text: $0.1) }
    }

    private func markLinks(_ marks: [(id: Int64, hasLink: Bool)]) async throws {
        let ids = marks.map(\.id)
        let links = marks.map(\.hasLink)
        let logger = logger
        _ = try await database.transaction("marking posts with links") { connection in
            try await connection.query(
                """
                UPDATE tweets SET has_link = m.has_link FROM unnest(\(ids)::bigint[], \(links)::boolean[]) AS m(id, has_link)
                WHERE tweets.id = m.id
                """, logger: logger)
        }
    }

    private func insert(_ posts: [ArchivedPost], in zone: TimeZone, keeping rowLimit: Int) async throws -> Int {
        let ids = posts.map(\.postID)
        let texts = posts.map(\.text)
        let dates = posts.map(\.createdAt)
        let replyUserIDs = posts.map { $0.replyUserID?.text ?? "" }  // "" stands for "not a reply": no account has an empty id.
        let links = posts.map { PostLinks.containsLink($0.text) }
        let warnings = posts.map { $0.contentWarning ?? "" }  // "" stands for "no warning"
        let zone = zone.identifier
        let logger = logger
        return try await database.transaction("inserting \(posts.count) posts") { connection in
            let rows = try await connection.query(
                """
                WITH inserted AS (
                    INSERT INTO tweets (tweet_id, text, reply_user_id, created_at, minute, has_link, content_warning)
                    SELECT t.tweet_id, t.text, NULLIF(t.reply_user_id, ''), t.created_at,
                           (extract(hour FROM t.created_at AT TIME ZONE \(zone)) * 60
                            + extract(minute FROM t.created_at AT TIME ZONE \(zone)))::integer, t.has_link, NULLIF(t.content_warning, '')
                    FROM unnest(\(ids)::text[], \(texts)::text[], \(replyUserIDs)::text[], \(dates)::timestamptz[], \(links)::boolean[],
                                \(warnings)::text[])
                         AS t(tweet_id, text, reply_user_id, created_at, has_link, content_warning)
                    ON CONFLICT (tweet_id) DO NOTHING
                    RETURNING 1
                )
                SELECT count(*)::bigint FROM inserted
                """, logger: logger)
            var inserted = 0
            for try await count in rows.decode(Int64.self) { inserted = Int(count) }
            if inserted > 0 {
                try await connection.query(
                    """
                    DELETE FROM tweets WHERE id IN (
                        SELECT id FROM tweets ORDER BY created_at DESC, length(tweet_id) DESC, tweet_id COLLATE "C" DESC OFFSET \(rowLimit)
                    )
                    """, logger: logger)
            }
            return inserted
        }
    }

    func count() async throws -> Int {
        try await single("counting posts", "SELECT count(*)::bigint FROM tweets") ?? 0
    }

    func containsText(_ text: String) async throws -> Bool {
        try await single("looking a text up in the archive", "SELECT count(*)::bigint FROM tweets WHERE text = \(text)") ?? 0 > 0
    }

    func newestPostID() async throws -> PostID? {
        try await database.rows(
            "reading the newest post id", "SELECT tweet_id FROM tweets ORDER BY length(tweet_id) DESC, tweet_id COLLATE \"C\" DESC LIMIT 1",
            as: PostID.self
        ).first
    }

    private func countsPerMinute(includingReplies: Bool) async throws -> [(minute: Int, count: Int)] {
        try await database.rows(
            "reading the minute histogram",
            """
            SELECT minute, count(*)::bigint FROM tweets
            WHERE minute IS NOT NULL AND (\(includingReplies) OR reply_user_id IS NULL)
            GROUP BY minute
            """, as: (Int, Int64).self
        ).map { (minute: $0.0, count: Int($0.1)) }
    }

    private func postsPerDay(includingReplies: Bool, in zone: TimeZone) async throws -> [DayCount] {
        let zone = zone.identifier
        return try await database.rows(
            "counting posts per day",
            """
            SELECT to_char(created_at AT TIME ZONE \(zone), 'YYYY-MM-DD') AS day, count(*)::bigint FROM tweets
            WHERE \(includingReplies) OR reply_user_id IS NULL
            GROUP BY day ORDER BY day
            """, as: (String, Int64).self
        ).map { DayCount(day: $0.0, count: Int($0.1)) }
    }

    func randomPost(_ sample: PostSample, using generator: inout some RandomNumberGenerator) async throws -> ArchivedPost? {
        try await randomRow("sampling a post near minute \(sample.minute)", using: &generator) { select, tail in
            Self.sampleQuery(sample, select, tail)
        }
    }

    func randomPosts(_ sample: PostSample, count: Int, using generator: inout some RandomNumberGenerator) async throws -> [ArchivedPost] {
        let operation = "sampling \(count) posts near minute \(sample.minute)"
        let ids = try await database.rows(operation, Self.sampleQuery(sample, "tweet_id", "ORDER BY \(Self.idOrder)"), as: PostID.self)
        let chosen = ids.randomSample(count: count, using: &generator)
        guard !chosen.isEmpty else { return [] }
        let rows = try await database.rows(
            operation,
            """
            SELECT tweet_id, text, reply_user_id, created_at, content_warning FROM tweets WHERE tweet_id = ANY(\(chosen)::text[])
            """, as: (PostID, String, AccountID?, Date, String?).self
        ).map(ArchivedPost.init(row:))
        let byID = Dictionary(rows.map { ($0.postID, $0) }) { first, _ in first }
        return chosen.compactMap { byID[$0] }
    }

    /// The posts `sample` allows, selecting `select` and ending with `tail`.
    private static func sampleQuery(_ sample: PostSample, _ select: String, _ tail: String) -> PostgresQuery {
        let firstLow = sample.window.first.lowerBound
        let firstHigh = sample.window.first.upperBound
        let secondLow = sample.window.second?.lowerBound ?? 1
        let secondHigh = sample.window.second?.upperBound ?? 0
        return """
            SELECT \(unescaped: select) FROM tweets WHERE reply_user_id IS NULL
              AND (minute BETWEEN \(firstLow) AND \(firstHigh) OR minute BETWEEN \(secondLow) AND \(secondHigh))
              AND tweet_id <> ALL(\(sample.excluded)::text[])
              AND NOT EXISTS (SELECT 1 FROM tweets AS excluded WHERE excluded.tweet_id = ANY(\(sample.excluded)::text[])
                                AND excluded.text = tweets.text)
              AND (\(sample.allowingMentions) OR text !~ \(ArchiveRules.mentionPattern))
              AND (\(sample.allowingLinks) OR has_link IS NOT TRUE)
              AND NOT EXISTS (SELECT 1 FROM bot_posts LEFT JOIN tweets AS posted ON posted.tweet_id = bot_posts.source_tweet_id
                              WHERE bot_posts.posted_at >= \(sample.postedSince)
                                AND (bot_posts.source_tweet_id = tweets.tweet_id OR posted.text = tweets.text))
              \(unescaped: tail)
            """
    }

    func randomReply(_ sample: ReplySample, using generator: inout some RandomNumberGenerator) async throws -> ArchivedPost? {
        let anyUser = sample.userID == nil
        let users = sample.userIDs
        return try await randomRow("sampling a reply to \(sample.whom)", using: &generator) { select, tail in
            """
            SELECT \(unescaped: select) FROM tweets
            WHERE reply_user_id IS NOT NULL AND (\(anyUser) OR reply_user_id = ANY(\(users)::text[]))
              AND tweet_id <> ALL(\(sample.excluded)::text[]) AND (\(sample.allowingLinks) OR has_link IS NOT TRUE) \(unescaped: tail)
            """
        }
    }

    func recordBotPost(sourcePostID: PostID, botPostID: PostID?, postedAt: Date) async throws {
        let logger = logger
        _ = try await database.transaction("recording a post of post \(sourcePostID)") { connection in
            try await connection.query(
                """
                INSERT INTO bot_posts (source_tweet_id, bot_tweet_id, posted_at) VALUES (\(sourcePostID), \(botPostID), \(postedAt))
                """, logger: logger)
        }
    }

    func newest(limit: Int) async throws -> [ArchivedPost] {
        try await database.rows(
            "reading posts",
            """
            SELECT tweet_id, text, reply_user_id, created_at, content_warning FROM tweets
            ORDER BY created_at DESC, length(tweet_id) DESC, tweet_id COLLATE "C" DESC LIMIT \(limit)
            """, as: (PostID, String, AccountID?, Date, String?).self
        ).map(ArchivedPost.init(row:))
    }

    func posts(withIDs ids: [PostID]) async throws -> [ArchivedPost] {
        guard !ids.isEmpty else { return [] }
        let texts = ids.prefix(100).map(\.text)
        return try await database.rows(
            "reading posts by id",
            "SELECT tweet_id, text, reply_user_id, created_at, content_warning FROM tweets WHERE tweet_id = ANY(\(texts))",
            as: (PostID, String, AccountID?, Date, String?).self
        ).map(ArchivedPost.init(row:))
    }

    func remove(postID: PostID) async throws -> Bool {
        try await !database.rows("removing post \(postID)", "DELETE FROM tweets WHERE tweet_id = \(postID) RETURNING 1", as: Int.self).isEmpty
    }

    func botCopies(of sourcePostID: PostID) async throws -> [PostID] {
        var query = PostgresQuery(unsafeSQL: Self.botCopiesSQL)
        query.binds.append(sourcePostID)
        return try await database.rows("reading the bot's copies of post \(sourcePostID)", query, as: PostID.self)
    }

    func copiedOriginals(since date: Date) async throws -> [PostID] {
        var query = PostgresQuery(unsafeSQL: Self.copiedOriginalsSQL)
        query.binds.append(date)
        return try await database.rows("reading the posts the bot copied", query, as: PostID.self)
    }

    func removeAll() async throws {
        let logger = logger
        _ = try await database.transaction("clearing the archive") { connection in
            try await connection.query("DELETE FROM tweets", logger: logger)
        }
    }

    /// Counts the rows a query selects, then reads the one at a random offset in id order: the random
    /// choice stays in Swift so a seeded generator makes it repeatable. `makeQuery(selectList, tail)` builds the
    /// query from its select list and the text that ends it.
    private func randomRow(
        _ operation: String, using generator: inout some RandomNumberGenerator,
        _ makeQuery: (_ selectList: String, _ tail: String) -> PostgresQuery
    ) async throws -> ArchivedPost? {
        let count: Int = try await single(operation, makeQuery("count(*)::bigint", "")) ?? 0
        guard count > 0 else { return nil }
        let offset = Int.random(in: 0..<count, using: &generator)
        let rowQuery = makeQuery("tweet_id, text, reply_user_id, created_at, content_warning", "ORDER BY \(Self.idOrder) LIMIT 1 OFFSET \(offset)")
        return try await database.rows(operation, rowQuery, as: (PostID, String, AccountID?, Date, String?).self).first.map(ArchivedPost.init(row:))
    }

    private func single(_ operation: String, _ sql: PostgresQuery) async throws -> Int? {
        try await database.rows(operation, sql, as: Int64.self).first.map(Int.init)
    }
}

extension ArchivedPost {
    /// A post from a Postgres row of `tweet_id, text, reply_user_id, created_at, content_warning`.
    init(row: (PostID, String, AccountID?, Date, String?)) {
        self.init(postID: row.0, text: row.1, replyUserID: row.2, createdAt: row.3, contentWarning: row.4)
    }
}

extension PostgresPostArchive {
    /// The order of `PostID`: shorter ids first, then bytewise (numeric order for decimal ids).
    static let idOrder = "length(tweet_id), tweet_id COLLATE \"C\""

    /// The archived posts copied since a date (`$1`).
    static let copiedOriginalsSQL = """
        SELECT source_tweet_id FROM (
            SELECT source_tweet_id FROM bot_posts WHERE bot_tweet_id IS NOT NULL AND posted_at >= $1
            UNION SELECT source_tweet_id FROM mention_replies
            WHERE reply_tweet_id IS NOT NULL AND source_tweet_id IS NOT NULL AND handled_at >= $1
        ) AS copies WHERE source_tweet_id IN (SELECT tweet_id FROM tweets) ORDER BY length(source_tweet_id), source_tweet_id COLLATE "C"
        """

    /// The bot's posts made of one post (`$1`).
    static let botCopiesSQL = """
        SELECT bot_tweet_id FROM (
            SELECT bot_tweet_id FROM plan_slots WHERE source_tweet_id = $1 AND bot_tweet_id IS NOT NULL
            UNION SELECT bot_tweet_id FROM bot_posts WHERE source_tweet_id = $1 AND bot_tweet_id IS NOT NULL
            UNION SELECT reply_tweet_id FROM mention_replies WHERE source_tweet_id = $1 AND reply_tweet_id IS NOT NULL
        ) AS copies ORDER BY length(bot_tweet_id), bot_tweet_id COLLATE "C"
        """
}
