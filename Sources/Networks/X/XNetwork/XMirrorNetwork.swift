import BotClock
public import BotCore
public import Foundation
import PostText
public import SocialNetwork
import Synchronization
public import XAPI

/// X behind the network protocol: each of the bot's needs as the X API v2 call that serves it, with X's specifics
/// (OAuth 1.0a, `since_id`, fields and expansions, paging, the price list and the budget, refusals) kept in here.
public struct XMirrorNetwork: MirrorNetwork {
    /// The X client (its meter, budget and refusals are this network's accounting).
    public let client: XClient
    /// Each account's user id, once asked (`whoAmI`): a user read costs $0.010.
    private let knownUsers = KnownUsers()

    /// X through `client`.
    public init(client: XClient) { self.client = client }

    /// "X".
    public var name: String { "X" }

    /// X today: no likes for self-serve (pay-per-use) apps, and automated likes against its rules.
    public var capabilities: NetworkCapabilities { Self.capabilities }

    /// What X offers a mirror, before any client is opened.
    public static var capabilities: NetworkCapabilities {
        NetworkCapabilities(
            whyNoLikes: XAccess.whyNoLikes, refusesRepeatsWithin: 86_400,
            disclosure: .profileNamingThePerson, postLength: .xWeighted(280))
    }

    public func whoAmI(_ account: Account) async throws -> NetworkUser {
        let user = try await mapped(nil) { try await client.send(GetAuthenticatedUser(), as: account).data }
        guard let user else { throw NetworkError.unavailable("X's answer to \(GetAuthenticatedUser.name) has no user") }
        knownUsers.set(user.id, for: account)
        return NetworkUser(id: user.id, handle: user.username, profile: user.description ?? "")
    }

    public func posts(of userID: String, since sinceID: String?, maxPosts: Int, for work: Work) -> NetworkPages {
        pages(GetUserTweets(userID: userID, sinceID: sinceID, maxResults: 100, exclude: [.retweets]), as: .human, maxPosts: maxPosts, for: work)
    }

    public func likes(of userID: String, perPage: Int, maxPosts: Int?, for work: Work) -> NetworkPages {
        pages(GetLikedTweets(userID: userID, maxResults: perPage), as: .human, maxPosts: maxPosts, for: work)
    }

    public func mentions(of userID: String, since sinceID: String?, perPage: Int, for work: Work) -> NetworkPages {
        pages(GetMentions(userID: userID, sinceID: sinceID, maxResults: perPage), as: .bot, maxPosts: nil, for: work)
    }

    public func homeTimeline(
        of userID: String, as account: Account, since sinceID: String?, maxPosts: Int?, perPage: Int,
        includingReposts: Bool, for work: Work
    ) -> NetworkPages {
        pages(
            GetHomeTimeline(userID: userID, sinceID: sinceID, maxResults: perPage, exclude: includingReposts ? [] : [.retweets]),
            as: account, maxPosts: maxPosts, for: work)
    }

    public func postExists(_ postID: String, as account: Account, for work: Work) async throws -> Bool {
        try await mapped(nil) {
            do {
                return try await client.send(GetTweet(tweetID: postID), as: account, for: work).data?.id == postID
            } catch XAPIError.partialErrors(_, let problems) where problems.contains(where: { $0.kind == "resource-not-found" }) {
                return false  // X's "Not Found Error": deleted, or never was
            }
        }
    }

    /// X takes no idempotency key: `slot` is not sent (a lost answer is an unknown outcome, never re-sent). X has no
    /// content warnings: a post the person hid behind one is not posted in the open (another is picked).
    public func post(_ text: String, warning: String?, slot: String, for work: Work) async throws -> String? {
        try Self.refuseWarned(warning)
        return try await mapped(nil) { try await client.send(CreateTweet(text: text), as: .bot, for: work).data?.id }
    }

    public func reply(_ text: String, warning: String?, to postID: String, for work: Work) async throws -> String? {
        try Self.refuseWarned(warning)
        return try await mapped(nil) {
            try await client.send(CreateTweet(text: text, inReplyToTweetID: postID), as: .bot, for: work).data?.id
        }
    }

    /// The bot's post with `text` (X's escapes undone; answering `postID` when given), among its posts since
    /// `sentSince`: read newest first in pages of five (owned reads, $0.005 a page) until a page reaches back before
    /// the send, or `ReadBack.mostPosts`; without `sentSince`, its five newest. The bot's id comes from the start's
    /// `whoAmI(.bot)`, kept by the client.
    public func ownRecentPost(_ text: String?, inReplyTo postID: String?, sentSince: Date?, for work: Work) async throws -> String? {
        let botID: String
        if let known = knownUsers.id(of: .bot) { botID = known } else { botID = try await whoAmI(.bot).id }
        let since = sentSince.map(ReadBack.since)
        let pages = client.pages(
            GetUserTweets(userID: botID, maxResults: ReadBack.newest, fields: .archive), as: .bot, for: work,
            maxPosts: since == nil ? ReadBack.newest : ReadBack.mostPosts)
        return try await mapped(nil) {
            for try await page in pages {
                let posts = page.data ?? []
                if let made = posts.first(where: { post in
                    (text == nil || WrittenText.from(escaped: post.text) == text)
                        && (postID == nil || post.referencedTweets?.contains { $0.type == "replied_to" && $0.id == postID } == true)
                }) {
                    return made.id
                }
                // A page reaching back before the send holds the oldest post it could have made.
                guard let since, let oldest = posts.last?.createdAt, oldest >= since else { return nil }
            }
            return nil
        }
    }

