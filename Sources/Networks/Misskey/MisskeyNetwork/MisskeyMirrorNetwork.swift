import BotClock
public import BotCore
public import Foundation
public import MisskeyAPI
import PostText
public import SocialNetwork
import Synchronization

/// Misskey behind `MirrorNetwork`: the person's notes and reactions, the bot's mentions (polled from `notes/mentions`
/// or pushed on the main channel's stream) and home timeline, posting, replying and reacting, in the bot's words.
/// Free: no accounting, nothing shed.
///
/// Misskey's ways are kept here: notes and users keep the instance's ids (a number a release before text ids gave a
/// note and migration 0015 could not map back names nothing it can ask about); a note that is `followers` or
/// `specified`, a renote or a quote, or that carries a content warning (unless `copyingWarnings`), is never handed to
/// the bot, so it is never archived, learned or copied; the person's notes keep their MFM as written (a copy posts
/// what they wrote), while what the like filter reads (timeline, reactions) has its markup taken out; posts go out
/// `home` by default, and a reply is never more public than the mention it answers (a `specified` mention gets a
/// `specified` answer, visible to its author only). Misskey takes no idempotency key: a create whose answer was lost
/// is read back from the bot's own newest notes.
public struct MisskeyMirrorNetwork: FreeMirrorNetwork {
    /// The client.
    public let client: MisskeyClient
    /// Who may see the bot's posts (`POST_VISIBILITY`: `home` by default).
    public let postVisibility: MisskeyVisibility
    /// Whether notes with a content warning are copied, warning included (`POST_CW`).
    public let copyingWarnings: Bool
    /// The reaction that is a like (`MISSKEY_LIKE_REACTION`, `❤` by default).
    public let likeReaction: String
    private let known = KnownNotes()

    /// The network over `client`.
    public init(
        client: MisskeyClient, postVisibility: MisskeyVisibility = .home, copyingWarnings: Bool = false,
        likeReaction: String = "❤"
    ) {
        self.client = client
        self.postVisibility = postVisibility
        self.copyingWarnings = copyingWarnings
        self.likeReaction = likeReaction
    }

    public var name: String { "Misskey" }
    public var capabilities: NetworkCapabilities { Self.capabilities }

    /// What Misskey offers a mirror, before any client is opened.
    public static var capabilities: NetworkCapabilities {
        NetworkCapabilities(whyNoLikes: nil, streamsMentions: true, disclosure: .botFlagAndContact, postLength: .characters(defaultNoteLength))
    }

    public func whoAmI(_ account: Account) async throws -> NetworkUser {
        let me = try await Self.mapped { try await client.send(GetI(), as: account) }
        known.setUser(me.id, of: account)
        if account == .bot { startReadingBotInstance() }
        return NetworkUser(
            id: me.id, handle: me.acct, profile: me.description, markedAutomated: me.isBot, networkAccount: me.id)
    }

    public func posts(of userID: String, since sinceID: String?, maxPosts: Int, for work: Work) -> NetworkPages {
        let network = self
        return notePages(
            { since in GetUserNotes(userID: userID, withReplies: true, sinceID: since) }, as: .human,
            since: sinceID, maxPosts: maxPosts
        ) { notes in
            notes.compactMap { network.copyable($0) }
        }
    }

    public func likes(of userID: String, perPage: Int, maxPosts: Int?, for work: Work) -> NetworkPages {
        let network = self
        return NetworkPages {
            var iterator: MisskeyPages<GetUserReactions>.AsyncIterator?
            return NetworkPages.Iterator {
                if iterator == nil {
                    iterator = network.client.pages(
                        GetUserReactions(userID: userID, limit: min(100, max(1, perPage))), as: .human, maxItems: maxPosts
                    )
                    .makeAsyncIterator()
                }
                guard let reactions = try await Self.mapped({ try await iterator!.next() }) else { return nil }
                // The reactions' pages carry reaction ids, not note ids: no newest note id to read from next time.
                return NetworkPage(
                    posts: reactions.compactMap { reaction in
                        network.readable(reaction.note).map {
                            var post = $0
                            post.likedAt = reaction.createdAt
                            return post
                        }
                    }, newestID: nil)
            }
        }
    }

    public func mentions(of userID: String, since sinceID: String?, perPage: Int, for work: Work) -> NetworkPages {
        let network = self
        return notePages({ since in GetMentions(sinceID: since, limit: min(100, max(1, perPage))) }, as: .bot, since: sinceID, maxPosts: nil) {
            notes in
            var posts: [NetworkPost] = []
            for note in notes where note.userId != (network.known.user(of: .bot) ?? "") { posts.append(try await network.mention(note)) }
            return posts
        }
    }

