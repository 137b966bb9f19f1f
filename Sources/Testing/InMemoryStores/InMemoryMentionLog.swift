import BotCore
import Foundation
import Stores

/// The mentions handled, in memory: each begun once (a pending one taken up again).
struct InMemoryMentionLog: MentionLog {
    let set: InMemoryStoreSet

    func begin(mentionID: PostID, authorID: AccountID, conversationID: PostID?, at date: Date) async throws -> Bool {
        try set.withTables("recording mention \(mentionID)") { tables in
            if let known = tables.mentions[mentionID] {
                guard known.state == .pending else { return false }
                tables.mentions[mentionID]?.state = .replying
                tables.mentions[mentionID]?.handledAt = date
                return true
            }
            tables.mentions[mentionID] = Tables.Mention(authorID: authorID, conversationID: conversationID, state: .replying, handledAt: date)
            return true
        }
    }

    func finish(mentionID: PostID, state: MentionState, replyPostID: PostID?, sourcePostID: PostID?, reason: String) async throws {
        try set.withTables("recording the answer to mention \(mentionID)") { tables in
            guard tables.mentions[mentionID] != nil else { return }
            tables.mentions[mentionID]?.state = state
            tables.mentions[mentionID]?.replyPostID = replyPostID
            tables.mentions[mentionID]?.sourcePostID = sourcePostID
            tables.mentions[mentionID]?.reason = reason
        }
    }

    /// Whether a mention's answer counts against the limits: sent, or being sent.
    private static func counts(_ mention: Tables.Mention) -> Bool { mention.state != .skipped && mention.state != .pending }

    func answers(to authorID: AccountID, since date: Date) async throws -> Int {
        try set.withTables("counting answers to \(authorID)") { tables in
            tables.mentions.values.filter { $0.authorID == authorID && Self.counts($0) && $0.handledAt >= date }.count
        }
    }

    func answerSources(since date: Date) async throws -> Set<PostID> {
        try set.withTables("reading the replies answered with since \(date)") { tables in
            Set(tables.mentions.values.filter { Self.counts($0) && $0.handledAt >= date }.compactMap(\.sourcePostID))
        }
    }

    func answers(inConversation conversationID: PostID) async throws -> Int {
        try set.withTables("counting answers in conversation \(conversationID)") { tables in
            tables.mentions.values.filter { $0.conversationID == conversationID && Self.counts($0) }.count
        }
    }

    func outcome(of mentionID: PostID) async throws -> MentionOutcome? {
        try set.withTables("reading mention \(mentionID)") { tables in
            tables.mentions[mentionID].map { MentionOutcome(state: $0.state, reason: $0.reason, replyPostID: $0.replyPostID) }
        }
    }

    func handledCount(state: MentionState) async throws -> Int {
        try set.withTables("counting handled mentions") { $0.mentions.values.filter { $0.state == state }.count }
    }

    func handledMentions() async throws -> [HandledMention] {
        try set.withTables("reading the handled mentions") { tables in
            tables.mentions.map { id, row in
                HandledMention(
                    mentionPostID: id, authorID: row.authorID, state: row.state, replyPostID: row.replyPostID,
                    sourcePostID: row.sourcePostID, reason: row.reason, handledAt: row.handledAt)
            }.sorted { ($0.handledAt, $0.mentionPostID) < ($1.handledAt, $1.mentionPostID) }
        }
    }

    func interrupted() async throws -> [PostID] {
        try set.withTables("reading interrupted answers") { $0.mentions.filter { $0.value.state == .replying }.map(\.key).sorted() }
    }
}
