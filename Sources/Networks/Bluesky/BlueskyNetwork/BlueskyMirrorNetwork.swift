public import BlueskyAPI
public import BotClock
public import BotCore
public import Foundation
import PostText
public import SocialNetwork
import Synchronization

/// Bluesky behind `MirrorNetwork`: the person's posts and likes, the bot's mentions and replies (notifications) and
/// its timeline, posting, replying and liking, in the bot's words. Free: no accounting, nothing shed.
///
/// Bluesky's ways are kept here:
/// - ids are made from record keys and DIDs (`BlueskyIDs`); an account's rows stored by the releases that hashed DIDs
///   are found under its former id too (`formerAccountIDs`);
/// - reposts, quotes of other posts, pinned items, posts labelled by others and (unless `copyingLabels`, `POST_CW`)
///   posts the person labelled (`!warn`, `porn`, …) are never handed to the bot, so they are never archived, learned
///   or copied; with `copyingLabels` a labelled post keeps its labels as its warning, and its copy carries them;
/// - a post's links, mentions and tags get facets in UTF-8 bytes, a mention only when the handle is an account;
/// - every write goes to a record key made from what it is for (`putRecord`): a slot's post, a mention's answer,
///   a like of a post: however often it is sent, there is one record, so no outcome stays unknown;
/// - a reply carries its thread's root and its parent as strong refs.
public struct BlueskyMirrorNetwork: FreeMirrorNetwork {
    /// The client.
    public let client: BlueskyClient
    /// The languages the bot's posts say they are in (the person's; `ja` when their posts say so).
    public let languages: [String]
    /// `POST_CW`: the person's posts with self-labels (`!warn`, `porn`, …) are learned and copied, each with its labels.
    public let copyingLabels: Bool
    private let clock: any BotClock
    private let known = KnownRecords()

    /// The longest post, in graphemes and in UTF-8 bytes (`app.bsky.feed.post#text`).
    public static let maxGraphemes = 300, maxBytes = 3_000

    /// The network over `client`; posts say they are in `languages`; labelled posts are copied with `copyingLabels`.
    public init(client: BlueskyClient, languages: [String] = [], copyingLabels: Bool = false, clock: any BotClock = SystemBotClock()) {
        self.client = client
        self.languages = languages
        self.copyingLabels = copyingLabels
        self.clock = clock
    }

    public var name: String { "Bluesky" }
    public var capabilities: NetworkCapabilities { Self.capabilities }

    /// What Bluesky offers a mirror, before any client is opened.
    public static var capabilities: NetworkCapabilities {
        NetworkCapabilities(whyNoLikes: BlueskyNetworkModule.whyNoLikes, disclosure: .botLabel, postLength: .characters(maxGraphemes))
    }

    public func whoAmI(_ account: Account) async throws -> NetworkUser {
        let did = try await did(of: account)
        let profile = try await Self.mapped { try await client.send(GetProfile(actor: did), as: account == .bot ? .bot : nil) }
        return NetworkUser(
            id: did, handle: profile.handle, profile: profile.description ?? "",
            markedAutomated: (profile.labels ?? []).contains { $0.val == "bot" && $0.neg != true }, networkAccount: did)
    }

    /// The DID of `account`: the bot's from its session, the person's resolved from their handle (once).
    public func did(of account: Account) async throws -> String {
        if let did = known.did(of: account) { return did }
        let did: String
        if account == .bot {
            did = try await Self.mapped { try await client.session(of: .bot).did }
        } else {
            guard let handle = client.configuration.accounts[.human]?.handle else {
                throw NetworkError.refused("HUMAN_BLUESKY_HANDLE is not set: the person's posts cannot be read", recheckAt: nil)
            }
            guard let resolved = try await Self.mapped({ try await client.did(ofHandle: handle) }) else {
                throw NetworkError.refused("no Bluesky account has the handle @\(handle) (HUMAN_BLUESKY_HANDLE)", recheckAt: nil)
            }
            did = resolved
        }
        known.setDID(did, of: account)
        return did
    }

    public func posts(of userID: String, since sinceID: String?, maxPosts: Int, for work: Work) -> NetworkPages {
        let network = self
        return feedPages(maxPosts: maxPosts, since: sinceID, sessionFor: nil) { cursor, limit in
            let did = try await network.did(of: .human)
            return try await network.client.send(GetAuthorFeed(actor: did, limit: limit, cursor: cursor, filter: .postsWithReplies), as: nil)
        } keep: { item in
            network.known.noteLanguages(item.post.record.langs)
            return Self.copyable(item, copyingLabels: network.copyingLabels)
        }
    }