    public func openMentionStream(of userID: String) async throws -> NetworkPostStream {
        let events = try await Self.mapped { try await client.streamMentions(as: .bot) }
        let network = self
        return NetworkPostStream {
            var iterator = events.makeAsyncIterator()
            return NetworkPostStream.Iterator {
                while let event = try await Self.mapped({ try await iterator.next() }) {
                    guard event.note.userId != network.known.user(of: .bot) else { continue }
                    return try await network.mention(event.note)
                }
                return nil
            }
        }
    }

    public func homeTimeline(
        of userID: String, as account: Account, since sinceID: String?, maxPosts: Int?, perPage: Int,
        includingReposts: Bool, for work: Work
    ) -> NetworkPages {
        let network = self
        return notePages(
            { since in GetTimeline(withRenotes: includingReposts, sinceID: since, limit: min(100, max(1, perPage))) }, as: account,
            since: sinceID, maxPosts: maxPosts
        ) { notes in
            notes.compactMap { note in
                guard includingReposts || !note.isPureRenote else { return nil }
                return network.readable(note, keepingReposts: includingReposts)
            }
        }
    }

    public func postExists(_ postID: String, as account: Account, for work: Work) async throws -> Bool {
        // A number a previous release could not map back names nothing the bot can ask about: it is taken as there.
        guard !MisskeyIDs.isUnmappedNumber(postID) else { return true }
        let noteID = postID
        do {
            return try await client.send(ShowNote(noteID: noteID), as: account).id == noteID
        } catch MisskeyAPIError.notFound {
            return false
        } catch let error as MisskeyAPIError {
            throw Self.networkError(error)
        }
    }

    public func post(_ text: String, warning: String?, slot: String, for work: Work) async throws -> String? {
        try await checkLength(of: text)
        let note = try await Self.mapped {
            try await client.send(CreateNote(text: text, visibility: postVisibility, cw: warning), as: .bot).createdNote
        }
        return note.id
    }

    public func reply(_ text: String, warning: String?, to postID: String, for work: Work) async throws -> String? {
        guard !MisskeyIDs.isUnmappedNumber(postID) else {
            throw NetworkError.rejected("Misskey: the mention \(postID) is a number a previous release could not map back to its note")
        }
        let noteID = postID
        let mention: MentionFacts
        if let facts = known.facts(of: noteID) {
            mention = facts
        } else {
            let note = try await Self.mapped { try await client.send(ShowNote(noteID: noteID), as: .bot) }
            mention = MentionFacts(note)
            known.remember(mention, of: noteID)
        }
        // Misskey's reply box starts with the @name of whom it answers; a copy of the person's reply does the same.
        let addressed = text.localizedCaseInsensitiveContains("@" + mention.authorAcct) ? text : "@\(mention.authorAcct) \(text)"
        try await checkLength(of: addressed)
        // Never more public than the mention: a followers-only mention gets a followers-only answer, a specified one
        // an answer its author alone sees.
        let visibility = max(postVisibility, mention.visibility)
        let note = try await Self.mapped {
            try await client.send(
                CreateNote(
                    text: addressed, visibility: visibility, cw: warning, localOnly: mention.localOnly, replyID: noteID,
                    visibleUserIDs: visibility == .specified ? [mention.authorID] : []), as: .bot
            ).createdNote
        }
        known.setThreadRoot(known.threadRoot(of: noteID) ?? noteID, of: note.id)
        return note.id
    }

    /// Misskey takes no idempotency key: a create whose answer was lost is read back from the bot's newest notes
    /// (five, with replies).
    public func ownRecentPost(_ text: String?, inReplyTo postID: String?, sentSince: Date?, for work: Work) async throws -> String? {
        let botID = try await whoAmI(.bot).id
        let limit = ReadBack.pageSize(sentSince: sentSince)
        let notes = try await Self.mapped { try await client.send(GetUserNotes(userID: botID, withReplies: true, limit: limit), as: .bot) }
        return notes.first { note in
            let written = note.text ?? ""
            return (text.map { written == $0 || written.hasSuffix(" " + $0) } ?? true) && (postID == nil || note.replyId == postID)
        }?.id
    }

    public func deletePost(_ postID: String, for work: Work) async throws -> Bool {
        guard !MisskeyIDs.isUnmappedNumber(postID) else { return false }
        return try await Self.mapped {
            do {
                _ = try await client.send(DeleteNote(noteID: postID), as: .bot)
                return true
            } catch MisskeyAPIError.notFound {
                return false
            }
        }
    }

