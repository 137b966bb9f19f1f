public import BotCore
import Foundation
public import Logging
public import SocialNetwork
public import Stores

/// The person on another network than the bot (`HUMAN_NETWORK=mastodon` with `NETWORK=bluesky`, and so on): the
/// person's module reads its `HUMAN_*` section and is asked about the person, the bot's module its `BOT_*` section and
/// is asked about the rest (`PersonElsewhereNetwork`). The bot's network sets the defaults of what is posted.
public struct PersonElsewhereModule: NetworkModule {
    /// The person's network's module.
    public let person: any NetworkModule
    /// The bot's network's module.
    public let bot: any NetworkModule

    /// The person on `person`'s network, the bot on `bot`'s.
    public init(person: any NetworkModule, bot: any NetworkModule) {
        self.person = person
        self.bot = bot
    }

    public var name: String { bot.name }
    public var botServer: String? { bot.botServer }
    public var postsLinksByDefault: Bool { bot.postsLinksByDefault }
    public var postStyleByDefault: PostStyle { bot.postStyleByDefault }
    /// The bot's posts on its network, the person's on theirs.
    public var postLinks: PostAddresses { PostAddresses(botSide: bot.postLinks.botSide, personSide: person.postLinks.personSide) }
    /// The budget of whichever of the two bills (X).
    public var dailyBudget: Double? { bot.dailyBudget ?? person.dailyBudget }
    /// Only where the person's network has warnings to copy and the bot's can post them.
    public var copiesContentWarnings: Bool { person.copiesContentWarnings && bot.copiesContentWarnings }
    /// The bot's network's: it is where the bot posts.
    public var capabilities: NetworkCapabilities { bot.capabilities }

    /// The person's settings on their network, the bot's on its.
    public func missingSettings(for accounts: [Account]) -> [MissingSetting] {
        person.missingSettings(for: accounts.filter { $0 == .human }) + bot.missingSettings(for: accounts.filter { $0 != .human })
    }
    public func forCommand(accounts: [Account], logger: Logger) -> CommandNetwork { forCommand(accounts: accounts, kept: nil, logger: logger) }
    public func forCommand(accounts: [Account], kept: KeptTokens?, logger: Logger) -> CommandNetwork {
        let personSide = person.forCommand(accounts: accounts.filter { $0 == .human }, kept: kept, logger: logger)
        let botSide = bot.forCommand(accounts: accounts.filter { $0 != .human }, kept: kept, logger: logger)
        return CommandNetwork(
            network: PersonElsewhereNetwork(person: personSide.network, bot: botSide.network), billing: botSide.billing ?? personSide.billing)
    }
    /// Both networks as the daemon opens them (each with its services), and a line saying where each account is.
    public func forDaemon(_ context: DaemonNetworkContext, logger: Logger) async -> DaemonNetwork {
        let personSide = await person.forDaemon(context, logger: logger)
        let botSide = await bot.forDaemon(context, logger: logger)
        logger.notice(
            "the person: on \(person.name) (HUMAN_NETWORK), read there; the bot: on \(bot.name). Replies come from the person's past replies to the same account on \(person.name), so with no one there in common only REPLY_FALLBACK=any answers; the person's commands are read on \(person.name) only when the bot is there too: not here"
        )
        return DaemonNetwork(
            network: PersonElsewhereNetwork(person: personSide.network, bot: botSide.network), services: personSide.services + botSide.services,
            personCheck: personSide.personCheck)
    }
    /// The person's checks from their network's doctor, the bot's and the rest from the bot's.
    public func doctor(_ context: DoctorContext, logger: Logger) async -> DoctorReport {
        let personReport = await person.doctor(context, logger: logger)
        let botReport = await bot.doctor(context, logger: logger)
        let findings =
            personReport.findings.filter { $0.label.hasPrefix("human") }
            + [.ok("person's network", "\(person.name) (HUMAN_NETWORK): the person is read there; the bot posts on \(bot.name)")]
            + botReport.findings.filter { !$0.label.hasPrefix("human") }
        return DoctorReport(
            findings: findings,
            network: CommandNetwork(
                network: PersonElsewhereNetwork(person: personReport.network.network, bot: botReport.network.network),
                billing: botReport.network.billing ?? personReport.network.billing))
    }
    /// Whom the person's archived replies answered is looked up on their network.
    public func archiveAccountResolver(logger: Logger) -> (@Sendable (_ address: String) async throws -> AccountID?)? {
        person.archiveAccountResolver(logger: logger)
    }
    public func setUpBotAccount(logger: Logger) async throws -> String? { try await bot.setUpBotAccount(logger: logger) }
    /// The person signs in on their own network.
    public var personCredentials: [(name: String, value: String)] { person.personCredentials }
    public func verifyPerson(usageDays: any UsageDays, logger: Logger) async throws -> VerifiedPerson {
        try await person.verifyPerson(usageDays: usageDays, logger: logger)
    }
    public func verifyPerson(usageDays: any UsageDays, state: any BotState, sealer: (any SecretSealer)?, logger: Logger) async throws
        -> VerifiedPerson
    {
        try await person.verifyPerson(usageDays: usageDays, state: state, sealer: sealer, logger: logger)
    }
    public var personSignInCommand: String { person.personSignInCommand }
    public var storesTokens: Bool { person.storesTokens || bot.storesTokens }
    /// The person's network's kept sign-in of the person, and the bot's network's of the bot.
    public func releaseKeptSignIns(state: any BotState, sealer: any SecretSealer, logger: Logger) async -> [Account] {
        let person = await person.releaseKeptSignIns(state: state, sealer: sealer, logger: logger).filter { $0 == .human }
        return person + (await bot.releaseKeptSignIns(state: state, sealer: sealer, logger: logger).filter { $0 == .bot })
    }
    /// As the bot's network reads a typed account: the accounts an opt-out or a block names are those that talk to the bot.
    public func accountID(typed entry: String) -> String? { bot.accountID(typed: entry) }
}