    /// A post behind a content warning, which X cannot show: `unpostable`, so that another is picked.
    private static func refuseWarned(_ warning: String?) throws {
        if let warning { throw NetworkError.unpostable("behind the content warning \"\(warning)\", which X cannot show") }
    }

    public func deletePost(_ postID: String, for work: Work) async throws -> Bool {
        try await mapped(nil) {
            do {
                return try await client.send(DeleteTweet(tweetID: postID), as: .bot, for: work).data?.deleted == true
            } catch XAPIError.partialErrors(_, let problems) where problems.contains(where: { $0.kind == "resource-not-found" }) {
                return false
            }
        }
    }

    public func like(_ postID: String, as botID: String, for work: Work) async throws {
        _ = try await mapped(.likes) { try await client.send(LikeTweet(userID: botID, tweetID: postID), as: .bot, for: work) }
    }

    public func checkLikes(as botID: String, on postID: String, for work: Work) async throws {
        _ = try await mapped(.likes) {
            try await client.send(UnlikeTweet(userID: botID, tweetID: postID), as: .bot, for: work)
        }
    }

    public func refusal(of capability: NetworkCapability, for account: Account) -> NetworkRefusal? {
        guard let xCapability = XCapability(rawValue: capability.rawValue),
            let refusal = client.refusals.refusal(of: xCapability, account: account)
        else { return nil }
        return NetworkRefusal(since: refusal.since, recheckAt: refusal.recheckAt, what: refusal.endpoint, detail: refusal.detail)
    }

    public func keepAsideForPosts(at dates: [Date]) { client.budget?.reservePosts(at: dates) }

    /// The likes still planned are kept aside from what reading for likes may spend (X bills a like $0.015).
    public func keepAsideForLikes(at dates: [Date]) { client.budget?.reserveLikes(at: dates) }

    public var accounting: (any NetworkAccounting)? { XAccounting(usage: client.usage, budget: client.budget) }

    // MARK: - X's pages and errors, in the bot's words

    /// The pages of `endpoint` as the bot's pages: posts in the bot's form, and the newest id each page reached.
    private func pages<Endpoint: XPagedEndpoint>(_ endpoint: Endpoint, as account: Account, maxPosts: Int?, for work: Work) -> NetworkPages {
        let client = client
        return NetworkPages {
            var iterator = client.pages(endpoint, as: account, for: work, maxPosts: maxPosts).makeAsyncIterator()
            return NetworkPages.Iterator {
                let page = try await mapped(Endpoint.capability.flatMap { NetworkCapability(rawValue: $0.rawValue) }) {
                    try await iterator.next()
                }
                return page.map { page in NetworkPage(posts: page.tweets.map { $0.networkPost(in: page) }, newestID: page.meta?.newestID) }
            }
        }
    }

    /// Runs a call, saying X's errors as the network's: what X refused for good with the time of its check.
    private func mapped<Result>(_ capability: NetworkCapability?, _ call: () async throws -> Result) async throws -> Result {
        do {
            return try await call()
        } catch let error as XAPIError {
            throw Self.networkError(error, capability: capability)
        } catch let passed as WriteDeadlinePassed {
            throw NetworkError(passed)
        }
    }

    private static func networkError(_ error: XAPIError, capability: NetworkCapability?) -> NetworkError {
        let text = error.description
        switch error {
        case .duplicateContent: return .duplicate(text)
        case .notEnrolled: return .notEnrolled(capability ?? .likes, text)
        case .refused(let refusal):
            // Not sent: a refusal made earlier lasts until its check.
            if refusal.kind == .notEnrolled, let capability { return .notEnrolled(capability, text) }
            return .refused(text, recheckAt: refusal.recheckAt)
        // Refused just now (the client logged it once): checked again after the usual wait.
        case .unauthorized, .usageCapped, .creditsExhausted: return .refused(text, recheckAt: nil)
        case .problem(_, let status, _): return status == 403 ? .refused(text, recheckAt: nil) : .rejected(text)
        case .partialErrors: return .rejected(text)
        case .overBudget: return .shed(text)
        case .spendUnknown: return .unavailable(text)
        case .outcomeUnknown: return .outcomeUnknown(text)
        case .rateLimited, .serverError, .transport, .malformedResponse: return .unavailable(text)
        }
    }
}

extension XTweet {
    /// The post in the bot's form: its text as written (entities decoded, links expanded), its author's handle from
    /// the page's includes when asked for, and what it answers.
    public func networkPost(in page: XTweetPage) -> NetworkPost {
        // A read that did not ask for `created_at` (the likes, the filter's fields) still knows when: the id says.
        NetworkPost(
            id: id, text: plainText, authorID: authorID, authorHandle: page.username(of: authorID), createdAt: createdAt ?? XSnowflake.date(of: id),
            replyToUserID: inReplyToUserID, replyToPostID: repliedToTweetID, conversationID: conversationID, isRepost: isRetweet)
    }
}

/// The accounts' user ids, once known.
private final class KnownUsers: Sendable {
    private let ids = Mutex<[Account: String]>([:])
    func set(_ id: String, for account: Account) { ids.withLock { $0[account] = id } }
    func id(of account: Account) -> String? { ids.withLock { $0[account] } }
}
