public import BotCore
public import Foundation

/// A network wrapped around the bot's own for what is the person's (`ArchivedPersonNetwork`,
/// `PersonElsewhereNetwork`): everything the bot itself does (its mentions, posts, replies, likes, its own posts,
/// what posting costs) goes to `botSide` unchanged.
public protocol BotSideForwarding: MirrorNetwork {
    /// The bot's network.
    var botSide: any MirrorNetwork { get }
}

extension BotSideForwarding {
    public func mentions(of userID: String, since sinceID: String?, perPage: Int, for work: Work) -> NetworkPages {
        botSide.mentions(of: userID, since: sinceID, perPage: perPage, for: work)
    }
    public func openMentionStream(of userID: String) async throws -> NetworkPostStream { try await botSide.openMentionStream(of: userID) }
    public func post(_ text: String, warning: String?, slot: String, for work: Work) async throws -> String? {
        try await botSide.post(text, warning: warning, slot: slot, for: work)
    }
    public func reply(_ text: String, warning: String?, to postID: String, for work: Work) async throws -> String? {
        try await botSide.reply(text, warning: warning, to: postID, for: work)
    }
    public func ownRecentPost(_ text: String?, inReplyTo postID: String?, sentSince: Date?, for work: Work) async throws -> String? {
        try await botSide.ownRecentPost(text, inReplyTo: postID, sentSince: sentSince, for: work)
    }
    public func deletePost(_ postID: String, for work: Work) async throws -> Bool { try await botSide.deletePost(postID, for: work) }
    public func like(_ postID: String, as botID: String, for work: Work) async throws { try await botSide.like(postID, as: botID, for: work) }
    public func formerAccountIDs(of id: String) -> [String] { botSide.formerAccountIDs(of: id) }
    public func checkLikes(as botID: String, on postID: String, for work: Work) async throws {
        try await botSide.checkLikes(as: botID, on: postID, for: work)
    }
    public func keepAsideForPosts(at dates: [Date]) { botSide.keepAsideForPosts(at: dates) }
    public func keepAsideForLikes(at dates: [Date]) { botSide.keepAsideForLikes(at: dates) }
}
