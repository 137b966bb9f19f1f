public import BotClock
public import BotConfiguration
public import BotCore
import Foundation
public import Logging
public import MisskeyAPI
public import SocialNetwork
public import Stores

/// Misskey's section of the configuration: each account's instance and token, how the bot's notes are shown, its
/// like's reaction.
public struct MisskeyNetworkSettings: ConfigurationSection {
    /// The person's instance and token (`HUMAN_MISSKEY_URL`, `HUMAN_MISSKEY_TOKEN`), when set.
    public var human: MisskeyAccess?
    /// The bot's (`BOT_MISSKEY_URL`, `BOT_MISSKEY_TOKEN`), when set.
    public var bot: MisskeyAccess?
    /// `POST_VISIBILITY` on Misskey: `home` (the default: Misskey's quiet public), `public` or `followers`.
    public var visibility: MisskeyVisibility
    /// `MISSKEY_LIKE_REACTION`: the reaction that is a like (`❤` by default).
    public var likeReaction: String
    /// `POST_CW`: notes behind a content warning are copied, warning included.
    public var copyingWarnings: Bool

    /// The variables of Misskey's section (`POST_VISIBILITY` is Mastodon's too, and listed there).
    public static let variableNames = ["HUMAN_MISSKEY_URL", "HUMAN_MISSKEY_TOKEN", "BOT_MISSKEY_URL", "BOT_MISSKEY_TOKEN", "MISSKEY_LIKE_REACTION"]

    /// Misskey's settings from their parts.
    public init(
        human: MisskeyAccess?, bot: MisskeyAccess?, visibility: MisskeyVisibility = .home, likeReaction: String = "❤", copyingWarnings: Bool = false
    ) {
        self.human = human
        self.bot = bot
        self.visibility = visibility
        self.likeReaction = likeReaction
        self.copyingWarnings = copyingWarnings
    }

    /// Reads Misskey's variables: an account's instance and token are both set or neither is.
    public init(reading environment: inout EnvironmentReader) {
        func access(_ account: Account) -> MisskeyAccess? {
            let urlName = account.environmentPrefix + "MISSKEY_URL"
            let tokenName = account.environmentPrefix + "MISSKEY_TOKEN"
            let (urlText, token) = (environment.value(urlName), environment.value(tokenName))
            if urlText == nil && token == nil { return nil }
            guard let urlText else {
                environment.report(
                    .init(
                        variable: urlName, isMissing: true,
                        expected: "the \(account) account's instance, such as https://misskey.io (\(tokenName) is set)"))
                return nil
            }
            guard let url = EnvironmentReader.apiBaseURL(urlText) else {
                environment.malformed(
                    urlName, expected: "the instance's https:// URL, such as https://misskey.io (plain http:// only for localhost)",
                    shown: EnvironmentReader.maskedURL(urlText))
                return nil
            }
            guard let token else {
                environment.report(
                    .init(
                        variable: tokenName, isMissing: true,
                        expected:
                            "the \(account) account's access token (`mirror_bot auth misskey --account \(account)`, or Settings → API; \(urlName) is set)"
                    ))
                return nil
            }
            return MisskeyAccess(instance: url, token: token)
        }
        human = access(.human)
        bot = access(.bot)
        visibility = .home
        if let text = environment.value("POST_VISIBILITY") {
            // Mastodon's names are taken too: unlisted is Misskey's home, private its followers. A copy is never specified.
            switch text.lowercased() {
            case "home", "unlisted": visibility = .home
            case "public": visibility = .public
            case "followers", "private": visibility = .followers
            default: environment.malformed("POST_VISIBILITY", expected: "home, public or followers on Misskey", shown: text)
            }
        }
        likeReaction = "❤"
        if let reaction = environment.value("MISSKEY_LIKE_REACTION") {
            let trimmed = reaction.trimmingCharacters(in: .whitespaces)
            let isCustomEmoji = trimmed.wholeMatch(of: /:[A-Za-z0-9_+\-]+(@[A-Za-z0-9.\-]+)?:/) != nil
            if isCustomEmoji || (trimmed.count == 1 && trimmed.unicodeScalars.contains { $0.properties.isEmoji && $0.value > 0xFF }) {
                likeReaction = trimmed
            } else {
                environment.malformed(
                    "MISSKEY_LIKE_REACTION", expected: "one emoji such as ❤ or 👍, or a custom emoji such as :igyo:", shown: reaction)
            }
        }
        copyingWarnings = environment.flag("POST_CW")
    }

    /// The access of `account`, when set.
    public func access(of account: Account) -> MisskeyAccess? { account == .human ? human : bot }
}

