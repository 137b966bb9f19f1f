public import Foundation
import GRDB
import PostgresNIO

/// One thing the bot did or decided not to do, with its reason: a slot posted or skipped, a mention answered or not,
/// a like. Read from the stores that record each (`plan_slots`, `mention_replies`, `bot_likes`).
public struct BotAction: Sendable, Equatable {
    /// What kind of action.
    public enum Kind: String, Sendable, CaseIterable {
        /// A slot's post was sent.
        case posted
        /// A slot was not posted (missed, refused, deleted, interrupted, shed for the budget, ...).
        case skipped
        /// A mention was answered.
        case replied
        /// A mention was not answered (a stranger, a limit, a bot loop, ...).
        case notReplied = "not_replied"
        /// A post was liked.
        case liked
    }

    /// What it was.
    public var kind: Kind
    /// When, on the bot's clock.
    public var at: Date
    /// Its stable key: `slot:2026-11-22:0480`, `mention:<id>`, `like:<id>`.
    public var key: String
    /// The post it made or liked (the bot's post; the liked post), if any.
    public var postID: String?
    /// What it acted on: the human's tweet a slot copied, the mention answered or not.
    public var sourceID: String?
    /// Why, as logged.
    public var reason: String?

    /// Whether `sourceID` is one of the person's posts (a slot's original) rather than one the bot's account saw (a mention).
    public var copiedThePerson: Bool { kind == .posted || kind == .skipped }

    /// An action from its parts.
    public init(kind: Kind, at: Date, key: String, postID: String?, sourceID: String?, reason: String?) {
        self.kind = kind; self.at = at; self.key = key; self.postID = postID; self.sourceID = sourceID; self.reason = reason
    }
}

/// The bot's actions, newest first, read a page at a time from a position (`at`, `key`), in either direction.
public struct ActionLog: Sendable {
    /// A place in the list: an action's time and key (the key breaks ties).
    public struct Position: Sendable, Equatable {
        /// The action's time.
        public var at: Date
        /// The action's key.
        public var key: String

        /// A position from its parts.
        public init(at: Date, key: String) { self.at = at; self.key = key }
    }

    /// The database.
    public let database: ArchiveDatabase

    /// The log in `database`.
    public init(database: ArchiveDatabase) { self.database = database }

    /// Up to `limit` actions, newest first: the newest of all, those older than `before`, or those newer than `after`.
    public func page(before: Position? = nil, after: Position? = nil, limit: Int) async throws -> [BotAction] {
        let newerFirst = after == nil
        let bound = after ?? before
        let rows: [(String, Date, String, String?, String?, String?)]
        switch database.backend {
        case .postgres:
            let union = """
                SELECT CASE s.state WHEN 'posted' THEN 'posted' ELSE 'skipped' END AS kind, COALESCE(s.posted_at, s.updated_at) AS at,
                       'slot:' || to_char(s.day, 'YYYY-MM-DD') || ':' || lpad(s.minute::text, 4, '0') AS key,
                       s.bot_tweet_id::text AS post_id, s.source_tweet_id::text AS source_id, s.reason
                FROM plan_slots s WHERE s.state IN ('posted', 'skipped')
                UNION ALL
                SELECT CASE m.state WHEN 'replied' THEN 'replied' ELSE 'not_replied' END, m.handled_at, 'mention:' || m.mention_tweet_id::text,
                       m.reply_tweet_id::text, m.mention_tweet_id::text, m.reason
                FROM mention_replies m WHERE m.state IN ('replied', 'skipped')
                UNION ALL
                SELECT 'liked', l.liked_at, 'like:' || l.tweet_id::text, l.tweet_id::text, NULL, l.reason FROM bot_likes l
                """
            let order = newerFirst ? "DESC" : "ASC"
            var query = PostgresQuery(unsafeSQL: "SELECT kind, at, key, post_id, source_id, reason FROM (\(union)) a "
                + (bound == nil ? "" : "WHERE (at, key) \(newerFirst ? "<" : ">") ($1, $2) ")
                + "ORDER BY at \(order), key \(order) LIMIT \(max(0, limit))")
            if let bound {
                query.binds.append(bound.at)
                query.binds.append(bound.key)
            }
            rows = try await database.rows("reading the bot's actions", query, as: (String, Date, String, String?, String?, String?).self)
        case .sqlite:
            let union = """
                SELECT CASE s.state WHEN 'posted' THEN 'posted' ELSE 'skipped' END AS kind, COALESCE(s.posted_at, s.updated_at) AS at,
                       'slot:' || s.day || ':' || substr('000' || s.minute, -4) AS key,
                       CAST(s.bot_tweet_id AS TEXT) AS post_id, CAST(s.source_tweet_id AS TEXT) AS source_id, s.reason
                FROM plan_slots s WHERE s.state IN ('posted', 'skipped')
                UNION ALL
                SELECT CASE m.state WHEN 'replied' THEN 'replied' ELSE 'not_replied' END, m.handled_at, 'mention:' || m.mention_tweet_id,
                       CAST(m.reply_tweet_id AS TEXT), CAST(m.mention_tweet_id AS TEXT), m.reason
                FROM mention_replies m WHERE m.state IN ('replied', 'skipped')
                UNION ALL
                SELECT 'liked', l.liked_at, 'like:' || l.tweet_id, CAST(l.tweet_id AS TEXT), NULL, l.reason FROM bot_likes l
                """
            let order = newerFirst ? "DESC" : "ASC"
            let sql = "SELECT kind, at, key, post_id, source_id, reason FROM (\(union)) "
                + (bound == nil ? "" : "WHERE (at, key) \(newerFirst ? "<" : ">") (?, ?) ")
                + "ORDER BY at \(order), key \(order) LIMIT ?"
            let arguments: StatementArguments = bound.map { [$0.at, $0.key, max(0, limit)] } ?? [max(0, limit)]
            rows = try await database.read("reading the bot's actions") { db in
                try Row.fetchAll(db, sql: sql, arguments: arguments).map { ($0[0], $0[1], $0[2], $0[3], $0[4], $0[5]) }
            }
        }
        let actions = rows.compactMap { kind, at, key, post, source, reason in
            BotAction.Kind(rawValue: kind).map { BotAction(kind: $0, at: at, key: key, postID: post, sourceID: source, reason: reason) }
        }
        return newerFirst ? actions : actions.reversed()
    }
}
