public import BotConfiguration
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
public struct MastodonMirrorNetwork: MirrorNetwork {
    /// The client.
    public let client: MastodonClient
    /// Who may see the bot's posts (`POST_VISIBILITY`).
    public let postVisibility: MastodonVisibility
    /// Whether statuses with a content warning are copied, warning included (`POST_CW`).
    public let copyingWarnings: Bool
    private let mentionVisibility = MentionVisibilities()

    /// The network over `client`.
    public init(client: MastodonClient, postVisibility: MastodonVisibility = .unlisted, copyingWarnings: Bool = false) {
        self.client = client; self.postVisibility = postVisibility; self.copyingWarnings = copyingWarnings
    }

    public var name: String { "Mastodon" }
    public var capabilities: NetworkCapabilities { NetworkCapabilities(whyNoLikes: nil) }

    public func whoAmI(_ account: Account) async throws -> NetworkUser {
        let me = try await Self.mapped { try await client.send(VerifyCredentials(), as: account) }
        return NetworkUser(id: me.id, handle: me.acct)
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
        let pages = client.pages(GetMentionNotifications(sinceID: sinceID, limit: perPage), as: .bot)
        let visibility = mentionVisibility
        return NetworkPages {
            var iterator = pages.makeAsyncIterator()
            return NetworkPages.Iterator {
                guard let notifications = try await Self.mapped({ try await iterator.next() }) else { return nil }
                let fresh = notifications.filter { Self.isNewer($0.id, than: sinceID) }
                let statuses = fresh.compactMap(\.status)
                visibility.remember(statuses)
                // Mentions are answered whatever their visibility (the reply keeps it); the newest id is the notification's.
                return NetworkPage(posts: statuses.map { $0.networkPost() }, newestID: fresh.first?.id)
            }
        }
    }