/// The permissions each account's token needs on Misskey (MiAuth asks for them; `doctor` says them).
public enum MisskeyPermissions {
    /// The person's token reads their account and reactions; the bot's reads, writes notes and (when it likes) reacts.
    public static func needed(by account: Account, liking: Bool) -> [String] {
        account == .human ? ["read:account", "read:reactions"] : ["read:account", "write:notes"] + (liking ? ["write:reactions"] : [])
    }
}

/// Misskey as a network module: free, reactions as likes (on by default), links copied, notes posted `home`, each
/// note linked on the instance that gave its id.
public struct MisskeyNetworkModule: NetworkModule {
    /// Misskey's section of the configuration.
    public let settings: MisskeyNetworkSettings
    private let clock: any BotClock

    /// The module for `settings`; commands run on `clock`.
    public init(settings: MisskeyNetworkSettings, clock: any BotClock = SystemBotClock()) {
        self.settings = settings
        self.clock = clock
    }

    /// "Misskey".
    public var name: String { "Misskey" }
    public var botServer: String? { settings.bot.map { FleetServers.name(of: $0.instance) } }
    /// Yes: links cost nothing on Misskey.
    public var postsLinksByDefault: Bool { true }
    /// Copies: Misskey has no rule against them.
    public var postStyleByDefault: PostStyle { .copy }
    /// `https://<host>/notes/<id>` on the instance that gave the id (none for a number a previous release could not map
    /// back).
    public var postLinks: PostAddresses {
        func link(_ instance: URL?) -> @Sendable (String) -> String? {
            var base = instance?.absoluteString ?? ""
            while base.hasSuffix("/") { base.removeLast() }
            return { [base] id in base.isEmpty || MisskeyIDs.isUnmappedNumber(id) ? nil : base + "/notes/" + id }
        }
        return PostAddresses(botSide: link(settings.bot?.instance), personSide: link(settings.human?.instance))
    }
    /// None: the API is free.
    public var dailyBudget: Double? { nil }
    /// `POST_CW`.
    public var copiesContentWarnings: Bool { settings.copyingWarnings }
    public var capabilities: NetworkCapabilities { MisskeyMirrorNetwork.capabilities }
    /// A notes export names what a reply answered by the note's id (`note:<id>`): looked up on the person's instance,
    /// the id of its author; nil when the note is gone or hidden. Nil when the person's account is not set.
    public func archiveAccountResolver(logger: Logger) -> (@Sendable (_ address: String) async throws -> AccountID?)? {
        guard settings.human != nil else { return nil }
        let client = client(clock: clock, logger: logger)
        return { address in
            guard address.hasPrefix("note:") else { return nil }
            do {
                return AccountID(try await client.send(ShowNote(noteID: String(address.dropFirst(5))), as: .human).userId)
            } catch MisskeyAPIError.notFound {
                return nil
            }
        }
    }

    /// The instance and token of each account in `accounts` that are not set.
    public func missingSettings(for accounts: [Account]) -> [MissingSetting] {
        accounts.filter { settings.access(of: $0) == nil }.flatMap { account in
            [
                MissingSetting(
                    variable: account.environmentPrefix + "MISSKEY_URL",
                    expected: "the \(account) account's instance, such as https://misskey.io (NETWORK=misskey)"),
                MissingSetting(
                    variable: account.environmentPrefix + "MISSKEY_TOKEN",
                    expected:
                        "the \(account) account's access token with \(MisskeyPermissions.needed(by: account, liking: true).joined(separator: ", ")) (`mirror_bot auth misskey --account \(account)`)"
                ),
            ]
        }
    }

    /// Misskey for a command.
    public func forCommand(accounts: [Account], logger: Logger) -> CommandNetwork { CommandNetwork(network: network(clock: clock, logger: logger)) }

    /// Misskey for the daemon, on its clock; says where each account is, and that nothing is billed.
    public func forDaemon(_ context: DaemonNetworkContext, logger: Logger) async -> DaemonNetwork {
        logger.notice(
            "network: Misskey, the person at \(settings.human?.instance.host ?? "?"), the bot at \(settings.bot?.instance.host ?? "?"); free, nothing billed; likes are \(settings.likeReaction) reactions"
        )
        return DaemonNetwork(network: network(clock: context.clock, logger: logger))
    }

    /// The client for the configured accounts (each its instance and token).
    public func client(clock: any BotClock, logger: Logger) -> MisskeyClient {
        var accounts: [Account: MisskeyAccess] = [:]
        for account in Account.allCases { accounts[account] = settings.access(of: account) }
        return MisskeyClient(configuration: .init(accounts: accounts), clock: clock, logger: logger)
    }

