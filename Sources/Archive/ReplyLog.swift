public import Foundation
import GRDB
import Logging
import PostgresNIO

/// The daemon's small persistent state (`bot_state`) and the log of handled mentions (`mention_replies`).
public struct ReplyLog: Sendable {
    /// How a mention was handled.
    public enum State: String, Sendable {
        /// The answer is being sent (or was, when the process stopped before recording it).
        case replying
        /// Answered.
        case replied
        /// Not answered, for a reason.
        case skipped
    }

    /// The database.
    public let database: ArchiveDatabase
    private var logger: Logger { database.logger }

    /// A log in `database`.
    public init(database: ArchiveDatabase) { self.database = database }

    /// A stored state value, such as `mentions.since_id`.
    public func value(of name: String) async throws -> String? {
        if case .sqlite = database.backend {
            return try await database.read("reading \(name)") { db in
                try String.fetchOne(db, sql: "SELECT value FROM bot_state WHERE name = ?", arguments: [name])
            }
        }
        return try await run("reading \(name)", "SELECT value FROM bot_state WHERE name = \(name)", as: String.self).first
    }

    /// Stores a state value.
    public func setValue(_ value: String, of name: String) async throws {
        if case .sqlite = database.backend {
            return try await database.write("storing \(name)") { db in
                try db.execute(sql: """
                    INSERT INTO bot_state (name, value) VALUES (?, ?)
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                    """, arguments: [name, value])
            }
        }
        _ = try await run("storing \(name)", """
            INSERT INTO bot_state (name, value) VALUES (\(name), \(value))
            ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = now() RETURNING 1
            """, as: Int.self)
    }

    /// Every stored state value, by name.
    public func values() async throws -> [String: String] {
        if case .sqlite = database.backend {
            return try await database.read("reading the bot's state") { db in
                Dictionary(try Row.fetchAll(db, sql: "SELECT name, value FROM bot_state").map { ($0[0], $0[1]) }, uniquingKeysWith: { $1 })
            }
        }
        return Dictionary(try await run("reading the bot's state", "SELECT name, value FROM bot_state", as: (String, String).self)
            .map { ($0.0, $0.1) }, uniquingKeysWith: { $1 })
    }

    /// Forgets a state value (such as a `since_id`, so that reading starts afresh).
    public func removeValue(of name: String) async throws {
        if case .sqlite = database.backend {
            return try await database.write("forgetting \(name)") { db in
                try db.execute(sql: "DELETE FROM bot_state WHERE name = ?", arguments: [name])
            }
        }
        _ = try await run("forgetting \(name)", "DELETE FROM bot_state WHERE name = \(name) RETURNING 1", as: Int.self)
    }

    /// Records that a mention is being handled; false when it was handled before (never handle one twice).
    public func begin(mentionID: Int64, authorID: Int64, conversationID: Int64?, at date: Date) async throws -> Bool {
        if case .sqlite = database.backend {
            return try await database.write("recording mention \(mentionID)") { db in
                try db.execute(sql: """
                    INSERT INTO mention_replies (mention_tweet_id, author_id, conversation_id, state, handled_at)
                    VALUES (?, ?, ?, 'replying', ?) ON CONFLICT (mention_tweet_id) DO NOTHING
                    """, arguments: [mentionID, authorID, conversationID, date])
                return db.changesCount > 0
            }
        }
        return try await !run("recording mention \(mentionID)", """
            INSERT INTO mention_replies (mention_tweet_id, author_id, conversation_id, state, handled_at)
            VALUES (\(mentionID), \(authorID), \(conversationID), 'replying', \(date))
            ON CONFLICT (mention_tweet_id) DO NOTHING RETURNING 1
            """, as: Int.self).isEmpty
    }

    /// Records the outcome of a mention.
    public func finish(mentionID: Int64, state: State, replyTweetID: Int64? = nil, sourceTweetID: Int64? = nil, reason: String) async throws {
        if case .sqlite = database.backend {
            return try await database.write("recording the answer to mention \(mentionID)") { db in
                try db.execute(sql: """
                    UPDATE mention_replies SET state = ?, reply_tweet_id = ?, source_tweet_id = ?, reason = ? WHERE mention_tweet_id = ?
                    """, arguments: [state.rawValue, replyTweetID, sourceTweetID, reason, mentionID])
            }
        }
        _ = try await run("recording the answer to mention \(mentionID)", """
            UPDATE mention_replies SET state = \(state.rawValue), reply_tweet_id = \(replyTweetID),
                                       source_tweet_id = \(sourceTweetID), reason = \(reason)
            WHERE mention_tweet_id = \(mentionID) RETURNING 1
            """, as: Int.self)
    }