    public func like(_ postID: String, as botID: String, for work: Work) async throws {
        guard !MisskeyIDs.isUnmappedNumber(postID) else {
            throw NetworkError.rejected("Misskey: the note \(postID) is a number a previous release could not map back to its note")
        }
        do {
            _ = try await client.send(CreateReaction(noteID: postID, reaction: likeReaction), as: .bot)
        } catch let error as MisskeyAPIError where error.code == "ALREADY_REACTED" {
            return  // reacted before (an answer lost, a restart): one reaction
        } catch let error as MisskeyAPIError {
            throw Self.networkError(error)
        }
    }

    /// The client's count of calls (nothing is billed, but the status page shows what answers).
    public func endpointCalls() -> [EndpointCalls] {
        client.callCounts.map {
            EndpointCalls(endpoint: $0.endpoint, account: $0.caller, calls: $0.calls, failures: $0.failures, lastSuccessAt: $0.lastSuccessAt)
        }
    }

    // MARK: - Misskey in the bot's words

    /// The longest note of an instance that does not say (Misskey's default).
    public static let defaultNoteLength = 3_000

    /// The pages of a note endpoint, newest first, newer than the note `sinceID`, made posts by `posts`. The newest id
    /// is the newest note read, kept or not.
    private func notePages<Endpoint: MisskeyPagedEndpoint>(
        _ makeEndpoint: @escaping @Sendable (String?) async throws -> Endpoint, as account: Account,
        since sinceID: String?, maxPosts: Int?,
        _ posts: @escaping @Sendable ([MisskeyNote]) async throws -> [NetworkPost]
    ) -> NetworkPages
    where Endpoint.Item == MisskeyNote {
        let network = self
        return NetworkPages {
            var iterator: MisskeyPages<Endpoint>.AsyncIterator?
            return NetworkPages.Iterator {
                if iterator == nil {
                    // A number a previous release could not map back bounds nothing: the newest page is read.
                    let since = sinceID.flatMap { MisskeyIDs.isUnmappedNumber($0) ? nil : $0 }
                    iterator = network.client.pages(try await makeEndpoint(since), as: account, maxItems: maxPosts).makeAsyncIterator()
                }
                guard let notes = try await Self.mapped({ try await iterator!.next() }) else { return nil }
                return NetworkPage(posts: try await posts(notes), newestID: notes.first?.id)
            }
        }
    }

    /// The person's note as a post the bot may keep (MFM as written), or nil: a renote or a quote, a `followers` or
    /// `specified` note, one with a content warning (unless warnings are copied), one without text.
    func copyable(_ note: MisskeyNote) -> NetworkPost? {
        guard note.renoteId == nil, note.visibility <= .home, let text = note.text, !text.isEmpty else { return nil }
        if note.cw != nil && !copyingWarnings { return nil }
        return post(note, text: text)
    }

    /// A note as the like filter reads it: its MFM's markup taken out; renotes kept only when asked for.
    func readable(_ note: MisskeyNote, keepingReposts: Bool = false) -> NetworkPost? {
        let text = WrittenText.from(mfm: note.text ?? "")
        guard !text.isEmpty || (keepingReposts && note.isPureRenote) else { return nil }
        return post(note, text: text)
    }

    private func post(_ note: MisskeyNote, text: String) -> NetworkPost {
        NetworkPost(
            id: note.id, text: text, authorID: note.userId, authorHandle: note.user.acct, createdAt: note.createdAt,
            replyToUserID: note.reply?.userId, replyToPostID: note.replyId,
            conversationID: nil, isRepost: note.isPureRenote, contentWarning: note.cw)
    }

    /// A mention as the post it is: in the conversation of its thread's root, its author's profile read once for
    /// `#nobot`, its facts kept for the answer.
    private func mention(_ note: MisskeyNote) async throws -> NetworkPost {
        known.remember(MentionFacts(note), of: note.id)
        var post = post(note, text: note.text ?? "")
        post.conversationID = try await threadRoot(of: note) ?? post.id
        post.authorAsksNoBots = try await asksNoBots(note.userId)
        return post
    }

