public import BotCore
public import Foundation

/// Every mention the bot handled, answered or not (table `mention_replies`): a mention is never answered twice, and
/// the per-user and per-thread limits that stop two bots from talking forever are counted here.
public protocol MentionLog: Sendable {
    /// Records that a mention is being handled; false when it was handled before (never handle one twice). A pending
    /// mention (the bot stopped before answering it) is taken up again.
    func begin(mentionID: PostID, authorID: AccountID, conversationID: PostID?, at date: Date) async throws -> Bool
    /// Records the outcome of a mention.
    func finish(mentionID: PostID, state: MentionState, replyPostID: PostID?, sourcePostID: PostID?, reason: String) async throws
    /// Answers sent (or being sent) to `authorID` since `date`.
    func answers(to authorID: AccountID, since date: Date) async throws -> Int
    /// Answers sent (or being sent) in a conversation.
    func answers(inConversation conversationID: PostID) async throws -> Int
    /// The person's past replies the bot answered with since `date` (their ids): a network that refuses a repeat is
    /// never sent one.
    func answerSources(since date: Date) async throws -> Set<PostID>
    /// The state, reason and answer of a handled mention, if any.
    func outcome(of mentionID: PostID) async throws -> MentionOutcome?
    /// How many mentions were handled with `state`.
    func handledCount(state: MentionState) async throws -> Int
    /// Every handled mention, oldest first.
    func handledMentions() async throws -> [HandledMention]
    /// The mentions a process that stopped mid-answer left `replying`: the caller reads back whether each answer was
    /// made and records it (`finish`), so that none is answered twice.
    func interrupted() async throws -> [PostID]
}

extension MentionLog {
    /// Records the outcome of a mention that got no answer.
    public func finish(mentionID: PostID, state: MentionState, replyPostID: PostID? = nil, sourcePostID: PostID? = nil, reason: String) async throws {
        try await finish(mentionID: mentionID, state: state, replyPostID: replyPostID, sourcePostID: sourcePostID, reason: reason)
    }
}

/// How a mention was handled.
public enum MentionState: String, Sendable {
    /// The answer is being sent (or was, when the process stopped before recording it).
    case replying
    /// Answered.
    case replied
    /// Not answered, for a reason.
    case skipped
    /// Not answered yet: the bot stopped during its pause before answering, nothing sent. The next start answers it if
    /// it is still fresh, else skips it saying so.
    case pending

    /// Why an interrupted answer is skipped when whether it was made cannot be read back.
    public static let interruptedReason = "interrupted while answering; the answer may or may not exist, so it is not sent again"
}

/// What became of one mention.
public struct MentionOutcome: Sendable, Equatable {
    /// How it was handled.
    public var state: MentionState
    /// Why (not) answered.
    public var reason: String?
    /// The bot's answer, when answered.
    public var replyPostID: PostID?

    /// An outcome from its parts.
    public init(state: MentionState, reason: String?, replyPostID: PostID?) {
        self.state = state
        self.reason = reason
        self.replyPostID = replyPostID
    }
}

/// A mention as the replier handled it.
public struct HandledMention: Sendable, Equatable {
    /// The mention.
    public var mentionPostID: PostID
    /// Its author.
    public var authorID: AccountID
    /// Answered, skipped, or being answered.
    public var state: MentionState
    /// The bot's answer, when answered.
    public var replyPostID: PostID?
    /// The person's past reply it was taken from.
    public var sourcePostID: PostID?
    /// Why (not) answered.
    public var reason: String?
    /// When it was handled, on the bot's clock.
    public var handledAt: Date

    /// A handled mention from its parts.
    public init(
        mentionPostID: PostID, authorID: AccountID, state: MentionState, replyPostID: PostID?, sourcePostID: PostID?, reason: String?,
        handledAt: Date
    ) {
        self.mentionPostID = mentionPostID
        self.authorID = authorID
        self.state = state
        self.replyPostID = replyPostID
        self.sourcePostID = sourcePostID
        self.reason = reason
        self.handledAt = handledAt
    }
}