    public func likes(of userID: String, perPage: Int, maxPosts: Int?, for work: Work) -> NetworkPages {
        let network = self
        return feedPages(maxPosts: maxPosts, since: nil, sessionFor: .human) { cursor, limit in
            let did = try await network.did(of: .human)
            return try await network.client.send(GetActorLikes(actor: did, limit: min(perPage, limit), cursor: cursor), as: .human)
        } keep: {
            Self.copyable($0, copyingLabels: false)
        }
    }

    public func mentions(of userID: String, since sinceID: String?, perPage: Int, for work: Work) -> NetworkPages {
        let network = self
        return NetworkPages {
            var cursor: String?
            var done = false
            var first = true
            return NetworkPages.Iterator {
                guard !done else { return nil }
                let page = try await Self.mapped {
                    try await network.client.send(
                        ListNotifications(reasons: ["mention", "reply"], limit: min(100, max(1, perPage)), cursor: cursor), as: .bot)
                }
                var posts: [NetworkPost] = []
                for notification in page.notifications {
                    guard let post = network.mention(notification) else { continue }
                    if !PostID.isNewer(post.id, than: sinceID) {
                        done = true
                        break
                    }
                    posts.append(post)
                }
                let newest =
                    first ? page.notifications.compactMap { BlueskyIDs.postID(of: $0.uri) }.max { PostID.isNewer($1, than: $0) } : nil
                first = false
                cursor = page.cursor
                if cursor == nil || page.notifications.isEmpty { done = true }
                return NetworkPage(posts: posts, newestID: newest)
            }
        }
    }

    /// A notification of a mention or reply as the post it is, remembered for the answer; nil for another kind, or
    /// a record the bot cannot answer.
    private func mention(_ notification: BlueskyNotification) -> NetworkPost? {
        guard ["mention", "reply"].contains(notification.reason), let record = notification.record,
            let id = BlueskyIDs.postID(of: notification.uri)
        else { return nil }
        let ref = StrongRef(uri: notification.uri, cid: notification.cid)
        known.setMention(MentionRecord(ref: ref, root: record.reply?.root ?? ref), for: id)
        return NetworkPost(
            id: id, text: record.text, authorID: notification.author.did, authorHandle: notification.author.handle,
            createdAt: ISO8601Time.date(from: record.createdAt),
            replyToUserID: record.reply.flatMap { ATURI($0.parent.uri) }
                .map(\.repo),
            replyToPostID: record.reply.flatMap { BlueskyIDs.postID(of: $0.parent.uri) },
            conversationID: BlueskyIDs.postID(of: (record.reply?.root ?? ref).uri),
            authorAsksNoBots: (notification.author.description ?? "").localizedCaseInsensitiveContains("#nobot"))
    }

    public func homeTimeline(
        of userID: String, as account: Account, since sinceID: String?, maxPosts: Int?, perPage: Int,
        includingReposts: Bool, for work: Work
    ) -> NetworkPages {
        let network = self
        return feedPages(maxPosts: maxPosts, since: sinceID, sessionFor: account) { cursor, limit in
            try await network.client.send(GetTimeline(limit: min(perPage, limit), cursor: cursor), as: account)
        } keep: { item in
            guard includingReposts || !item.isRepost, let id = BlueskyIDs.postID(of: item.post.uri) else { return nil }
            network.known.setTimelinePost(item.post.ref, for: id)
            return Self.networkPost(item.post, isRepost: item.isRepost)
        }
    }

    public func postExists(_ postID: String, as account: Account, for work: Work) async throws -> Bool {
        let did = try await did(of: account)
        guard let uri = BlueskyIDs.uri(ofPost: postID, by: did) else { return false }
        let found = try await Self.mapped { try await client.send(GetPosts(uris: [uri]), as: nil) }
        return found.posts.contains { $0.uri == uri }
    }

    /// `getPosts` with 25 URIs a call.
    public func existingPosts(_ postIDs: [String], as account: Account, for work: Work) async throws -> Set<String> {
        let did = try await did(of: account)
        let uris = postIDs.compactMap { id in BlueskyIDs.uri(ofPost: id, by: did).map { (id, $0) } }
        var present: Set<String> = []
        for start in stride(from: 0, to: uris.count, by: GetPosts.maxURIs) {
            let batch = uris[start..<min(start + GetPosts.maxURIs, uris.count)]
            let found = try await Self.mapped { try await client.send(GetPosts(uris: batch.map(\.1)), as: nil) }
            let shown = Set(found.posts.map(\.uri))
            for (id, uri) in batch where shown.contains(uri) { present.insert(id) }
        }
        return present
    }