    /// Whether `userID`'s profile says `#nobot` (or `#nobots`), read once a run.
    private func asksNoBots(_ userID: String) async throws -> Bool {
        if let known = known.asksNoBots(userID) { return known }
        let user = try await Self.mapped { try await client.send(ShowUser(userID: userID), as: .bot) }
        let asks = (user.description ?? "").range(of: #"#nobots?\b"#, options: [.regularExpression, .caseInsensitive]) != nil
        known.setAsksNoBots(asks, of: userID)
        return asks
    }

    /// The first note of `note`'s thread: itself when it answers nothing; else its parent's root when known (the bot's
    /// own answers are), else the first ancestor found by reading up the chain (at most 10 notes).
    private func threadRoot(of note: MisskeyNote) async throws -> String? {
        guard var parent = note.replyId else { return note.id }
        var chain: [String] = [note.id]
        for _ in 0..<10 {
            if let root = known.threadRoot(of: parent) {
                for id in chain { known.setThreadRoot(root, of: id) }
                return root
            }
            chain.append(parent)
            let next: MisskeyNote
            do {
                next = try await client.send(ShowNote(noteID: parent), as: .bot)
            } catch MisskeyAPIError.notFound {
                break
            } catch let error as MisskeyAPIError {
                throw Self.networkError(error)
            }
            guard let above = next.replyId else { break }
            parent = above
        }
        let root = chain.last ?? note.id
        for id in chain { known.setThreadRoot(root, of: id) }
        return root
    }

    /// Throws `unpostable` when `text` is longer than the bot's instance takes (`meta`'s `maxNoteTextLength`, read once;
    /// Misskey's 3,000 until it is known).
    private func checkLength(of text: String) async throws {
        let limit = known.maxNoteLength ?? Self.defaultNoteLength
        if known.maxNoteLength == nil { startReadingBotInstance() }
        if text.count > limit { throw NetworkError.unpostable("too long for the bot's instance (\(text.count) of its \(limit) characters)") }
    }

    /// Reads the bot's instance's `meta` in a task of its own, unless it is known or being read.
    private func startReadingBotInstance() {
        guard known.maxNoteLength == nil, known.startReadingMeta() else { return }
        let network = self
        _ = DetachedWork.start {
            defer { network.known.finishReadingMeta() }
            if let meta = try? await network.client.send(GetMeta(), as: .bot) {
                network.known.setMaxNoteLength(meta.maxNoteTextLength ?? Self.defaultNoteLength)
            }
        }
    }

    private static func mapped<Result>(_ call: () async throws -> Result) async throws -> Result {
        do {
            return try await call()
        } catch let error as MisskeyAPIError {
            throw Self.networkError(error)
        } catch let passed as WriteDeadlinePassed {
            throw NetworkError(passed)
        }
    }

    static func networkError(_ error: MisskeyAPIError) -> NetworkError {
        let text = error.description
        switch error {
        case .unauthorized, .forbidden, .notConfigured: return .refused(text, recheckAt: nil)
        case .notFound: return .rejected(text)
        case .rejected(_, _, let code, let detail) where code == "INVALID_PARAM" && detail.contains("text"): return .unpostable(text)
        case .rejected: return .rejected(text)
        case .outcomeUnknown: return .outcomeUnknown(text)
        case .rateLimited, .serverError, .transport, .malformedResponse: return .unavailable(text)
        }
    }
}

extension Optional where Wrapped: Sendable {
    /// `transform` of the value, awaited; nil when there is none.
    func asyncMap<Result>(_ transform: (Wrapped) async throws -> Result) async rethrows -> Result? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}

/// What an answer needs to know of the mention it answers.
private struct MentionFacts: Sendable {
    var visibility: MisskeyVisibility
    var authorAcct: String
    var authorID: String
    var localOnly: Bool

    init(_ note: MisskeyNote) {
        visibility = note.visibility
        authorAcct = note.user.acct
        authorID = note.userId
        localOnly = note.localOnly ?? false
    }
}

/// What the network learned once and keeps for the run: each mention's facts, thread roots, profiles' `#nobot`, the
/// accounts' own ids, the bot's instance's longest note.
private final class KnownNotes: Sendable {
    private let facts = Mutex<[String: MentionFacts]>([:])
    private let roots = Mutex<[String: String]>([:])
    private let noBots = Mutex<[String: Bool]>([:])
    private let users = Mutex<[Account: String]>([:])
    private let longest = Mutex<Int?>(nil)
    private let readingMeta = Mutex(false)

    func remember(_ mention: MentionFacts, of noteID: String) { facts.withLock { $0[noteID] = mention } }
    func facts(of noteID: String) -> MentionFacts? { facts.withLock { $0[noteID] } }
    func threadRoot(of noteID: String) -> String? { roots.withLock { $0[noteID] } }
    func setThreadRoot(_ root: String, of noteID: String) { roots.withLock { $0[noteID] = root } }
    func asksNoBots(_ userID: String) -> Bool? { noBots.withLock { $0[userID] } }
    func setAsksNoBots(_ asks: Bool, of userID: String) { noBots.withLock { $0[userID] = asks } }
    func user(of account: Account) -> String? { users.withLock { $0[account] } }
    func setUser(_ id: String, of account: Account) { users.withLock { $0[account] = id } }
    var maxNoteLength: Int? { longest.withLock { $0 } }
    func setMaxNoteLength(_ length: Int) { longest.withLock { $0 = length } }
    func startReadingMeta() -> Bool {
        readingMeta.withLock { reading in
            defer { reading = true }
            return !reading
        }
    }
    func finishReadingMeta() { readingMeta.withLock { $0 = false } }
}
