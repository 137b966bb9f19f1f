import BotCore
import Foundation
import GRDB
import Stores

/// The mentions handled, in SQLite.
struct SQLiteMentionLog: MentionLog {
    let database: SQLiteStoreSet

    func begin(mentionID: PostID, authorID: AccountID, conversationID: PostID?, at date: Date) async throws -> Bool {
        try await database.write("recording mention \(mentionID)") { db in
            try db.execute(
                sql: """
                    INSERT INTO mention_replies (mention_tweet_id, author_id, conversation_id, state, handled_at)
                    VALUES (?, ?, ?, 'replying', ?)
                    ON CONFLICT (mention_tweet_id) DO UPDATE SET state = 'replying', handled_at = excluded.handled_at
                    WHERE mention_replies.state = 'pending'
                    """, arguments: [mentionID, authorID, conversationID, date])
            return db.changesCount > 0
        }
    }

    func finish(mentionID: PostID, state: MentionState, replyPostID: PostID?, sourcePostID: PostID?, reason: String) async throws {
        try await database.write("recording the answer to mention \(mentionID)") { db in
            try db.execute(
                sql: """
                    UPDATE mention_replies SET state = ?, reply_tweet_id = ?, source_tweet_id = ?, reason = ? WHERE mention_tweet_id = ?
                    """, arguments: [state.rawValue, replyPostID, sourcePostID, reason, mentionID])
        }
    }

    func answers(to authorID: AccountID, since date: Date) async throws -> Int {
        try await database.read("counting answers to \(authorID)") { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT count(*) FROM mention_replies WHERE author_id = ? AND state <> 'skipped' AND state <> 'pending' AND handled_at >= ?
                    """, arguments: [authorID, date]) ?? 0
        }
    }

    func answerSources(since date: Date) async throws -> Set<PostID> {
        try await database.read("reading the replies answered with since \(date)") { db in
            Set(
                try PostID.fetchAll(
                    db,
                    sql: """
                        SELECT source_tweet_id FROM mention_replies
                        WHERE source_tweet_id IS NOT NULL AND state <> 'skipped' AND state <> 'pending' AND handled_at >= ?
                        """, arguments: [date]))
        }
    }

    func answers(inConversation conversationID: PostID) async throws -> Int {
        try await database.read("counting answers in conversation \(conversationID)") { db in
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM mention_replies WHERE conversation_id = ? AND state <> 'skipped' AND state <> 'pending'",
                arguments: [conversationID]) ?? 0
        }
    }

    func outcome(of mentionID: PostID) async throws -> MentionOutcome? {
        try await database.read("reading mention \(mentionID)") { db -> (String, String?, PostID?)? in
            try Row.fetchOne(
                db, sql: "SELECT state, reason, reply_tweet_id FROM mention_replies WHERE mention_tweet_id = ?",
                arguments: [mentionID]
            ).map { (try $0.decode(atIndex: 0), try $0.decode(atIndex: 1), try $0.decode(atIndex: 2)) }
        }.map { MentionOutcome(state: MentionState(rawValue: $0.0) ?? .skipped, reason: $0.1, replyPostID: $0.2) }
    }

    func handledCount(state: MentionState) async throws -> Int {
        try await database.read("counting handled mentions") { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM mention_replies WHERE state = ?", arguments: [state.rawValue]) ?? 0
        }
    }

    func handledMentions() async throws -> [HandledMention] {
        try await database.read("reading the handled mentions") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT mention_tweet_id, author_id, state, reply_tweet_id, source_tweet_id, reason, handled_at
                    FROM mention_replies ORDER BY handled_at, length(mention_tweet_id), mention_tweet_id
                    """)
            return database.decodedRows(rows, of: "the handled mentions") {
                HandledMention(
                    mentionPostID: try $0.decode(atIndex: 0), authorID: try $0.decode(atIndex: 1),
                    state: MentionState(rawValue: try $0.decode(atIndex: 2)) ?? .skipped,
                    replyPostID: try $0.decode(atIndex: 3), sourcePostID: try $0.decode(atIndex: 4), reason: try $0.decode(atIndex: 5),
                    handledAt: try $0.decode(atIndex: 6))
            }
        }
    }

    func interrupted() async throws -> [PostID] {
        try await database.read("reading interrupted answers") { db in
            try PostID.fetchAll(
                db, sql: "SELECT mention_tweet_id FROM mention_replies WHERE state = 'replying' ORDER BY length(mention_tweet_id), mention_tweet_id")
        }
    }
}
