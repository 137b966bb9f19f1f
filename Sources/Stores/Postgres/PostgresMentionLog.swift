import BotCore
import Foundation
import PostgresNIO
import Stores

/// The mentions handled, in Postgres.
struct PostgresMentionLog: MentionLog {
    let database: PostgresStoreSet

    func begin(mentionID: PostID, authorID: AccountID, conversationID: PostID?, at date: Date) async throws -> Bool {
        try await !database.rows(
            "recording mention \(mentionID)",
            """
            INSERT INTO mention_replies (mention_tweet_id, author_id, conversation_id, state, handled_at)
            VALUES (\(mentionID), \(authorID), \(conversationID), 'replying', \(date))
            ON CONFLICT (mention_tweet_id) DO UPDATE SET state = 'replying', handled_at = EXCLUDED.handled_at
            WHERE mention_replies.state = 'pending' RETURNING 1
            """, as: Int.self
        ).isEmpty
    }

    func finish(mentionID: PostID, state: MentionState, replyPostID: PostID?, sourcePostID: PostID?, reason: String) async throws {
        _ = try await database.rows(
            "recording the answer to mention \(mentionID)",
            """
            UPDATE mention_replies SET state = \(state.rawValue), reply_tweet_id = \(replyPostID),
                                       source_tweet_id = \(sourcePostID), reason = \(reason)
            WHERE mention_tweet_id = \(mentionID) RETURNING 1
            """, as: Int.self)
    }

    func answers(to authorID: AccountID, since date: Date) async throws -> Int {
        try await database.rows(
            "counting answers to \(authorID)",
            """
            SELECT count(*)::bigint FROM mention_replies
            WHERE author_id = \(authorID) AND state <> 'skipped' AND state <> 'pending' AND handled_at >= \(date)
            """, as: Int64.self
        ).first.map(Int.init) ?? 0
    }

    func answerSources(since date: Date) async throws -> Set<PostID> {
        Set(
            try await database.rows(
                "reading the replies answered with since \(date)",
                """
                SELECT source_tweet_id FROM mention_replies
                WHERE source_tweet_id IS NOT NULL AND state <> 'skipped' AND state <> 'pending' AND handled_at >= \(date)
                """, as: PostID.self))
    }

    func answers(inConversation conversationID: PostID) async throws -> Int {
        try await database.rows(
            "counting answers in conversation \(conversationID)",
            """
            SELECT count(*)::bigint FROM mention_replies WHERE conversation_id = \(conversationID) AND state <> 'skipped' AND state <> 'pending'
            """, as: Int64.self
        ).first.map(Int.init) ?? 0
    }

    func outcome(of mentionID: PostID) async throws -> MentionOutcome? {
        try await database.rows(
            "reading mention \(mentionID)",
            """
            SELECT state, reason, reply_tweet_id FROM mention_replies WHERE mention_tweet_id = \(mentionID)
            """, as: (String, String?, PostID?).self
        ).first.map { MentionOutcome(state: MentionState(rawValue: $0.0) ?? .skipped, reason: $0.1, replyPostID: $0.2) }
    }

    func handledCount(state: MentionState) async throws -> Int {
        try await database.rows(
            "counting handled mentions", "SELECT count(*)::bigint FROM mention_replies WHERE state = \(state.rawValue)",
            as: Int64.self
        ).first.map(Int.init) ?? 0
    }

    func handledMentions() async throws -> [HandledMention] {
        try await database.rows(
            "reading the handled mentions",
            """
            SELECT mention_tweet_id, author_id, state, reply_tweet_id, source_tweet_id, reason, handled_at
            FROM mention_replies ORDER BY handled_at, length(mention_tweet_id), mention_tweet_id COLLATE "C"
            """, as: (PostID, AccountID, String, PostID?, PostID?, String?, Date).self
        ).map {
            HandledMention(
                mentionPostID: $0.0, authorID: $0.1, state: MentionState(rawValue: $0.2) ?? .skipped,
                replyPostID: $0.3, sourcePostID: $0.4, reason: $0.5, handledAt: $0.6)
        }
    }

    func interrupted() async throws -> [PostID] {
        try await database.rows(
            "reading interrupted answers",
            "SELECT mention_tweet_id FROM mention_replies WHERE state = 'replying' ORDER BY length(mention_tweet_id), mention_tweet_id COLLATE \"C\"",
            as: PostID.self)
    }
}
