public import BotClock
public import BotCore
public import Foundation
public import PostText

/// What the bot needs from a social network, in the bot's own words: who the accounts are, the person's posts and
/// likes, the bot's mentions and timeline, posting, replying, liking; and what the network refused or sheds.
/// Each network (X first) has a module of its own behind this protocol; its wire types, authentication, paging and
/// prices never leave it. The daemon, training and the commands know only this.
public protocol MirrorNetwork: Sendable {
    /// The network's name for log lines and reports ("X").
    var name: String { get }
    /// What the network offers this app, as data the services ask.
    var capabilities: NetworkCapabilities { get }

    /// The user `account`'s credentials belong to.
    func whoAmI(_ account: Account) async throws -> NetworkUser

    /// The person's own posts (reposts left out), newest first, newer than `sinceID` when given, at most `maxPosts`.
    func posts(of userID: String, since sinceID: String?, maxPosts: Int, for work: Work) -> NetworkPages
    /// The posts the person liked, most recently liked first, `perPage` a page, at most `maxPosts` (all when nil).
    func likes(of userID: String, perPage: Int, maxPosts: Int?, for work: Work) -> NetworkPages
    /// The posts mentioning the bot, newest first, newer than `sinceID` when given (`perPage` a page).
    func mentions(of userID: String, since sinceID: String?, perPage: Int, for work: Work) -> NetworkPages
    /// The home timeline of `account` (the person's or the bot's), newest first, newer than `sinceID` when given, at
    /// most `maxPosts` (all when nil), `perPage` a page; reposts left out unless `includingReposts`.
    func homeTimeline(
        of userID: String, as account: Account, since sinceID: String?, maxPosts: Int?, perPage: Int,
        includingReposts: Bool, for work: Work
    ) -> NetworkPages

    /// Opens the network's push of the bot's new mentions, where it offers one (`capabilities.streamsMentions`):
    /// returns once the network has accepted it, with each mention as it arrives; the sequence ends when the network
    /// closes it and throws when it breaks. Networks without it throw `NetworkError.rejected`.
    func openMentionStream(of userID: String) async throws -> NetworkPostStream

    /// Whether `postID`, one of `account`'s own posts (the person's original or the bot's copy), is still there: false
    /// when the network says it was deleted (or never was).
    func postExists(_ postID: String, as account: Account, for work: Work) async throws -> Bool
    /// Which of `postIDs`, posts of `account`, are still there, in as few reads as the network allows (Bluesky: 25 a
    /// call; elsewhere one `postExists` each).
    func existingPosts(_ postIDs: [String], as account: Account, for work: Work) async throws -> Set<String>

    /// Posts `text` as the bot for `slot` (what the post is for, such as "slot 2026-11-22 09:12": a network that
    /// takes idempotency keys makes one post per slot however often it is sent), behind `warning` when the
    /// original had one (a network without content warnings refuses it as `unpostable`); returns the new post's id.
    func post(_ text: String, warning: String?, slot: String, for work: Work) async throws -> String?
    /// Answers `postID` with `text` as the bot (one answer per mention where the network takes idempotency keys),
    /// behind `warning` as `post` does; returns the new post's id.
    func reply(_ text: String, warning: String?, to postID: String, for work: Work) async throws -> String?
    /// The bot's own recent post of `text` (any text when nil) answering `postID` when given, if the network shows
    /// one: how a create whose answer was lost (`NetworkError.outcomeUnknown`) is resolved instead of guessed. Reads
    /// the bot's posts made since `sentSince` (when the create was first sent; `ReadBack.since` of it), however many the
    /// bot made meanwhile (up to `ReadBack.mostPosts`); without it, the `ReadBack.newest` newest (on X, owned reads:
    /// $0.001 each).
    func ownRecentPost(_ text: String?, inReplyTo postID: String?, sentSince: Date?, for work: Work) async throws -> String?
    /// Deletes the bot's post `postID` (`mirror_bot forget`); false when it was already gone. On X one request,
    /// billed as "Interaction: Delete" ($0.010); free on Mastodon.
    func deletePost(_ postID: String, for work: Work) async throws -> Bool
    /// Likes `postID` as the bot (`botID`).
    func like(_ postID: String, as botID: String, for work: Work) async throws
    /// Checks, with one call that reads and changes nothing, whether the network takes likes from the bot again
    /// (after a refusal): taking back a like the bot never made, of `postID` (the person's own post).
    func checkLikes(as botID: String, on postID: String, for work: Work) async throws

