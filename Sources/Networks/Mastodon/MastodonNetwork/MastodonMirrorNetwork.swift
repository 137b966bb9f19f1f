import BotClock
public import BotCore
import Crypto
public import Foundation
public import MastodonAPI
import PostText
public import SocialNetwork
import Synchronization

/// Mastodon behind `MirrorNetwork`: the person's statuses and favourites, the bot's mention notifications and home
/// timeline, posting, replying and favouriting, in the bot's words. Free: no accounting, nothing shed.
///
/// Mastodon's ways are kept here: a status's HTML becomes the text its author wrote; a status that was private or
/// direct, or that carried a content warning (unless `copyingWarnings`), is never handed to the bot, so it is never
/// archived, learned or copied; boosts are left out; posts go out `unlisted` by default, and a reply is never more
/// public than the mention it answers; every create carries an `Idempotency-Key`, so a retry never posts twice.
public struct MastodonMirrorNetwork: FreeMirrorNetwork {
    /// The client.
    public let client: MastodonClient
    /// Who may see the bot's posts (`POST_VISIBILITY`).
    public let postVisibility: MastodonVisibility
    /// Whether statuses with a content warning are copied, warning included (`POST_CW`).
    public let copyingWarnings: Bool
    private let mentionVisibility = MentionVisibilities()
    private let known = KnownAnswers()

    /// The network over `client`.
    public init(client: MastodonClient, postVisibility: MastodonVisibility = .unlisted, copyingWarnings: Bool = false) {
        self.client = client
        self.postVisibility = postVisibility
        self.copyingWarnings = copyingWarnings
    }

    public var name: String { "Mastodon" }
    public var capabilities: NetworkCapabilities { Self.capabilities }

    /// What Mastodon offers a mirror, before any client is opened (the bot's instance's own longest status is read as
    /// the daemon starts).
    public static let capabilities = NetworkCapabilities(whyNoLikes: nil, streamsMentions: true, disclosure: .botFlag)

    public func whoAmI(_ account: Account) async throws -> NetworkUser {
        let me = try await Self.mapped { try await client.send(VerifyCredentials(), as: account) }
        // The bot's instance's longest status is read now, beside the start, so that it is known before the first post.
        if account == .bot { startReadingBotInstance() }
        return NetworkUser(id: me.id, handle: me.acct, profile: WrittenText.from(html: me.note), markedAutomated: me.bot)
    }

    public func posts(of userID: String, since sinceID: String?, maxPosts: Int, for work: Work) -> NetworkPages {
        statusPages(GetAccountStatuses(accountID: userID, sinceID: sinceID), as: .human, since: sinceID, maxPosts: maxPosts)
    }

    public func likes(of userID: String, perPage: Int, maxPosts: Int?, for work: Work) -> NetworkPages {
        // The favourites' pages carry favourite ids, not status ids: no newest id to read from next time.
        let pages = client.pages(GetFavourites(limit: perPage), as: .human, maxItems: maxPosts)
        let copyingWarnings = copyingWarnings
        return NetworkPages {
            var iterator = pages.makeAsyncIterator()
            return NetworkPages.Iterator {
                guard let statuses = try await Self.mapped({ try await iterator.next() }) else { return nil }
                return NetworkPage(posts: statuses.compactMap { Self.copyable($0, copyingWarnings: copyingWarnings) }, newestID: nil)
            }
        }
    }

    public func mentions(of userID: String, since sinceID: String?, perPage: Int, for work: Work) -> NetworkPages {
        let network = self
        return Self.newer(client.pages(GetMentionNotifications(sinceID: sinceID, limit: perPage), as: .bot), than: sinceID, id: \.id) { fresh in
            // Mentions are answered whatever their visibility (the reply keeps it); the newest id is the notification's.
            var posts: [NetworkPost] = []
            for notification in fresh { if let post = try await network.mention(notification, of: userID) { posts.append(post) } }
            return NetworkPage(posts: posts, newestID: fresh.first?.id)
        }
    }