    public func post(_ text: String, warning: String?, slot: String, for work: Work) async throws -> String? {
        let record = try await postRecord(text, reply: nil, warning: warning)
        let rkey = BlueskyIDs.recordKey(forSlot: slot)
        let bot = try await did(of: .bot)
        let written = try await Self.mapped {
            try await client.send(PutRecord(repo: bot, collection: PostRecord.type, rkey: rkey.description, record: record), as: .bot)
        }
        return BlueskyIDs.postID(of: written.uri)
    }

    public func reply(_ text: String, warning: String?, to postID: String, for work: Work) async throws -> String? {
        guard let mention = known.mention(postID) else {
            throw NetworkError.rejected("the mention \(postID) was not read in this run: its thread is not known")
        }
        let record = try await postRecord(text, reply: ReplyRef(root: mention.root, parent: mention.ref), warning: warning)
        let rkey = BlueskyIDs.recordKey(answering: mention.ref.uri, mentionID: postID)
        let bot = try await did(of: .bot)
        let written = try await Self.mapped {
            try await client.send(PutRecord(repo: bot, collection: PostRecord.type, rkey: rkey.description, record: record), as: .bot)
        }
        return BlueskyIDs.postID(of: written.uri)
    }

    /// The self-labels a post is written with, from the warning of what it copies (`POST_CW`): the person's own
    /// labels as they were (`!warn`, `porn, nudity`); any other warning (a Mastodon status's, say) as `!warn`, which
    /// hides the post behind a warning. Without `POST_CW` nothing with a warning is posted.
    func selfLabels(for warning: String?) throws -> SelfLabels? {
        guard let warning else { return nil }
        guard copyingLabels else {
            throw NetworkError.unpostable("behind a content warning (\"\(warning)\"): the bot labels its posts on Bluesky only with POST_CW=true")
        }
        let values = warning.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return SelfLabels(values: values.allSatisfy(Self.postLabels.contains) && !values.isEmpty ? values : ["!warn"])
    }

    /// The self-labels a post may carry (`com.atproto.label.defs`' values for content).
    static let postLabels: Set<String> = ["!warn", "porn", "sexual", "nudity", "graphic-media"]

    /// The record of a post of `text`: checked against the lexicon's limits, its facets found, its languages set,
    /// labelled as `warning` says.
    func postRecord(_ text: String, reply: ReplyRef?, warning: String? = nil) async throws -> PostRecord {
        let labels = try selfLabels(for: warning)
        if text.count > Self.maxGraphemes || text.utf8.count > Self.maxBytes {
            throw NetworkError.unpostable(
                "too long for Bluesky (\(text.count) of its \(Self.maxGraphemes) graphemes, \(text.utf8.count) of its \(Self.maxBytes) bytes)")
        }
        let client = client
        let known = known
        let facets = try await Self.mapped {
            try await RichText.facets(of: text) { handle in
                if let did = known.handleDID(handle) { return did }
                let did = try await client.did(ofHandle: handle)
                known.setHandleDID(did, for: handle)
                return did
            }
        }
        let langs = languages.isEmpty ? known.languages(orFrom: text) : languages
        return PostRecord(
            text: text, createdAt: ISO8601Time.string(from: clock.now()), langs: langs.isEmpty ? nil : langs,
            facets: facets.isEmpty ? nil : facets, reply: reply, labels: labels)
    }

    /// Every write of the bot goes to a record key of its own choosing: a lost answer is sent again and makes the same
    /// record, so the outcome is never unknown. Read back all the same (the bot's few newest posts) for a
    /// network-neutral caller.
    public func ownRecentPost(_ text: String?, inReplyTo postID: String?, sentSince: Date?, for work: Work) async throws -> String? {
        let bot = try await did(of: .bot)
        let limit = ReadBack.pageSize(sentSince: sentSince)
        let page = try await Self.mapped { try await client.send(GetAuthorFeed(actor: bot, limit: limit, filter: .postsWithReplies), as: nil) }
        return page.feed.first { item in
            !item.isRepost && (text.map { item.post.record.text == $0 } ?? true)
                && (postID == nil || item.post.record.reply.flatMap { BlueskyIDs.postID(of: $0.parent.uri) } == postID)
        }.flatMap { BlueskyIDs.postID(of: $0.post.uri) }
    }

