public import BotCore
public import Consent
import Foundation
public import Stores

/// Chooses how the bot answers someone: with a reply the human once sent to that same person.
///
/// The stored reply starts with the @names it was addressed to; they are removed, since the bot's answer is threaded
/// by id (X adds the person being answered). With no past reply to that person, `fallback` decides: `none` (the
/// default) does not answer, `any` uses a past reply to anyone. Replies that contain a link are left out unless
/// `allowsLinks` (on X a post with a link costs $0.200 instead of $0.015). A reply mentions nobody but the account it
/// answers: a past reply that @-mentions anyone else after its leading @names (in any network's form: `@bob`,
/// `@bob@example.social`, `@alice.bsky.social`, `RT@bob`) is never sent, so nobody is pinged who did not ask, and
/// neither is one with a word of `blockedWords` (`BLOCKED_WORDS`); another is picked.
public struct ReplyPicker: Sendable {
    /// What to do when the human never replied to the author (`REPLY_FALLBACK`).
    public typealias Fallback = ReplyFallback

    /// A chosen reply.
    public struct Pick: Sendable, Equatable {
        /// The human's reply it comes from.
        public var source: ArchivedPost
        /// The text to send: the reply without its leading @names.
        public var text: String
        /// Whether it was a reply to someone else (the `any` fallback).
        public var isFallback: Bool
    }

    /// The human's posts.
    public let archive: any PostArchive
    /// What to do without a past reply to the author.
    public let fallback: Fallback
    /// Whether replies with links may be sent (`POST_LINKS`).
    public let allowsLinks: Bool
    /// Words a reply must not contain (`BLOCKED_WORDS`).
    public let blockedWords: WordList
    /// The ids older releases gave an account, under which the person's replies to it may be stored
    /// (`MirrorNetwork.formerAccountIDs`).
    public let formerIDs: @Sendable (AccountID) -> [AccountID]

    /// Past replies looked at per pick before giving up (each one rejected is left out of the next draw).
    static let attempts = 30

    /// A picker over `archive`.
    public init(
        archive: any PostArchive, fallback: Fallback, allowsLinks: Bool = true, blockedWords: WordList = WordList([]),
        formerIDs: @escaping @Sendable (AccountID) -> [AccountID] = { _ in [] }
    ) {
        self.archive = archive
        self.fallback = fallback
        self.allowsLinks = allowsLinks
        self.blockedWords = blockedWords
        self.formerIDs = formerIDs
    }

    /// Why there is no pick for `authorID`: none of the human's replies to them is left, those left all contain a
    /// link (and links are not allowed), or were refused as duplicates or sent within the network's repeat window
    /// (`repeats`).
    public func reasonForNoPick(forAuthor authorID: AccountID, excluding excluded: Set<PostID> = [], repeats: Set<PostID> = []) async throws -> String
    {
        var generator = SystemRandomNumberGenerator()
        let unusable = excluded.union(repeats)
        let former = formerIDs(authorID)
        if !allowsLinks,
            try await archive.randomReply(toUser: authorID, formerIDs: former, excluding: unusable, allowingLinks: true, using: &generator) != nil
        {
            return
                "every past reply of the human to this user that is left contains a link, and links are off on this network (where a post with a link costs more; POST_LINKS=true allows them)"
        }
        if try await archive.randomReply(toUser: authorID, formerIDs: former, excluding: unusable, allowingLinks: allowsLinks, using: &generator)
            != nil
        {
            return
                "every past reply of the human to this user that is left mentions someone else, contains a blocked word (BLOCKED_WORDS) or is only @names"
        }
        if unusable.isEmpty { return "no past reply of the human to this user" }
        if try await archive.randomReply(toUser: authorID, formerIDs: former, excluding: [], allowingLinks: true, using: &generator) == nil {
            return "no past reply of the human to this user"
        }
        if excluded.isEmpty { return "every past reply that fits was already sent within the day (the network refuses a repeat)" }
        return "every past reply to this user was refused as a duplicate or already sent within the day"
    }

