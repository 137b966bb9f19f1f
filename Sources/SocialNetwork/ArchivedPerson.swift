public import BotCore
public import Foundation
public import Logging

/// The person learned from an imported archive only (`HUMAN_NETWORK=archive`): a person who left the network, or
/// never was on the bot's. Around the bot's own network, nothing of the person's is read there: their posts, likes
/// and timeline read as empty (what the bot knows of them is what `mirror_bot import` stored), their posts cannot be
/// looked up (so each counts as still there: the archive is the record), and they are nobody on it (no id the network
/// gives anyone, so no mention is ever taken for one of their commands).
public struct ArchivedPersonNetwork: MirrorNetwork {
    /// The bot's network.
    public let network: any MirrorNetwork

    /// The person as the bot knows them: from the archive only.
    public static let person = NetworkUser(id: "archive", handle: "the person (from their archive)")

    /// `network`, with the person in their archive only.
    public init(_ network: any MirrorNetwork) { self.network = network }

    public var name: String { network.name }
    public var capabilities: NetworkCapabilities { network.capabilities }

    public func whoAmI(_ account: Account) async throws -> NetworkUser {
        account == .human ? Self.person : try await network.whoAmI(account)
    }
    /// Nothing new: the archive holds what there is.
    public func posts(of userID: String, since sinceID: String?, maxPosts: Int, for work: Work) -> NetworkPages { Self.nothing }
    /// Nothing: likes come from the archive.
    public func likes(of userID: String, perPage: Int, maxPosts: Int?, for work: Work) -> NetworkPages { Self.nothing }
    public func mentions(of userID: String, since sinceID: String?, perPage: Int, for work: Work) -> NetworkPages {
        network.mentions(of: userID, since: sinceID, perPage: perPage, for: work)
    }
    public func homeTimeline(of userID: String, as account: Account, since sinceID: String?, maxPosts: Int?, perPage: Int,
                             includingReposts: Bool, for work: Work) -> NetworkPages {
        account == .human ? Self.nothing
            : network.homeTimeline(of: userID, as: account, since: sinceID, maxPosts: maxPosts, perPage: perPage, includingReposts: includingReposts, for: work)
    }
    public func openMentionStream(of userID: String) async throws -> NetworkPostStream { try await network.openMentionStream(of: userID) }
    /// The person's posts are not on this network to look up: each counts as there.
    public func postExists(_ postID: String, as account: Account, for work: Work) async throws -> Bool {
        account == .human ? true : try await network.postExists(postID, as: account, for: work)
    }
    public func existingPosts(_ postIDs: [String], as account: Account, for work: Work) async throws -> Set<String> {
        account == .human ? Set(postIDs) : try await network.existingPosts(postIDs, as: account, for: work)
    }
    public func post(_ text: String, warning: String?, slot: String, for work: Work) async throws -> String? {
        try await network.post(text, warning: warning, slot: slot, for: work)
    }
    public func reply(_ text: String, warning: String?, to postID: String, for work: Work) async throws -> String? {
        try await network.reply(text, warning: warning, to: postID, for: work)
    }
    public func ownRecentPost(_ text: String?, inReplyTo postID: String?, for work: Work) async throws -> String? {
        try await network.ownRecentPost(text, inReplyTo: postID, for: work)
    }
    public func deletePost(_ postID: String, for work: Work) async throws -> Bool { try await network.deletePost(postID, for: work) }
    public func like(_ postID: String, as botID: String, for work: Work) async throws { try await network.like(postID, as: botID, for: work) }
    public func checkLikes(as botID: String, on postID: String, for work: Work) async throws { try await network.checkLikes(as: botID, on: postID, for: work) }
    public func refusal(of capability: NetworkCapability, for account: Account) -> NetworkRefusal? { network.refusal(of: capability, for: account) }
    public func keepAsideForPosts(at dates: [Date]) { network.keepAsideForPosts(at: dates) }
    public var accounting: (any NetworkAccounting)? { network.accounting }
    public func endpointCalls() -> [EndpointCalls] { network.endpointCalls() }
    public func mostItCosts(_ reading: PlannedReading) -> NetworkCost? { network.mostItCosts(reading) }

    private static let nothing = NetworkPages { NetworkPages.Iterator { nil } }
}