    public func deletePost(_ postID: String, for work: Work) async throws -> Bool {
        let bot = try await did(of: .bot)
        guard let uri = BlueskyIDs.uri(ofPost: postID, by: bot), let parts = ATURI(uri) else { return false }
        // Deleting a record that is not there succeeds: whether it was there is asked first.
        do {
            _ = try await client.send(GetRecord(repo: bot, collection: PostRecord.type, rkey: parts.rkey), as: nil)
        } catch let error as BlueskyAPIError where error.isNotFound {
            return false
        } catch let error as BlueskyAPIError {
            throw Self.networkError(error)
        }
        _ = try await Self.mapped { try await client.send(DeleteRecord(repo: bot, collection: PostRecord.type, rkey: parts.rkey), as: .bot) }
        return true
    }

    public func like(_ postID: String, as botID: String, for work: Work) async throws {
        guard let subject = known.timelinePost(postID) else { throw NetworkError.rejected("the post \(postID) was not read in this run") }
        let bot = try await did(of: .bot)
        let rkey = BlueskyIDs.recordKey(liking: subject.uri, postID: postID)
        let like = LikeRecord(subject: subject, createdAt: ISO8601Time.string(from: clock.now()))
        _ = try await Self.mapped {
            try await client.send(
                PutRecord(
                    repo: bot, collection: LikeRecord.type, rkey: rkey.description,
                    record: like), as: .bot)
        }
    }

    /// The id the releases before text ids gave a DID (`BlueskyIDs.formerUserID`), under which their rows name it.
    public func formerAccountIDs(of id: String) -> [String] { id.hasPrefix("did:") ? [BlueskyIDs.formerUserID(of: id)] : [] }

    /// The client's count of calls (nothing is billed, but the status page shows what answers).
    public func endpointCalls() -> [EndpointCalls] {
        client.callCounts.map {
            EndpointCalls(endpoint: $0.endpoint, account: $0.caller, calls: $0.calls, failures: $0.failures, lastSuccessAt: $0.lastSuccessAt)
        }
    }

    // MARK: - Bluesky in the bot's words

    /// Pages of a feed, newest first, each item kept or left out by `keep`, until `maxPosts` items were read, an item
    /// not newer than `sinceID`, or the last page. The newest id is the first page's newest post's, kept or not.
    private func feedPages(
        maxPosts: Int?, since sinceID: String?, sessionFor account: Account?,
        read: @escaping @Sendable (_ cursor: String?, _ limit: Int) async throws -> FeedPage,
        keep: @escaping @Sendable (FeedViewPost) -> NetworkPost?
    ) -> NetworkPages {
        NetworkPages {
            var cursor: String?
            var done = false
            var first = true
            var count = 0
            return NetworkPages.Iterator {
                guard !done else { return nil }
                let limit = min(100, max(1, (maxPosts ?? 100) - count))
                let page = try await Self.mapped { try await read(cursor, limit) }
                var posts: [NetworkPost] = []
                // Pinned posts and reposts stand where they were put, not by their own time: they do not end the read.
                for item in page.feed {
                    count += 1
                    guard let id = BlueskyIDs.postID(of: item.post.uri) else { continue }
                    if item.reason == nil, !PostID.isNewer(id, than: sinceID) {
                        done = true
                        break
                    }
                    if let post = keep(item) { posts.append(post) }
                    if let maxPosts, count >= maxPosts {
                        done = true
                        break
                    }
                }
                let newest = first ? page.feed.filter { $0.reason == nil }.compactMap { BlueskyIDs.postID(of: $0.post.uri) }.first : nil
                first = false
                cursor = page.cursor
                if cursor == nil || page.feed.isEmpty { done = true }
                return NetworkPage(posts: posts, newestID: newest)
            }
        }
    }

    /// The post as one the bot may keep, or nil: a repost or pinned item, a quote of another post, a post with a label.
    /// The feed item as a post the bot may keep, or nil: a repost, a quote, a post labelled by someone else (a
    /// moderation service), or one the author labelled (unless `copyingLabels`: then it keeps its labels as its
    /// warning, and the copy is posted with them).
    static func copyable(_ item: FeedViewPost, copyingLabels: Bool) -> NetworkPost? {
        let author = item.post.author.did
        let own = (item.post.record.labels?.values ?? []).map(\.val)
        guard item.reason == nil, item.post.record.embed?.isQuote != true, own.isEmpty || copyingLabels,
            !(item.post.labels ?? []).contains(where: { $0.neg != true && !($0.src == author && own.contains($0.val)) })
        else { return nil }
        var post = networkPost(item.post, isRepost: false)
        if !own.isEmpty { post?.contentWarning = own.joined(separator: ", ") }
        return post
    }