    /// A reply to `authorID` (whose handle is `handle`, when known), not one of `excluded` (replies X just refused as
    /// duplicates), or nil when there is none to give.
    public func pick(
        forAuthor authorID: AccountID, handle: String? = nil, excluding excluded: Set<PostID> = [],
        using generator: inout some RandomNumberGenerator
    ) async throws -> Pick? {
        if let pick = try await pick(toUser: authorID, handle: handle, excluding: excluded, using: &generator) { return pick }
        guard fallback == .any, let pick = try await pick(toUser: nil, handle: handle, excluding: excluded, using: &generator) else { return nil }
        return Pick(source: pick.source, text: pick.text, isFallback: true)
    }

    /// A reply to `userID` (anyone when nil) that may be sent to `handle`: not only @names, mentioning nobody else, no
    /// blocked word.
    private func pick(
        toUser userID: AccountID?, handle: String?, excluding refused: Set<PostID>,
        using generator: inout some RandomNumberGenerator
    ) async throws -> Pick? {
        var excluded = refused
        for _ in 0..<Self.attempts {
            guard
                let reply = try await archive.randomReply(
                    toUser: userID, formerIDs: userID.map(formerIDs) ?? [], excluding: excluded, allowingLinks: allowsLinks,
                    using: &generator)
            else { return nil }
            let text = Self.removingLeadingMentions(reply.text)
            // Unknown (X reads mentions without handles), the answered account's handle is the first @name of the
            // person's reply to them.
            let answered =
                handle ?? (userID == nil ? nil : ArchiveRules.mentionedNames(in: String(reply.text.prefix(reply.text.count - text.count))).first)
            if !text.isEmpty, Self.mentionsOnly(answered, in: text), blockedWords.firstMatch(in: text) == nil {
                return Pick(source: reply, text: text, isFallback: false)
            }
            excluded.insert(reply.postID)
        }
        return nil
    }

    /// Whether `text` @-mentions nobody but `handle` (nobody at all when the handle is not known). A handle on another
    /// instance (`bob@example.social`) is also `bob` as its own instance writes it.
    public static func mentionsOnly(_ handle: String?, in text: String) -> Bool {
        let names = ArchiveRules.mentionedNames(in: text)
        guard let handle = handle?.lowercased() else { return names.isEmpty }
        let local = handle.split(separator: "@").first.map(String.init) ?? handle
        return names.allSatisfy { $0 == handle || $0 == local }
    }

    /// The handle of `userID` as the human's replies to them address them (their first leading @name), without a
    /// user read from the network; nil when the human never replied to them.
    public func handle(ofUser userID: AccountID) async throws -> String? {
        var generator = SystemRandomNumberGenerator()
        guard let reply = try await archive.randomReply(toUser: userID, formerIDs: formerIDs(userID), using: &generator) else { return nil }
        let text = reply.text.drop { $0.isWhitespace }
        guard let first = text.first, first == "@" || first == "＠" else { return nil }
        let name = text.dropFirst().prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        return name.isEmpty ? nil : String(name)
    }

    /// `text` without the @names (and the spaces after them) it starts with, in any network's form (`@bob`,
    /// `@bob@example.social`, `@alice.bsky.social`).
    public static func removingLeadingMentions(_ text: String) -> String {
        var rest = Substring(text).drop { $0.isWhitespace }
        func isNameCharacter(_ character: Character) -> Bool { character.isASCII && (character.isLetter || character.isNumber || character == "_") }
        func isHandleCharacter(_ character: Character) -> Bool { isNameCharacter(character) || character == "." || character == "-" }
        while let first = rest.first, first == "@" || first == "＠" {
            let afterAt = rest.dropFirst()
            guard let start = afterAt.first, isNameCharacter(start) else { break }
            var name = afterAt.prefix(while: isHandleCharacter)
            var after = afterAt.dropFirst(name.count)
            if after.first == "@", let host = after.dropFirst().first, isNameCharacter(host) {
                after = after.dropFirst().drop(while: isHandleCharacter)
            }
            // A sentence's full stop after the name is not part of it.
            while name.last == "." || name.last == "-" { name = name.dropLast() }
            guard after.first.map({ $0.isWhitespace }) ?? true else {
                // `@bob.` ends a sentence: keep what follows the name.
                rest = afterAt.dropFirst(name.count)
                break
            }
            rest = after.drop { $0.isWhitespace }
        }
        return String(rest)
    }
}