    public func openMentionStream(of userID: String) async throws -> NetworkPostStream {
        let stream = try await Self.mapped { try await client.stream(StreamMentionNotifications(), as: .bot) }
        let network = self
        return NetworkPostStream {
            var iterator = stream.makeAsyncIterator()
            return NetworkPostStream.Iterator {
                while let notification = try await Self.mapped({ try await iterator.next() }) {
                    if let post = try await network.mention(notification, of: userID) { return post }
                }
                return nil
            }
        }
    }

    /// A mention notification as the post it mentions (nil for other notifications): standing at the
    /// notification's id, in the conversation of its thread's root, its author named as the person's instance names
    /// them (the person's replies are filed under that id).
    private func mention(_ notification: MastodonNotification, of botID: String) async throws -> NetworkPost? {
        guard notification.type == "mention", let status = notification.status else { return nil }
        mentionVisibility.remember([status])
        var post = status.networkPost()
        post.position = notification.id
        post.conversationID = try await threadRoot(of: status)
        post.authorID = try await personsID(of: status.account, botID: botID)
        return post
    }

    /// The first status of `status`'s thread: itself when it answers nothing, else the first of its ancestors
    /// (one lookup; the status it answers when the thread cannot be read).
    private func threadRoot(of status: MastodonStatus) async throws -> String {
        guard let parent = status.inReplyToID else { return status.id }
        if let root = known.threadRoot(of: parent) { return root }
        do {
            let context = try await client.send(GetStatusContext(statusID: status.id), as: .bot)
            let root = context.ancestors.first?.id ?? parent
            known.setThreadRoot(root, of: parent)
            return root
        } catch MastodonAPIError.notFound {
            return parent
        } catch let error as MastodonAPIError {
            throw Self.networkError(error)
        }
    }

    /// The id the person's instance knows `account` by. The same instance: its id. Another: looked up once by its
    /// address (`user@domain`); someone the person's instance does not know keeps the id the bot's instance gave
    /// (Mastodon's ids are 18-digit numbers from the time they were made, so it names nobody there).
    private func personsID(of account: MastodonAccount, botID: String) async throws -> String {
        guard account.id != botID, let human = client.configuration.accounts[.human], let bot = client.configuration.accounts[.bot],
            human.instance != bot.instance
        else { return account.id }
        if let id = known.personsID(of: account.id) { return id }
        let (botDomain, humanDomain) = (try await domain(of: .bot), try await domain(of: .human))
        let parts = account.acct.split(separator: "@", maxSplits: 1).map(String.init)
        let domain = parts.count == 2 ? parts[1] : botDomain
        let acct = domain.caseInsensitiveCompare(humanDomain) == .orderedSame ? parts[0] : "\(parts[0])@\(domain)"
        let id: String
        do {
            id = try await client.send(LookupAccount(acct: acct), as: .human).id
        } catch MastodonAPIError.notFound {
            id = account.id
        } catch let error as MastodonAPIError {
            throw Self.networkError(error)
        }
        known.setPersonsID(id, of: account.id)
        return id
    }

    /// The domain of `account`'s instance (as addresses write it), read once.
    private func domain(of account: Account) async throws -> String {
        try await instance(of: account).domain
    }

    /// What `account`'s instance says of itself (its domain, its longest status), read once.
    private func instance(of account: Account) async throws -> MastodonInstance {
        if let instance = known.instance(of: account) { return instance }
        let instance = try await Self.mapped { try await client.send(GetInstance(), as: account) }
        known.setInstance(instance, of: account)
        return instance
    }

    /// Throws `unpostable` when `text` is longer than the bot's instance takes, counted as Mastodon counts: each
    /// link as 23 characters, a mention of another instance's account by its username only. The instance's limit is
    /// read once and kept; until it is known, Mastodon's default (500) stands and the limit is read beside the post,
    /// so that a slow or rate-limited instance endpoint never holds a post up (the instance refuses a status too long
    /// for it all the same, and another is picked).
    private func checkLength(of text: String) async throws {
        let limit: Int
        if let known = known.instance(of: .bot) {
            limit = known.configuration.statuses.maxCharacters
        } else {
            limit = Self.defaultStatusLength
            startReadingBotInstance()
        }
        let length = Self.statusLength(of: text)
        if length > limit { throw NetworkError.unpostable("too long for the bot's instance (\(length) of its \(limit) characters)") }
    }