    /// Answers sent (or being sent) to `authorID` since `date`.
    public func answers(to authorID: Int64, since date: Date) async throws -> Int {
        if case .sqlite = database.backend {
            return try await database.read("counting answers to \(authorID)") { db in
                try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM mention_replies WHERE author_id = ? AND state <> 'skipped' AND handled_at >= ?
                    """, arguments: [authorID, date]) ?? 0
            }
        }
        return try await run("counting answers to \(authorID)", """
            SELECT count(*)::bigint FROM mention_replies
            WHERE author_id = \(authorID) AND state <> 'skipped' AND handled_at >= \(date)
            """, as: Int64.self).first.map(Int.init) ?? 0
    }

    /// Answers sent (or being sent) in a conversation.
    public func answers(inConversation conversationID: Int64) async throws -> Int {
        if case .sqlite = database.backend {
            return try await database.read("counting answers in conversation \(conversationID)") { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM mention_replies WHERE conversation_id = ? AND state <> 'skipped'",
                                 arguments: [conversationID]) ?? 0
            }
        }
        return try await run("counting answers in conversation \(conversationID)", """
            SELECT count(*)::bigint FROM mention_replies WHERE conversation_id = \(conversationID) AND state <> 'skipped'
            """, as: Int64.self).first.map(Int.init) ?? 0
    }

    /// The state and reason of a handled mention, if any.
    public func outcome(of mentionID: Int64) async throws -> (state: State, reason: String?, replyTweetID: Int64?)? {
        if case .sqlite = database.backend {
            return try await database.read("reading mention \(mentionID)") { db -> (String, String?, Int64?)? in
                try Row.fetchOne(db, sql: "SELECT state, reason, reply_tweet_id FROM mention_replies WHERE mention_tweet_id = ?",
                                 arguments: [mentionID]).map { ($0[0], $0[1], $0[2]) }
            }.map { (State(rawValue: $0.0) ?? .skipped, $0.1, $0.2) }
        }
        return try await run("reading mention \(mentionID)", """
            SELECT state, reason, reply_tweet_id FROM mention_replies WHERE mention_tweet_id = \(mentionID)
            """, as: (String, String?, Int64?).self).first.map { (State(rawValue: $0.0) ?? .skipped, $0.1, $0.2) }
    }

    /// The ids among `tweetIDs` the bot has already liked.
    public func likedAmong(_ tweetIDs: [Int64]) async throws -> Set<Int64> {
        if case .sqlite = database.backend {
            return Set(try await database.read("reading likes") { db in
                try Int64.fetchAll(db, sql: "SELECT tweet_id FROM bot_likes WHERE tweet_id IN (SELECT value FROM json_each(?))",
                                   arguments: [TweetArchive.jsonArray(tweetIDs)])
            })
        }
        return Set(try await run("reading likes", "SELECT tweet_id FROM bot_likes WHERE tweet_id = ANY(\(tweetIDs)::bigint[])", as: Int64.self))
    }

    /// Records a like and its reason; false when the tweet was liked before.
    public func recordLike(tweetID: Int64, authorID: Int64?, logRatio: Double, reason: String, at date: Date) async throws -> Bool {
        let ratio = logRatio.isFinite ? logRatio : (logRatio > 0 ? 1e300 : -1e300)
        if case .sqlite = database.backend {
            return try await database.write("recording the like of \(tweetID)") { db in
                try db.execute(sql: """
                    INSERT INTO bot_likes (tweet_id, author_id, log_ratio, reason, liked_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (tweet_id) DO NOTHING
                    """, arguments: [tweetID, authorID, ratio, reason, date])
                return db.changesCount > 0
            }
        }
        return try await !run("recording the like of \(tweetID)", """
            INSERT INTO bot_likes (tweet_id, author_id, log_ratio, reason, liked_at)
            VALUES (\(tweetID), \(authorID), \(ratio), \(reason), \(date)) ON CONFLICT (tweet_id) DO NOTHING RETURNING 1
            """, as: Int.self).isEmpty
    }

    /// How many mentions were handled with `state`.
    public func handledCount(state: State) async throws -> Int {
        if case .sqlite = database.backend {
            return try await database.read("counting handled mentions") { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM mention_replies WHERE state = ?", arguments: [state.rawValue]) ?? 0
            }
        }
        return try await run("counting handled mentions", "SELECT count(*)::bigint FROM mention_replies WHERE state = \(state.rawValue)",
                      as: Int64.self).first.map(Int.init) ?? 0
    }

    /// How many likes were recorded.
    public func likeCount() async throws -> Int {
        if case .sqlite = database.backend {
            return try await database.read("counting likes") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM bot_likes") ?? 0 }
        }
        return try await run("counting likes", "SELECT count(*)::bigint FROM bot_likes", as: Int64.self).first.map(Int.init) ?? 0
    }

    /// A mention as the replier handled it.
    public struct HandledMention: Sendable, Equatable {
        /// The mention.
        public var mentionTweetID: Int64
        /// Its author.
        public var authorID: Int64
        /// Answered, skipped, or being answered.
        public var state: State
        /// The bot's answer, when answered.
        public var replyTweetID: Int64?
        /// The human's past reply it was taken from.
        public var sourceTweetID: Int64?
        /// Why (not) answered.
        public var reason: String?
        /// When it was handled, on the bot's clock.
        public var handledAt: Date

        /// A handled mention from its parts.
        public init(mentionTweetID: Int64, authorID: Int64, state: State, replyTweetID: Int64?, sourceTweetID: Int64?, reason: String?,
                    handledAt: Date) {
            self.mentionTweetID = mentionTweetID; self.authorID = authorID; self.state = state; self.replyTweetID = replyTweetID
            self.sourceTweetID = sourceTweetID; self.reason = reason; self.handledAt = handledAt
        }
    }

    /// Every handled mention, oldest first.
    public func handledMentions() async throws -> [HandledMention] {
        if case .sqlite = database.backend {
            return try await database.read("reading the handled mentions") { db in
                try Row.fetchAll(db, sql: """
                    SELECT mention_tweet_id, author_id, state, reply_tweet_id, source_tweet_id, reason, handled_at
                    FROM mention_replies ORDER BY handled_at, mention_tweet_id
                    """).map {
                    HandledMention(mentionTweetID: $0[0], authorID: $0[1], state: State(rawValue: $0[2]) ?? .skipped, replyTweetID: $0[3],
                                   sourceTweetID: $0[4], reason: $0[5], handledAt: $0[6])
                }
            }
        }
        return try await run("reading the handled mentions", """
            SELECT mention_tweet_id, author_id, state, reply_tweet_id, source_tweet_id, reason, handled_at
            FROM mention_replies ORDER BY handled_at, mention_tweet_id
            """, as: (Int64, Int64, String, Int64?, Int64?, String?, Date).self).map {
            HandledMention(mentionTweetID: $0.0, authorID: $0.1, state: State(rawValue: $0.2) ?? .skipped, replyTweetID: $0.3,
                           sourceTweetID: $0.4, reason: $0.5, handledAt: $0.6)
        }
    }

    /// A like the bot made, with its reason.
    public struct RecordedLike: Sendable, Equatable {
        /// The liked tweet.
        public var tweetID: Int64
        /// Its author, when known.
        public var authorID: Int64?
        /// The filter's log ratio.
        public var logRatio: Double
        /// The logged reason (`log ratio 2.31 > 1.10 (ラーメン, 新宿)`).
        public var reason: String
        /// When, on the bot's clock.
        public var likedAt: Date

        /// A like from its parts.
        public init(tweetID: Int64, authorID: Int64?, logRatio: Double, reason: String, likedAt: Date) {
            self.tweetID = tweetID; self.authorID = authorID; self.logRatio = logRatio; self.reason = reason; self.likedAt = likedAt
        }
    }

    /// Every like the bot made, oldest first.
    public func likes() async throws -> [RecordedLike] {
        if case .sqlite = database.backend {
            return try await database.read("reading the likes") { db in
                try Row.fetchAll(db, sql: "SELECT tweet_id, author_id, log_ratio, reason, liked_at FROM bot_likes ORDER BY liked_at, tweet_id").map {
                    RecordedLike(tweetID: $0[0], authorID: $0[1], logRatio: $0[2] ?? 0, reason: $0[3], likedAt: $0[4])
                }
            }
        }
        return try await run("reading the likes", """
            SELECT tweet_id, author_id, log_ratio, reason, liked_at FROM bot_likes ORDER BY liked_at, tweet_id
            """, as: (Int64, Int64?, Double?, String, Date).self).map {
            RecordedLike(tweetID: $0.0, authorID: $0.1, logRatio: $0.2 ?? 0, reason: $0.3, likedAt: $0.4)
        }
    }

    /// Mentions left `replying` by a process that stopped mid-answer become skipped (never answered twice).
    @discardableResult
    public func skipInterrupted() async throws -> Int {
        if case .sqlite = database.backend {
            return try await database.write("recovering interrupted answers") { db in
                try db.execute(sql: """
                    UPDATE mention_replies SET state = 'skipped',
                           reason = 'interrupted while answering; the answer may or may not exist, so it is not sent again'
                    WHERE state = 'replying'
                    """)
                return db.changesCount
            }
        }
        return try await run("recovering interrupted answers", """
            UPDATE mention_replies SET state = 'skipped',
                   reason = 'interrupted while answering; the answer may or may not exist, so it is not sent again'
            WHERE state = 'replying' RETURNING 1
            """, as: Int.self).count
    }

    private func run<each Column: PostgresDecodable & Sendable>(
        _ operation: String, _ query: PostgresQuery, as types: (repeat each Column).Type
    ) async throws -> [(repeat each Column)] {
        try await database.rows(operation, query, as: (repeat each Column).self)
    }
}
