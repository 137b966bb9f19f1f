public import BotCore
public import Stores
public import BotConfiguration
public import BotClock
import Foundation
public import Logging
public import MastodonAPI
import MastodonNetwork
public import SocialNetwork
public import XAPI
import XNetwork

/// The network a one-shot command talks to, with what a paid network adds: the day's usage to store, and the bill
/// in a line. Built by `BotParts.network(as:retry:)` for the configured `NETWORK`.
public struct CommandNetwork: Sendable {
    /// The network, in the bot's words.
    public let network: any MirrorNetwork
    private let xUsage: UsageMeter?

    init(network: any MirrorNetwork, xUsage: UsageMeter?) { self.network = network; self.xUsage = xUsage }

    /// Stores what the command spent in the day's usage (X; nothing on a free network).
    public func recordUsage(into usageDays: any UsageDays, command: String) async throws {
        guard let xUsage else { return }
        try await UsageRecording.store(xUsage, into: usageDays, runID: UUID().uuidString, command: command)
    }

    /// What today's earlier runs spent (X; 0 on a free network).
    public func spentToday(in usageDays: any UsageDays) async throws -> Double {
        guard xUsage != nil else { return 0 }
        return try await UsageRecording.day(of: Date(), in: usageDays).cost
    }

    /// " N API calls; X's bill by mirror_bot's count $…" for a summary line, or "" when nothing was billed.
    public var billLine: String {
        guard let usage = xUsage else { return "" }
        let total = usage.total
        guard total.calls > 0 else { return "" }
        return String(format: " %d API calls; X's bill by mirror_bot's count $%.3f (%@).", total.calls, usage.totalCost,
                      usage.billingDays.reduce(XBill()) { $0 + usage.bill(onBillingDay: $1) }.description)
    }
}

extension BotParts {
    /// The configured network for a one-shot command, as `accounts`.
    public func network(as accounts: [Account], retry: XClient.RetryPolicy = XClient.RetryPolicy()) -> CommandNetwork {
        switch configuration.network {
        case .x:
            let network = XMirrorNetwork.forCommand(configuration, accounts: accounts, retry: retry, logger: logger)
            return CommandNetwork(network: network, xUsage: network.client.usage)
        case .mastodon:
            return CommandNetwork(network: Self.mastodon(configuration, clock: SystemBotClock(), logger: logger), xUsage: nil)
        }
    }

    /// The Mastodon client for the configuration's accounts (each its instance and token), for checks the network
    /// protocol does not make (`doctor`).
    public static func mastodonClient(_ configuration: Configuration, clock: any BotClock = SystemBotClock(), logger: Logger) -> MastodonClient {
        var accounts: [Account: MastodonAccess] = [:]
        if let human = configuration.humanMastodon { accounts[.human] = MastodonAccess(instance: human.instance, token: human.token) }
        if let bot = configuration.botMastodon { accounts[.bot] = MastodonAccess(instance: bot.instance, token: bot.token) }
        return MastodonClient(configuration: .init(accounts: accounts), clock: clock, logger: logger)
    }

    /// Mastodon for the configuration's accounts, posting as `POST_VISIBILITY` says and copying content warnings as
    /// `POST_CW` says.
    static func mastodon(_ configuration: Configuration, clock: any BotClock, logger: Logger) -> MastodonMirrorNetwork {
        let client = mastodonClient(configuration, clock: clock, logger: logger)
        let visibility = MastodonVisibility(rawValue: configuration.postVisibility.rawValue) ?? .unlisted
        return MastodonMirrorNetwork(client: client, postVisibility: visibility, copyingWarnings: configuration.postContentWarnings)
    }
}
