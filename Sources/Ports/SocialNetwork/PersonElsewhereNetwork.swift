public import BotCore
import Foundation

/// The person on one network and the bot on another (`HUMAN_NETWORK` naming another network than `NETWORK`): what is
/// the person's (who they are, their posts and likes, their timeline, whether their originals are still there, what
/// reading them costs) is asked of their network; everything the bot does (its mentions, posts, replies, likes, its
/// own posts) of the bot's. The bot's network names the pair and sets what a post may be (its length, its likes,
/// its disclosure), so what is copied is made valid where it is posted. Nobody on the bot's network is the person:
/// their commands and the replies filed under whom they answered stay on their own network.
public struct PersonElsewhereNetwork: BotSideForwarding {
    /// The person's network.
    public let person: any MirrorNetwork
    /// The bot's network.
    public let bot: any MirrorNetwork

    /// The person on `person`, the bot on `bot`.
    public init(person: any MirrorNetwork, bot: any MirrorNetwork) {
        self.person = person
        self.bot = bot
    }

    /// The bot's network, for what the bot does.
    public var botSide: any MirrorNetwork { bot }
    /// The bot's network's name.
    public var name: String { bot.name }
    /// What the bot's network offers: posts are made for it.
    public var capabilities: NetworkCapabilities { bot.capabilities }

    private func side(_ account: Account) -> any MirrorNetwork { account == .human ? person : bot }

    public func whoAmI(_ account: Account) async throws -> NetworkUser { try await side(account).whoAmI(account) }
    /// The person's posts, on their network.
    public func posts(of userID: String, since sinceID: String?, maxPosts: Int, for work: Work) -> NetworkPages {
        person.posts(of: userID, since: sinceID, maxPosts: maxPosts, for: work)
    }
    /// The person's likes, on their network.
    public func likes(of userID: String, perPage: Int, maxPosts: Int?, for work: Work) -> NetworkPages {
        person.likes(of: userID, perPage: perPage, maxPosts: maxPosts, for: work)
    }
    public func homeTimeline(
        of userID: String, as account: Account, since sinceID: String?, maxPosts: Int?, perPage: Int,
        includingReposts: Bool, for work: Work
    ) -> NetworkPages {
        side(account).homeTimeline(
            of: userID, as: account, since: sinceID, maxPosts: maxPosts, perPage: perPage, includingReposts: includingReposts, for: work)
    }
    public func postExists(_ postID: String, as account: Account, for work: Work) async throws -> Bool {
        try await side(account).postExists(postID, as: account, for: work)
    }
    public func existingPosts(_ postIDs: [String], as account: Account, for work: Work) async throws -> Set<String> {
        try await side(account).existingPosts(postIDs, as: account, for: work)
    }
    public func refusal(of capability: NetworkCapability, for account: Account) -> NetworkRefusal? {
        side(account).refusal(of: capability, for: account)
    }
    /// The billed one's accounting (at most one of the two bills: X).
    public var accounting: (any NetworkAccounting)? { bot.accounting ?? person.accounting }
    public func endpointCalls() -> [EndpointCalls] { person.endpointCalls() + bot.endpointCalls() }
    /// What reading the person costs, on their network.
    public func mostItCosts(_ reading: PlannedReading) -> NetworkCost? { person.mostItCosts(reading) }
}