    /// Reads the bot's instance's description in a task of its own, unless it is known or being read.
    private func startReadingBotInstance() {
        guard known.instance(of: .bot) == nil, known.startReadingInstance() else { return }
        let network = self
        _ = DetachedWork.start {
            defer { network.known.finishReadingInstance() }
            _ = try? await network.instance(of: .bot)
        }
    }

    /// The longest status of a Mastodon instance that does not say otherwise.
    public static let defaultStatusLength = 500

    /// A status's length as Mastodon counts it.
    public static func statusLength(of text: String) -> Int {
        let counted = text.replacing(/https?:\/\/[^\s]+/, with: String(repeating: "x", count: 23))
            .replacing(/(@[A-Za-z0-9_]+)@[A-Za-z0-9.\-]+[A-Za-z0-9]/) { $0.1 }
        return counted.count
    }

    public func homeTimeline(
        of userID: String, as account: Account, since sinceID: String?, maxPosts: Int?, perPage: Int,
        includingReposts: Bool, for work: Work
    ) -> NetworkPages {
        Self.newer(client.pages(GetHomeTimeline(sinceID: sinceID, limit: perPage), as: account, maxItems: maxPosts), than: sinceID, id: \.id) {
            fresh in
            NetworkPage(posts: fresh.filter { includingReposts || $0.reblog == nil }.map { $0.networkPost() }, newestID: fresh.first?.id)
        }
    }

    public func postExists(_ postID: String, as account: Account, for work: Work) async throws -> Bool {
        do {
            return try await client.send(GetStatus(statusID: postID), as: account).id == postID
        } catch MastodonAPIError.notFound {
            return false
        } catch let error as MastodonAPIError {
            throw Self.networkError(error)
        }
    }

    public func post(_ text: String, warning: String?, slot: String, for work: Work) async throws -> String? {
        try await checkLength(of: (warning ?? "") + text)
        let key = Self.idempotencyKey("post", slot)
        return try await Self.mapped {
            try await client.send(PostStatus(text: text, visibility: postVisibility, spoilerText: warning, key: key), as: .bot).id
        }
    }

    public func reply(_ text: String, warning: String?, to postID: String, for work: Work) async throws -> String? {
        let mention: MentionFacts
        if let known = mentionVisibility.facts(of: postID) {
            mention = known
        } else {
            let status = try await Self.mapped { try await client.send(GetStatus(statusID: postID), as: .bot) }
            mention = MentionFacts(visibility: status.visibility, authorAcct: status.account.acct)
        }
        // Mastodon notifies only whom a status mentions: the answer starts with its mentioner, as a person's would.
        let addressed = text.localizedCaseInsensitiveContains("@" + mention.authorAcct) ? text : "@\(mention.authorAcct) \(text)"
        try await checkLength(of: (warning ?? "") + addressed)
        // Never more public than the mention: a followers-only mention gets a followers-only reply.
        let visibility = max(postVisibility, mention.visibility)
        let key = Self.idempotencyKey("reply", postID)
        return try await Self.mapped {
            try await client.send(PostStatus(text: addressed, visibility: visibility, inReplyToID: postID, spoilerText: warning, key: key), as: .bot)
                .id
        }
    }

