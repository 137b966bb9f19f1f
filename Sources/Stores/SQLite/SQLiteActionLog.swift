import Foundation
import GRDB
import Stores

/// The bot's actions read from SQLite: the slots posted and skipped, the mentions answered and not, the likes.
struct SQLiteActionLog: ActionLog {
    let database: SQLiteStoreSet

    private static let union = """
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

    func actions(before: ActionPosition?, after: ActionPosition?, limit: Int) async throws -> [BotAction] {
        let newerFirst = after == nil
        let bound = after ?? before
        let order = newerFirst ? "DESC" : "ASC"
        let sql =
            "SELECT kind, at, key, post_id, source_id, reason FROM (\(Self.union)) "
            + (bound == nil ? "" : "WHERE (at, key) \(newerFirst ? "<" : ">") (?, ?) ")
            + "ORDER BY at \(order), key \(order) LIMIT ?"
        let arguments: StatementArguments = bound.map { [$0.at, $0.key, max(0, limit)] } ?? [max(0, limit)]
        let rows = try await database.read("reading the bot's actions") { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map {
                (
                    try $0.decode(atIndex: 0), try $0.decode(atIndex: 1), try $0.decode(atIndex: 2), try $0.decode(atIndex: 3),
                    try $0.decode(atIndex: 4), try $0.decode(atIndex: 5)
                ) as (String, Date, String, String?, String?, String?)
            }
        }
        let actions = rows.compactMap { kind, at, key, post, source, reason in
            BotAction.Kind(rawValue: kind).map { BotAction(kind: $0, at: at, key: key, postID: post, sourceID: source, reason: reason) }
        }
        return newerFirst ? actions : actions.reversed()
    }
}
