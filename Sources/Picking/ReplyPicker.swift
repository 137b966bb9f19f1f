public import Archive
public import BotConfiguration
import Foundation

/// Chooses how the bot answers someone: with a reply the human once sent to that same person.
///
/// The stored reply starts with the @names it was addressed to; they are removed, since the bot's answer is threaded
/// by id (X adds the person being answered). With no past reply to that person, `fallback` decides: `none` (the
/// default) does not answer, `any` uses a past reply to anyone.
public struct ReplyPicker: Sendable {
    /// What to do when the human never replied to the author (`REPLY_FALLBACK`).
    public typealias Fallback = Configuration.ReplyFallback

    /// A chosen reply.
    public struct Pick: Sendable, Equatable {
        /// The human's reply it comes from.
        public var source: ArchivedTweet
        /// The text to send: the reply without its leading @names.
        public var text: String
        /// Whether it was a reply to someone else (the `any` fallback).
        public var isFallback: Bool
    }

    /// The human's tweets.
    public let archive: TweetArchive
    /// What to do without a past reply to the author.
    public let fallback: Fallback

    /// A picker over `archive`.
    public init(archive: TweetArchive, fallback: Fallback) {
        self.archive = archive
        self.fallback = fallback
    }

    /// A reply to `authorID`, not one of `excluded` (replies X just refused as duplicates), or nil when there is
    /// none to give.
    public func pick(forAuthor authorID: Int64, excluding excluded: Set<Int64> = [],
                     using generator: inout some RandomNumberGenerator) async throws -> Pick? {
        if let pick = try await pick(toUser: authorID, excluding: excluded, using: &generator) { return pick }
        guard fallback == .any, let pick = try await pick(toUser: nil, excluding: excluded, using: &generator) else { return nil }
        return Pick(source: pick.source, text: pick.text, isFallback: true)
    }

    /// A reply to `userID` (anyone when nil) whose text is not only @names.
    private func pick(toUser userID: Int64?, excluding refused: Set<Int64>,
                      using generator: inout some RandomNumberGenerator) async throws -> Pick? {
        var excluded = refused
        for _ in 0..<10 {  // replies that were nothing but @names are skipped
            guard let reply = try await archive.randomReply(toUser: userID, excluding: excluded, using: &generator) else { return nil }
            let text = Self.removingLeadingMentions(reply.text)
            if !text.isEmpty { return Pick(source: reply, text: text, isFallback: false) }
            excluded.insert(reply.tweetID)
        }
        return nil
    }

    /// `text` without the @names (and the spaces after them) it starts with.
    public static func removingLeadingMentions(_ text: String) -> String {
        var rest = Substring(text).drop { $0.isWhitespace }
        while let first = rest.first, first == "@" || first == "＠" {
            let name = rest.dropFirst().prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            guard !name.isEmpty else { break }
            rest = rest.dropFirst(1 + name.count).drop { $0.isWhitespace }
        }
        return String(rest)
    }
}