    /// Mastodon's creates carry an `Idempotency-Key`: the client sends a create whose answer was lost again with the
    /// same key, and the instance answers with the one status, so no outcome stays unknown. Read back all the same (the
    /// bot's few newest statuses, free) for a network-neutral caller.
    public func ownRecentPost(_ text: String?, inReplyTo postID: String?, sentSince: Date?, for work: Work) async throws -> String? {
        let bot = try await whoAmI(.bot)
        // A page holds 40 at most (free to read).
        let limit = ReadBack.pageSize(sentSince: sentSince, most: 40)
        let statuses = try await Self.mapped { try await client.send(GetAccountStatuses(accountID: bot.id, sinceID: nil, limit: limit), as: .bot) }
        return statuses.first { status in
            let written = WrittenText.from(html: status.content)
            return (text.map { written == $0 || written.hasSuffix(" " + $0) } ?? true) && (postID == nil || status.inReplyToID == postID)
        }?.id
    }

    public func deletePost(_ postID: String, for work: Work) async throws -> Bool {
        try await Self.mapped {
            do {
                _ = try await client.send(DeleteStatus(statusID: postID), as: .bot)
                return true
            } catch MastodonAPIError.notFound {
                return false
            }
        }
    }

    public func like(_ postID: String, as botID: String, for work: Work) async throws {
        _ = try await Self.mapped { try await client.send(FavouriteStatus(statusID: postID), as: .bot) }
    }

    /// The client's count of calls (nothing is billed, but the status page shows what answers).
    public func endpointCalls() -> [EndpointCalls] {
        client.callCounts.map {
            EndpointCalls(endpoint: $0.endpoint, account: $0.caller, calls: $0.calls, failures: $0.failures, lastSuccessAt: $0.lastSuccessAt)
        }
    }

    // MARK: - Mastodon in the bot's words

    /// The person's statuses that the bot may copy, as pages; the newest id is the newest status read, copied or not.
    private func statusPages<Endpoint: MastodonPagedEndpoint>(
        _ endpoint: Endpoint, as account: Account, since sinceID: String?,
        maxPosts: Int?
    ) -> NetworkPages where Endpoint.Item == MastodonStatus {
        let copyingWarnings = copyingWarnings
        return Self.newer(client.pages(endpoint, as: account, maxItems: maxPosts), than: sinceID, id: \.id) { fresh in
            NetworkPage(posts: fresh.compactMap { Self.copyable($0, copyingWarnings: copyingWarnings) }, newestID: fresh.first?.id)
        }
    }

    /// The pages of items newer than `sinceID` (all when nil), each made a `NetworkPage` by `page`. Instances carry
    /// no `since_id` into a `next` link: the page that reaches it is the last one read, and what is not newer is
    /// dropped; a page short of `limit` items held all that is newer.
    private static func newer<Endpoint: MastodonPagedEndpoint>(
        _ pages: MastodonPages<Endpoint>, than sinceID: String?,
        id: @escaping @Sendable (Endpoint.Item) -> String,
        page: @escaping @Sendable ([Endpoint.Item]) async throws -> NetworkPage
    ) -> NetworkPages {
        NetworkPages {
            var iterator = pages.makeAsyncIterator()
            var reachedSince = false
            return NetworkPages.Iterator {
                guard !reachedSince, let items = try await Self.mapped({ try await iterator.next() }) else { return nil }
                let fresh = items.filter { Self.isNewer(id($0), than: sinceID) }
                reachedSince = fresh.count < items.count || (sinceID != nil && items.count < pages.endpoint.limit)
                return try await page(fresh)
            }
        }
    }

    /// The status as a post the bot may keep, or nil: a boost, a private or direct status, or one with a content
    /// warning (unless warnings are copied, when it keeps its warning and the copy is posted behind it).
    static func copyable(_ status: MastodonStatus, copyingWarnings: Bool) -> NetworkPost? {
        guard status.reblog == nil, status.visibility <= .unlisted else { return nil }
        if !status.spoilerText.isEmpty && !copyingWarnings { return nil }
        return status.networkPost()
    }

    /// Whether `id` is newer than `other` (anything is, than nothing): Mastodon's ids are decimal numbers that grow with time.
    public static func isNewer(_ id: String, than other: String?) -> Bool { PostID.isNewer(id, than: other) }

