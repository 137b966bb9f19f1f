import Foundation
import PostgresNIO
import Stores

/// The bot's actions read from Postgres: the slots posted and skipped, the mentions answered and not, the likes.
struct PostgresActionLog: ActionLog {
    let database: PostgresStoreSet

    private static let union = """
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

    func actions(before: ActionPosition?, after: ActionPosition?, limit: Int) async throws -> [BotAction] {
        let newerFirst = after == nil
        let bound = after ?? before
        let order = newerFirst ? "DESC" : "ASC"
        var query = PostgresQuery(
            unsafeSQL: "SELECT kind, at, key, post_id, source_id, reason FROM (\(Self.union)) a "
                + (bound == nil ? "" : "WHERE (at, key) \(newerFirst ? "<" : ">") ($1, $2) ")
                + "ORDER BY at \(order), key \(order) LIMIT \(max(0, limit))")
        if let bound {
            query.binds.append(bound.at)
            query.binds.append(bound.key)
        }
        let actions = try await database.rows("reading the bot's actions", query, as: (String, Date, String, String?, String?, String?).self)
            .compactMap { kind, at, key, post, source, reason in
                BotAction.Kind(rawValue: kind).map { BotAction(kind: $0, at: at, key: key, postID: post, sourceID: source, reason: reason) }
            }
        return newerFirst ? actions : actions.reversed()
    }
}
