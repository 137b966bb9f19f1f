public import BotCore
import Foundation
import Logging

/// The person learned from an imported archive only (`HUMAN_NETWORK=archive`): a person who left the network, or
/// never was on the bot's. Around the bot's own network, nothing of the person's is read there: their posts, likes
/// and timeline read as empty (what the bot knows of them is what `mirror_bot import` stored), their posts cannot be
/// looked up (so each counts as still there: the archive is the record), and they are nobody on it (no id the network
/// gives anyone, so no mention is ever taken for one of their commands).
public struct ArchivedPersonNetwork: BotSideForwarding {
    /// The bot's network.
    public let network: any MirrorNetwork

    /// The person as the bot knows them: from the archive only.
    public static let person = NetworkUser(id: "archive", handle: "the person (from their archive)")

    /// `network`, with the person in their archive only.
    public init(_ network: any MirrorNetwork) { self.network = network }

    /// The bot's network, for what the bot does.
    public var botSide: any MirrorNetwork { network }
    public var name: String { network.name }
    public var capabilities: NetworkCapabilities { network.capabilities }

    public func whoAmI(_ account: Account) async throws -> NetworkUser {
        account == .human ? Self.person : try await network.whoAmI(account)
    }
    /// Nothing new: the archive holds what there is.
    public func posts(of userID: String, since sinceID: String?, maxPosts: Int, for work: Work) -> NetworkPages { Self.nothing }
    /// Nothing: likes come from the archive.
    public func likes(of userID: String, perPage: Int, maxPosts: Int?, for work: Work) -> NetworkPages { Self.nothing }
    public func homeTimeline(
        of userID: String, as account: Account, since sinceID: String?, maxPosts: Int?, perPage: Int,
        includingReposts: Bool, for work: Work
    ) -> NetworkPages {
        account == .human
            ? Self.nothing
            : network.homeTimeline(
                of: userID, as: account, since: sinceID, maxPosts: maxPosts, perPage: perPage, includingReposts: includingReposts, for: work)
    }
    /// The person's posts are not on this network to look up: each counts as there.
    public func postExists(_ postID: String, as account: Account, for work: Work) async throws -> Bool {
        account == .human ? true : try await network.postExists(postID, as: account, for: work)
    }
    public func existingPosts(_ postIDs: [String], as account: Account, for work: Work) async throws -> Set<String> {
        account == .human ? Set(postIDs) : try await network.existingPosts(postIDs, as: account, for: work)
    }
    public func refusal(of capability: NetworkCapability, for account: Account) -> NetworkRefusal? { network.refusal(of: capability, for: account) }
    public var accounting: (any NetworkAccounting)? { network.accounting }
    public func endpointCalls() -> [EndpointCalls] { network.endpointCalls() }
    public func mostItCosts(_ reading: PlannedReading) -> NetworkCost? { network.mostItCosts(reading) }

    private static let nothing = NetworkPages { NetworkPages.Iterator { nil } }
}
