public import BotCore
import Foundation
public import Logging
public import SocialNetwork
public import Stores

/// A network module whose person lives in their imported archive only (`HUMAN_NETWORK=archive`): the bot's account is
/// all it needs, and every network it opens reads nothing of the person's.
public struct ArchivedPersonModule: NetworkModule {
    /// The bot's network's module.
    public let module: any NetworkModule

    /// `module`, with the person in their archive only.
    public init(_ module: any NetworkModule) { self.module = module }

    public var name: String { module.name }
    public var botServer: String? { module.botServer }
    public var postsLinksByDefault: Bool { module.postsLinksByDefault }
    public var postStyleByDefault: PostStyle { module.postStyleByDefault }
    /// The bot's posts are linked; the person's are in their archive, on no page of this network.
    public var postLinks: PostAddresses { PostAddresses(botSide: module.postLinks.botSide, personSide: { _ in nil }) }
    public var dailyBudget: Double? { module.dailyBudget }
    public var copiesContentWarnings: Bool { module.copiesContentWarnings }
    public var capabilities: NetworkCapabilities { module.capabilities }

    /// Only the bot's settings: the person needs none.
    public func missingSettings(for accounts: [Account]) -> [MissingSetting] { module.missingSettings(for: accounts.filter { $0 != .human }) }
    public func forCommand(accounts: [Account], logger: Logger) -> CommandNetwork { forCommand(accounts: accounts, kept: nil, logger: logger) }
    public func forCommand(accounts: [Account], kept: KeptTokens?, logger: Logger) -> CommandNetwork {
        let opened = module.forCommand(accounts: accounts.filter { $0 != .human }, kept: kept, logger: logger)
        return CommandNetwork(network: ArchivedPersonNetwork(opened.network), billing: opened.billing)
    }
    /// Says once where the person comes from.
    public func forDaemon(_ context: DaemonNetworkContext, logger: Logger) async -> DaemonNetwork {
        let opened = await module.forDaemon(context, logger: logger)
        logger.notice(
            "the person: from their imported archive only (HUMAN_NETWORK=archive); nothing of theirs is read on \(module.name), their posts are not looked up for deletions, and they give no commands there"
        )
        return DaemonNetwork(network: ArchivedPersonNetwork(opened.network), services: opened.services)
    }
    /// The module's checks of the bot's account; the person's account is none.
    public func doctor(_ context: DoctorContext, logger: Logger) async -> DoctorReport {
        let report = await module.doctor(context, logger: logger)
        let findings = report.findings.map { finding -> DoctorFinding in
            guard case .failed(let label, _) = finding, label.hasPrefix("human") else { return finding }
            return .ok(label, "none: the person is learned from their imported archive only (HUMAN_NETWORK=archive)")
        }
        return DoctorReport(
            findings: findings, network: CommandNetwork(network: ArchivedPersonNetwork(report.network.network), billing: report.network.billing))
    }
    /// No look-up: the person's accounts are not on this network.
    public func archiveAccountResolver(logger: Logger) -> (@Sendable (_ address: String) async throws -> AccountID?)? { nil }
    public func setUpBotAccount(logger: Logger) async throws -> String? { try await module.setUpBotAccount(logger: logger) }
    /// The person signs in as themselves on the bot's network: their archive is imported only for them.
    public var personCredentials: [(name: String, value: String)] { module.personCredentials }
    public func verifyPerson(usageDays: any UsageDays, logger: Logger) async throws -> VerifiedPerson {
        try await module.verifyPerson(usageDays: usageDays, logger: logger)
    }
    public func verifyPerson(usageDays: any UsageDays, state: any BotState, sealer: (any SecretSealer)?, logger: Logger) async throws
        -> VerifiedPerson
    {
        try await module.verifyPerson(usageDays: usageDays, state: state, sealer: sealer, logger: logger)
    }
    public var personSignInCommand: String { module.personSignInCommand }
    public var storesTokens: Bool { module.storesTokens }
    public func releaseKeptSignIns(state: any BotState, sealer: any SecretSealer, logger: Logger) async -> [Account] {
        await module.releaseKeptSignIns(state: state, sealer: sealer, logger: logger)
    }
    /// As the bot's network reads a typed account.
    public func accountID(typed entry: String) -> String? { module.accountID(typed: entry) }
}
