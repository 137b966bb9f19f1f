public import Foundation

/// Every mention the bot handled, answered or not (table `mention_replies`): a mention is never answered twice,
/// and the per-user and per-thread limits that stop two bots from talking forever are counted here. The statements
/// live apart by dialect (`MentionLog+Postgres.swift`, `MentionLog+SQLite.swift`).
public struct MentionLog: Sendable {
    /// How a mention was handled.
    public enum State: String, Sendable {
        /// The answer is being sent (or was, when the process stopped before recording it).
        case replying
        /// Answered.
        case replied
        /// Not answered, for a reason.
        case skipped
        /// Not answered yet: the bot stopped during its pause before answering, nothing sent. The next start answers
        /// it if it is still fresh, else skips it saying so.
        case pending
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

    /// The database.
    public let database: ArchiveDatabase

    /// The log in `database`.
    public init(database: ArchiveDatabase) { self.database = database }

    private var statements: any MentionStatements {
        switch database.backend {
        case .postgres: PostgresMentionLog(database: database)
        case .sqlite: SQLiteMentionLog(database: database)
        }
    }

    /// Records that a mention is being handled; false when it was handled before (never handle one twice). A pending
    /// mention (the bot stopped before answering it) is taken up again.
    public func begin(mentionID: Int64, authorID: Int64, conversationID: Int64?, at date: Date) async throws -> Bool {
        try await statements.begin(mentionID: mentionID, authorID: authorID, conversationID: conversationID, at: date)
    }

    /// Records the outcome of a mention.
    public func finish(mentionID: Int64, state: State, replyTweetID: Int64? = nil, sourceTweetID: Int64? = nil, reason: String) async throws {
        try await statements.finish(mentionID: mentionID, state: state, replyTweetID: replyTweetID, sourceTweetID: sourceTweetID, reason: reason)
    }

    /// Answers sent (or being sent) to `authorID` since `date`.
    public func answers(to authorID: Int64, since date: Date) async throws -> Int { try await statements.answers(to: authorID, since: date) }

    /// Answers sent (or being sent) in a conversation.
    public func answers(inConversation conversationID: Int64) async throws -> Int { try await statements.answers(inConversation: conversationID) }

    /// The state and reason of a handled mention, if any.
    public func outcome(of mentionID: Int64) async throws -> (state: State, reason: String?, replyTweetID: Int64?)? {
        try await statements.outcome(of: mentionID)
    }

    /// How many mentions were handled with `state`.
    public func handledCount(state: State) async throws -> Int { try await statements.handledCount(state: state) }

    /// Every handled mention, oldest first.
    public func handledMentions() async throws -> [HandledMention] { try await statements.handledMentions() }

    /// The mentions a process that stopped mid-answer left `replying`: the caller reads back whether each answer was
    /// made and records it (`finish`), so that none is answered twice.
    public func interrupted() async throws -> [Int64] { try await statements.interrupted() }

    /// Why an interrupted answer is skipped when whether it was made cannot be read back.
    public static let interruptedReason = "interrupted while answering; the answer may or may not exist, so it is not sent again"
}

/// The mention log's statements in one dialect.
protocol MentionStatements: Sendable {
    func begin(mentionID: Int64, authorID: Int64, conversationID: Int64?, at date: Date) async throws -> Bool
    func finish(mentionID: Int64, state: MentionLog.State, replyTweetID: Int64?, sourceTweetID: Int64?, reason: String) async throws
    func answers(to authorID: Int64, since date: Date) async throws -> Int
    func answers(inConversation conversationID: Int64) async throws -> Int
    func outcome(of mentionID: Int64) async throws -> (state: MentionLog.State, reason: String?, replyTweetID: Int64?)?
    func handledCount(state: MentionLog.State) async throws -> Int
    func handledMentions() async throws -> [MentionLog.HandledMention]
    func interrupted() async throws -> [Int64]
}