    /// The network's refusal of `capability` for `account`, while it lasts.
    func refusal(of capability: NetworkCapability, for account: Account) -> NetworkRefusal?
    /// Keeps aside, in what the network costs a day, the posts still planned at `dates` (free networks ignore it).
    func keepAsideForPosts(at dates: [Date])
    /// Keeps aside, from what reading for likes may cost a day, the likes still planned at `dates`, so that the reads
    /// never spend what the likes themselves need (free networks ignore it).
    func keepAsideForLikes(at dates: [Date])
    /// What the network costs and how it is counted, when it costs anything.
    var accounting: (any NetworkAccounting)? { get }
    /// Each endpoint's calls as each account (how many, how many failed, when the last succeeded), for the status page.
    func endpointCalls() -> [EndpointCalls]
    /// The most `reading` may cost; nil when the network is free.
    func mostItCosts(_ reading: PlannedReading) -> NetworkCost?
    /// The ids the releases before text ids gave the account `id` (Bluesky's hashed DIDs), under which stored rows may
    /// still name it: looked up beside `id`, never written. Empty where ids were always the network's own.
    func formerAccountIDs(of id: String) -> [String]
}

/// What a network offers an app, as data: services ask instead of testing which network it is.
public struct NetworkCapabilities: Sendable, Equatable {
    /// Why liking is not offered (an access level without likes, rules against automated likes); nil when it is.
    public var whyNoLikes: String?
    /// Whether the network pushes new mentions as they happen (`openMentionStream`), so they need not be polled.
    public var streamsMentions: Bool
    /// How long the network refuses a text the account already posted (X: a day, "duplicate content"); nil when it
    /// refuses no repeat. The bot never asks it to.
    public var refusesRepeatsWithin: TimeInterval?
    /// How the network's rules want a bot to say it is one; nil when they say nothing.
    public var disclosure: BotDisclosure?
    /// How the network measures a post, and the most it takes.
    public var postLength: PostLength

    /// Capabilities from their parts.
    public init(
        whyNoLikes: String?, streamsMentions: Bool = false, refusesRepeatsWithin: TimeInterval? = nil, disclosure: BotDisclosure? = nil,
        postLength: PostLength = .characters(500)
    ) {
        self.whyNoLikes = whyNoLikes
        self.streamsMentions = streamsMentions
        self.refusesRepeatsWithin = refusesRepeatsWithin
        self.disclosure = disclosure
        self.postLength = postLength
    }
}

extension MirrorNetwork {
    /// The accounting's count of calls, where the network keeps one.
    public func endpointCalls() -> [EndpointCalls] { accounting?.endpointCalls() ?? [] }

    /// One look-up a post.
    public func existingPosts(_ postIDs: [String], as account: Account, for work: Work) async throws -> Set<String> {
        var present: Set<String> = []
        for postID in postIDs where try await postExists(postID, as: account, for: work) { present.insert(postID) }
        return present
    }

    /// No push of mentions: they are polled.
    public func openMentionStream(of userID: String) async throws -> NetworkPostStream {
        throw NetworkError.rejected("\(name) does not push mentions; they are polled")
    }

    /// Nothing kept aside for likes (a network that bills them says otherwise).
    public func keepAsideForLikes(at dates: [Date]) {}

    /// None: the network's ids were always its own.
    public func formerAccountIDs(of id: String) -> [String] { [] }
}

/// A network that bills nothing and refuses nothing for good (Mastodon, Bluesky): its answers to the accounting's
/// questions, once.
public protocol FreeMirrorNetwork: MirrorNetwork {}

extension FreeMirrorNetwork {
    /// Likes are never refused as a whole: nothing to check.
    public func checkLikes(as botID: String, on postID: String, for work: Work) async throws {}
    /// Nothing is refused for good.
    public func refusal(of capability: NetworkCapability, for account: Account) -> NetworkRefusal? { nil }
    /// Free: nothing to keep aside.
    public func keepAsideForPosts(at dates: [Date]) {}
    /// Free: no accounting.
    public var accounting: (any NetworkAccounting)? { nil }
    /// Free.
    public func mostItCosts(_ reading: PlannedReading) -> NetworkCost? { nil }
}

/// How far a read back looks: every post the bot made since the create was first sent, not a fixed few (a create
/// whose answer was held past the client's limit may be followed by many posts before it is read back: at five, one
/// was read back as not made and posted again).
public enum ReadBack {
    /// The newest posts read when the create was sent is not known.
    public static let newest = 5
    /// The most posts read back.
    public static let mostPosts = 100
    /// Slack for the clocks of the bot and the network to differ.
    public static let clockSlack: TimeInterval = 300

    /// How many posts one read back asks for: `newest` when the create was sent is not known, else `most` (the
    /// most a page of the network holds, up to `mostPosts`).
    public static func pageSize(sentSince: Date?, most: Int = mostPosts) -> Int { sentSince == nil ? newest : min(most, mostPosts) }

    /// The oldest moment a post sent at `sentSince` may carry on the network.
    public static func since(_ sentSince: Date) -> Date { sentSince.addingTimeInterval(-clockSlack) }
}

extension NetworkError {
    /// A write not sent because this process's lease on the bot lapses before it could be over: unavailable here (the
    /// process that holds the bot now, or this one once its lease is renewed, acts instead).
    public init(_ passed: WriteDeadlinePassed) { self = .unavailable(passed.description) }
}