    private func network(clock: any BotClock, logger: Logger) -> MisskeyMirrorNetwork { network(on: client(clock: clock, logger: logger)) }

    private func network(on client: MisskeyClient) -> MisskeyMirrorNetwork {
        MisskeyMirrorNetwork(
            client: client, postVisibility: settings.visibility, copyingWarnings: settings.copyingWarnings,
            likeReaction: settings.likeReaction)
    }

    /// Each token: whose it is (`i`), the bot flag and a contact in the bot's profile, the bot's instance's longest
    /// note, and what the bot likes with.
    public func doctor(_ context: DoctorContext, logger: Logger) async -> DoctorReport {
        let client = client(clock: clock, logger: logger)
        var findings: [DoctorFinding] = []
        var person: MisskeyUser?
        for account in [Account.human, .bot] {
            let label = "\(account) account"
            guard let access = settings.access(of: account) else {
                findings.append(.failed(label, "\(account.environmentPrefix)MISSKEY_URL and \(account.environmentPrefix)MISSKEY_TOKEN are not set"))
                continue
            }
            let user: MisskeyUser
            do {
                user = try await client.send(GetI(), as: account)
                findings.append(
                    .ok(
                        label,
                        "@\(user.acct) (id \(user.id)) at \(access.instance.absoluteString); the token needs \(MisskeyPermissions.needed(by: account, liking: context.liking).joined(separator: ", "))"
                    ))
            } catch {
                findings.append(.failed(label, "\(error)"))
                continue
            }
            if account == .human {
                person = user
                continue
            }
            let bot = NetworkUser(id: user.id, handle: user.acct, profile: user.description, markedAutomated: user.isBot)
            let human = NetworkUser(id: person?.id ?? "", handle: person?.acct ?? "the person")
            if let problem = BotDisclosure.botFlagAndContact.problem(bot: bot, person: human, networkName: "Misskey") {
                findings.append(.failed("bot flag", problem))
            } else {
                findings.append(.ok("bot flag", "@\(user.acct) says it is a bot, and its profile says how to reach who runs it"))
            }
            do {
                let meta = try await client.send(GetMeta(), as: .bot)
                findings.append(
                    .ok(
                        "bot's instance",
                        "\(access.instance.host ?? "?") takes notes of up to \(meta.maxNoteTextLength ?? MisskeyMirrorNetwork.defaultNoteLength) characters; longer ones are not posted; visibility \(settings.visibility.rawValue)"
                    ))
            } catch {
                findings.append(.failed("bot's instance", "\(error)"))
            }
        }
        if context.liking { findings.append(.ok("likes", "as \(settings.likeReaction) reactions (MISSKEY_LIKE_REACTION)")) }
        findings.append(.ok("network", "Misskey (NETWORK=misskey): free, nothing billed"))
        return DoctorReport(findings: findings, network: CommandNetwork(network: network(on: client)))
    }

    /// The person's instance and token.
    public var personCredentials: [(name: String, value: String)] {
        guard let human = settings.human else { return [] }
        return [("HUMAN_MISSKEY_URL", human.instance.absoluteString), ("HUMAN_MISSKEY_TOKEN", human.token)]
    }

    /// Signing in on Misskey (MiAuth).
    public var personSignInCommand: String { "mirror_bot auth misskey --account human" }

    /// An account typed by its id as an instance writes it (`MisskeyIDs.looksTyped`); anything else is a handle.
    public func accountID(typed entry: String) -> String? {
        let trimmed = entry.trimmingCharacters(in: .whitespacesAndNewlines)
        return MisskeyIDs.looksTyped(trimmed) ? trimmed : nil
    }

    /// `i` with the person's token: their user id on their instance.
    public func verifyPerson(usageDays: any UsageDays, logger: Logger) async throws -> VerifiedPerson {
        guard let human = settings.human else { throw PersonSignInRefused("HUMAN_MISSKEY_URL and HUMAN_MISSKEY_TOKEN are not set") }
        do {
            let me = try await client(clock: clock, logger: logger).send(GetI(), as: Account.human)
            return VerifiedPerson(account: "\(me.id)@\(FleetServers.name(of: human.instance))", handle: me.acct, credential: "HUMAN_MISSKEY_TOKEN")
        } catch MisskeyAPIError.unauthorized(_, _, let detail) {
            throw PersonSignInRefused("\(FleetServers.name(of: human.instance)) refuses the person's token (HUMAN_MISSKEY_TOKEN): \(detail)")
        }
    }
}