    /// An `Idempotency-Key` from what the create is for (the slot, the mention): sent again, after a lost answer or a
    /// restart, it is the same status.
    static func idempotencyKey(_ parts: String...) -> String {
        let digest = SHA256.hash(data: Data(parts.joined(separator: "\u{1F}").utf8))
        return "mirror_bot-" + digest.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    private static func mapped<Result>(_ call: () async throws -> Result) async throws -> Result {
        do {
            return try await call()
        } catch let error as MastodonAPIError {
            throw Self.networkError(error)
        } catch let passed as WriteDeadlinePassed {
            throw NetworkError(passed)
        }
    }

    private static func networkError(_ error: MastodonAPIError) -> NetworkError {
        let text = error.description
        switch error {
        case .unauthorized, .forbidden, .notConfigured: return .refused(text, recheckAt: nil)
        case .notFound: return .rejected(text)
        case .rejected(_, let status, _) where status == 422 && text.localizedCaseInsensitiveContains("character limit"):
            return .unpostable(text)
        case .rejected, .oauthRefused: return .rejected(text)
        case .outcomeUnknown: return .outcomeUnknown(text)
        case .rateLimited, .serverError, .transport, .malformedResponse: return .unavailable(text)
        }
    }
}

extension MastodonStatus {
    /// The status in the bot's form: its HTML as the text its author wrote, its content warning, its author, and
    /// what it answers.
    public func networkPost() -> NetworkPost {
        NetworkPost(
            id: id, text: WrittenText.from(html: content), authorID: account.id,
            authorHandle: account.acct, createdAt: createdAt, replyToUserID: inReplyToAccountID,
            replyToPostID: inReplyToID, conversationID: nil, isRepost: reblog != nil,
            authorAsksNoBots: WrittenText.from(html: account.note).localizedCaseInsensitiveContains("#nobot"),
            contentWarning: spoilerText.isEmpty ? nil : spoilerText)
    }
}

/// What a reply needs to know of the mention it answers.
private struct MentionFacts: Sendable {
    /// Who may see the mention: its reply is never more public.
    var visibility: MastodonVisibility
    /// Its author's address as the bot's instance writes it, to address the reply to them.
    var authorAcct: String
}

/// The facts of each mention read (a lookup when one is not known).
private final class MentionVisibilities: Sendable {
    private let known = Mutex<[String: MentionFacts]>([:])

    func remember(_ statuses: [MastodonStatus]) {
        known.withLock { for status in statuses { $0[status.id] = MentionFacts(visibility: status.visibility, authorAcct: status.account.acct) } }
    }
    func facts(of statusID: String) -> MentionFacts? { known.withLock { $0[statusID] } }
}

/// What the network learned once and keeps for the run: each instance's description, the thread root of a status,
/// the person's instance's id for an account of the bot's.
private final class KnownAnswers: Sendable {
    private let instances = Mutex<[Account: MastodonInstance]>([:])
    private let roots = Mutex<[String: String]>([:])
    private let personsIDs = Mutex<[String: String]>([:])

    func instance(of account: Account) -> MastodonInstance? { instances.withLock { $0[account] } }
    func setInstance(_ instance: MastodonInstance, of account: Account) { instances.withLock { $0[account] = instance } }
    func threadRoot(of statusID: String) -> String? { roots.withLock { $0[statusID] } }
    func setThreadRoot(_ root: String, of statusID: String) { roots.withLock { $0[statusID] = root } }
    func personsID(of accountID: String) -> String? { personsIDs.withLock { $0[accountID] } }
    func setPersonsID(_ id: String, of accountID: String) { personsIDs.withLock { $0[accountID] = id } }

    private let readingInstance = Mutex(false)
    /// Whether the caller is the one to read the bot's instance now (no other read is under way).
    func startReadingInstance() -> Bool {
        readingInstance.withLock { reading in
            defer { reading = true }
            return !reading
        }
    }
    /// The read of the bot's instance ended.
    func finishReadingInstance() { readingInstance.withLock { $0 = false } }
}