    public func homeTimeline(of userID: String, as account: Account, since sinceID: String?, maxPosts: Int?, perPage: Int,
                             includingReposts: Bool, for work: Work) -> NetworkPages {
        let pages = client.pages(GetHomeTimeline(sinceID: sinceID, limit: perPage), as: account, maxItems: maxPosts)
        return NetworkPages {
            var iterator = pages.makeAsyncIterator()
            return NetworkPages.Iterator {
                guard let statuses = try await Self.mapped({ try await iterator.next() }) else { return nil }
                let fresh = statuses.filter { Self.isNewer($0.id, than: sinceID) }
                let posts = fresh.filter { includingReposts || $0.reblog == nil }.map { $0.networkPost() }
                return NetworkPage(posts: posts, newestID: fresh.first?.id)
            }
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

    public func post(_ text: String, slot: String, for work: Work) async throws -> String? {
        let key = Self.idempotencyKey("post", slot)
        return try await Self.mapped { try await client.send(PostStatus(text: text, visibility: postVisibility, key: key), as: .bot).id }
    }

    public func reply(_ text: String, to postID: String, for work: Work) async throws -> String? {
        let mention: MastodonVisibility
        if let known = mentionVisibility.visibility(of: postID) {
            mention = known
        } else {
            mention = try await Self.mapped { try await client.send(GetStatus(statusID: postID), as: .bot).visibility }
        }
        // Never more public than the mention: a followers-only mention gets a followers-only reply.
        let visibility = max(postVisibility, mention)
        let key = Self.idempotencyKey("reply", postID)
        return try await Self.mapped {
            try await client.send(PostStatus(text: text, visibility: visibility, inReplyToID: postID, key: key), as: .bot).id
        }
    }

    public func like(_ postID: String, as botID: String, for work: Work) async throws {
        _ = try await Self.mapped { try await client.send(FavouriteStatus(statusID: postID), as: .bot) }
    }

    /// Mastodon never refuses favourites as a whole: nothing to check.
    public func checkLikes(as botID: String, on postID: String, for work: Work) async throws {}
    /// Nothing is refused for good.
    public func refusal(of capability: NetworkCapability, for account: Account) -> NetworkRefusal? { nil }
    /// Free: nothing to keep aside.
    public func keepAsideForPosts(at dates: [Date]) {}
    /// Free: no accounting.
    public var accounting: (any NetworkAccounting)? { nil }
    /// Free.
    public func mostItCosts(_ reading: PlannedReading) -> NetworkCost? { nil }

    // MARK: - Mastodon in the bot's words

    /// The person's statuses that the bot may copy, as pages; the newest id is the newest status read, copied or not.
    private func statusPages<Endpoint: MastodonPagedEndpoint>(_ endpoint: Endpoint, as account: Account, since sinceID: String?,
                                                              maxPosts: Int?) -> NetworkPages where Endpoint.Item == MastodonStatus {
        let pages = client.pages(endpoint, as: account, maxItems: maxPosts)
        let copyingWarnings = copyingWarnings
        return NetworkPages {
            var iterator = pages.makeAsyncIterator()
            var reachedSince = false
            return NetworkPages.Iterator {
                guard !reachedSince, let statuses = try await Self.mapped({ try await iterator.next() }) else { return nil }
                // A `next` link may reach past `since_id`: what is not newer is not read, and no older page is asked.
                let fresh = statuses.filter { Self.isNewer($0.id, than: sinceID) }
                reachedSince = fresh.count < statuses.count
                return NetworkPage(posts: fresh.compactMap { Self.copyable($0, copyingWarnings: copyingWarnings) }, newestID: fresh.first?.id)
            }
        }
    }

    /// The status as a post the bot may keep, or nil: a boost, a private or direct status, or one with a content
    /// warning (unless warnings are copied, when the warning goes first, as its own line).
    static func copyable(_ status: MastodonStatus, copyingWarnings: Bool) -> NetworkPost? {
        guard status.reblog == nil, status.visibility <= .unlisted else { return nil }
        if !status.spoilerText.isEmpty && !copyingWarnings { return nil }
        return status.networkPost()
    }

    /// Whether `id` is newer than `other` (anything is, than nothing): Mastodon's ids are decimal numbers that grow with time.
    static func isNewer(_ id: String, than other: String?) -> Bool {
        guard let other else { return true }
        return id.count != other.count ? id.count > other.count : id > other
    }

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
        }
    }

    private static func networkError(_ error: MastodonAPIError) -> NetworkError {
        let text = error.description
        switch error {
        case .unauthorized, .forbidden, .notConfigured: return .refused(text, recheckAt: nil)
        case .notFound, .rejected: return .rejected(text)
        case .outcomeUnknown: return .outcomeUnknown(text)
        case .rateLimited, .serverError, .transport, .malformedResponse: return .unavailable(text)
        }
    }
}

extension MastodonStatus {
    /// The status in the bot's form: its HTML as the text its author wrote (a content warning, when there is one,
    /// first on its own line), its author, and what it answers.
    public func networkPost() -> NetworkPost {
        let text = WrittenText.from(html: content)
        return NetworkPost(id: id, text: spoilerText.isEmpty ? text : spoilerText + "\n\n" + text, authorID: account.id,
                           authorHandle: account.acct, createdAt: createdAt, replyToUserID: inReplyToAccountID,
                           replyToPostID: inReplyToID, conversationID: nil, isRepost: reblog != nil,
                           authorAsksNoBots: WrittenText.from(html: account.note).localizedCaseInsensitiveContains("#nobot"))
    }
}

/// The visibility of each mention read, so that its reply is never more public (a lookup when it is not known).
private final class MentionVisibilities: Sendable {
    private let known = Mutex<[String: MastodonVisibility]>([:])

    func remember(_ statuses: [MastodonStatus]) { known.withLock { for status in statuses { $0[status.id] = status.visibility } } }
    func visibility(of statusID: String) -> MastodonVisibility? { known.withLock { $0[statusID] } }
}