    static func networkPost(_ view: PostView, isRepost: Bool) -> NetworkPost? {
        guard let id = BlueskyIDs.postID(of: view.uri) else { return nil }
        let parent = view.record.reply?.parent
        return NetworkPost(
            id: id, text: view.record.textWithFullLinks, authorID: view.author.did, authorHandle: view.author.handle,
            createdAt: ISO8601Time.date(from: view.record.createdAt),
            replyToUserID: parent.flatMap { ATURI($0.uri) }.map(\.repo),
            replyToPostID: parent.flatMap { BlueskyIDs.postID(of: $0.uri) },
            conversationID: BlueskyIDs.postID(of: (view.record.reply?.root ?? view.ref).uri), isRepost: isRepost)
    }

    static func mapped<Result>(_ call: () async throws -> Result) async throws -> Result {
        do {
            return try await call()
        } catch let error as BlueskyAPIError {
            throw Self.networkError(error)
        } catch let passed as WriteDeadlinePassed {
            throw NetworkError(passed)
        }
    }

    static func networkError(_ error: BlueskyAPIError) -> NetworkError {
        let text = error.description
        switch error {
        case .loginRefused, .unauthorized, .notConfigured, .grantRefused, .grantLapsed: return .refused(text, recheckAt: nil)
        case .rejected(_, _, let name, _) where name == "InvalidRecord": return .unpostable(text)
        case .rejected: return .rejected(text)
        case .outcomeUnknown: return .outcomeUnknown(text)
        case .rateLimited, .serverError, .transport, .malformedResponse: return .unavailable(text)
        }
    }
}

/// A like record (`app.bsky.feed.like`).
struct LikeRecord: Encodable, Sendable {
    static let type = "app.bsky.feed.like"
    var subject: StrongRef
    var createdAt: String
    enum CodingKeys: String, CodingKey {
        case type = "$type"
        case subject, createdAt
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.type, forKey: .type)
        try container.encode(subject, forKey: .subject)
        try container.encode(createdAt, forKey: .createdAt)
    }
}

/// A mention read: itself and its thread's root, for the answer's refs.
struct MentionRecord: Sendable {
    var ref: StrongRef
    var root: StrongRef
}

/// What the network learned in this run: DIDs of the accounts and of handles, the mentions read (for their
/// answers' refs), the timeline's posts (for likes' refs), the person's languages.
final class KnownRecords: Sendable {
    private struct State {
        var dids: [Account: String] = [:]
        var handles: [String: String?] = [:]
        var mentions: [String: MentionRecord] = [:]
        var timeline: [String: StrongRef] = [:]
        var languages: [String: Int] = [:]
    }
    private let state = Mutex(State())

    func did(of account: Account) -> String? { state.withLock { $0.dids[account] } }
    func setDID(_ did: String, of account: Account) { state.withLock { $0.dids[account] = did } }
    func handleDID(_ handle: String) -> String? { state.withLock { $0.handles[handle] ?? nil } }
    func setHandleDID(_ did: String?, for handle: String) { state.withLock { $0.handles[handle] = .some(did) } }
    func mention(_ id: String) -> MentionRecord? { state.withLock { $0.mentions[id] } }
    func setMention(_ mention: MentionRecord, for id: String) { state.withLock { $0.mentions[id] = mention } }
    func timelinePost(_ id: String) -> StrongRef? { state.withLock { $0.timeline[id] } }
    func setTimelinePost(_ ref: StrongRef, for id: String) { state.withLock { $0.timeline[id] = ref } }
    /// Counts the languages of a post of the person's.
    func noteLanguages(_ langs: [String]?) { state.withLock { for lang in langs ?? [] { $0.languages[lang, default: 0] += 1 } } }

    /// The person's most frequent language, when their posts said; else `ja` for a text with kana or kanji.
    func languages(orFrom text: String) -> [String] {
        if let top = state.withLock({ $0.languages.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key }) { return [top] }
        let japanese = text.unicodeScalars.contains { (0x3040...0x30FF).contains($0.value) || (0x4E00...0x9FFF).contains($0.value) }
        return japanese ? ["ja"] : []
    }
}
