public import BotClock
public import BotConfiguration
public import BotCore
public import Foundation
public import Logging
public import MastodonAPI
public import SocialNetwork
public import Stores

/// Mastodon's section of the configuration: each account's instance and token, how the bot's statuses are shown.
public struct MastodonNetworkSettings: ConfigurationSection {
    /// The person's instance and token (`HUMAN_MASTODON_URL`, `HUMAN_MASTODON_TOKEN`), when set.
    public var human: MastodonAccess?
    /// The bot's (`BOT_MASTODON_URL`, `BOT_MASTODON_TOKEN`), when set.
    public var bot: MastodonAccess?
    /// `POST_VISIBILITY`: `unlisted` (the default), `public` or `private`.
    public var visibility: MastodonVisibility
    /// `POST_CW`: statuses behind a content warning are copied, warning included.
    public var copyingWarnings: Bool

    /// The variables of Mastodon's section.
    public static let variableNames = ["HUMAN_MASTODON_URL", "HUMAN_MASTODON_TOKEN", "BOT_MASTODON_URL", "BOT_MASTODON_TOKEN", "POST_VISIBILITY"]

    /// Mastodon's settings from their parts.
    public init(human: MastodonAccess?, bot: MastodonAccess?, visibility: MastodonVisibility = .unlisted, copyingWarnings: Bool = false) {
        self.human = human
        self.bot = bot
        self.visibility = visibility
        self.copyingWarnings = copyingWarnings
    }

    /// Reads Mastodon's variables: an account's instance and token are both set or neither is.
    public init(reading environment: inout EnvironmentReader) {
        func access(_ account: Account) -> MastodonAccess? {
            let urlName = account.environmentPrefix + "MASTODON_URL"
            let tokenName = account.environmentPrefix + "MASTODON_TOKEN"
            let (urlText, token) = (environment.value(urlName), environment.value(tokenName))
            if urlText == nil && token == nil { return nil }
            guard let urlText else {
                environment.report(
                    .init(
                        variable: urlName, isMissing: true,
                        expected: "the \(account) account's instance, such as https://mastodon.social (\(tokenName) is set)"))
                return nil
            }
            guard let url = EnvironmentReader.apiBaseURL(urlText) else {
                environment.malformed(
                    urlName, expected: "the instance's https:// URL, such as https://mastodon.social (plain http:// only for localhost)",
                    shown: EnvironmentReader.maskedURL(urlText))
                return nil
            }
            guard let token else {
                environment.report(
                    .init(
                        variable: tokenName, isMissing: true,
                        expected: "the \(account) account's access token (Preferences → Development; \(urlName) is set)"))
                return nil
            }
            return MastodonAccess(instance: url, token: token)
        }
        human = access(.human)
        bot = access(.bot)
        visibility = .unlisted
        if let text = environment.value("POST_VISIBILITY") {
            // A copy is never direct: only the three visibilities that show a status to someone unasked.
            if let chosen = MastodonVisibility(rawValue: text.lowercased()), chosen != .direct {
                visibility = chosen
            } else {
                environment.malformed("POST_VISIBILITY", expected: "unlisted, public or private", shown: text)
            }
        }
        copyingWarnings = environment.flag("POST_CW")
    }

    /// The access of `account`, when set.
    public func access(of account: Account) -> MastodonAccess? { account == .human ? human : bot }
}

/// Mastodon as a network module: free, favourites welcome (with the bot flag), links copied, each status linked on
/// the instance that gave its id.
public struct MastodonNetworkModule: NetworkModule {
    /// Mastodon's section of the configuration.
    public let settings: MastodonNetworkSettings
    private let clock: any BotClock

    /// The module for `settings`; commands run on `clock`.
    public init(settings: MastodonNetworkSettings, clock: any BotClock = SystemBotClock()) {
        self.settings = settings
        self.clock = clock
    }

    /// "Mastodon".
    public var name: String { "Mastodon" }
    public var botServer: String? { settings.bot.map { FleetServers.name(of: $0.instance) } }
    /// Yes: links cost nothing on Mastodon.
    public var postsLinksByDefault: Bool { true }
    /// Copies: Mastodon has no rule against them.
    public var postStyleByDefault: PostStyle { .copy }
    /// The bot's instance opens the bot's posts, its mentions and what it liked; the person's opens the person's.
    public var postLinks: PostAddresses {
        guard let bot = settings.bot, let person = settings.human else { return .none }
        return .mastodon(botInstance: bot.instance, personInstance: person.instance)
    }
    /// None: the API is free.
    public var dailyBudget: Double? { nil }
    /// `POST_CW`.
    public var copiesContentWarnings: Bool { settings.copyingWarnings }
    public var capabilities: NetworkCapabilities { MastodonMirrorNetwork.capabilities }

    /// Looks an account (`user@domain`) up on the person's instance: its id there, nil when the instance does not
    /// know it. Nil when the person's account is not set.
    public func archiveAccountResolver(logger: Logger) -> (@Sendable (_ address: String) async throws -> AccountID?)? {
        guard settings.human != nil else { return nil }
        let client = client(clock: clock, logger: logger)
        return { address in
            do {
                return AccountID(try await client.send(LookupAccount(acct: address), as: .human).id)
            } catch MastodonAPIError.notFound {
                return nil
            }
        }
    }

    /// The instance and token of each account in `accounts` that are not set.
    public func missingSettings(for accounts: [Account]) -> [MissingSetting] {
        accounts.filter { settings.access(of: $0) == nil }.flatMap { account in
            [
                MissingSetting(
                    variable: account.environmentPrefix + "MASTODON_URL",
                    expected: "the \(account) account's instance, such as https://mastodon.social (NETWORK=mastodon)"),
                MissingSetting(
                    variable: account.environmentPrefix + "MASTODON_TOKEN",
                    expected:
                        "the \(account) account's access token with the scopes \(MastodonScopes.needed(by: account, liking: true).joined(separator: ", ")) (`mirror_bot auth mastodon --account \(account)`, or Preferences → Development → New application)"
                ),
            ]
        }
    }

    /// Mastodon for a command (every configured account; `accounts` need not narrow a free network).
    public func forCommand(accounts: [Account], logger: Logger) -> CommandNetwork { CommandNetwork(network: network(clock: clock, logger: logger)) }

    /// Mastodon for the daemon, on its clock; says where each account is, and that nothing is billed.
    public func forDaemon(_ context: DaemonNetworkContext, logger: Logger) async -> DaemonNetwork {
        logger.notice(
            "network: Mastodon, the person at \(settings.human?.instance.host ?? "?"), the bot at \(settings.bot?.instance.host ?? "?"); free, nothing billed"
        )
        return DaemonNetwork(network: network(clock: context.clock, logger: logger))
    }

    /// The client for the configured accounts (each its instance and token).
    public func client(clock: any BotClock, logger: Logger) -> MastodonClient {
        var accounts: [Account: MastodonAccess] = [:]
        for account in Account.allCases { accounts[account] = settings.access(of: account) }
        return MastodonClient(configuration: .init(accounts: accounts), clock: clock, logger: logger)
    }

    private func network(clock: any BotClock, logger: Logger) -> MastodonMirrorNetwork { network(on: client(clock: clock, logger: logger)) }

    private func network(on client: MastodonClient) -> MastodonMirrorNetwork {
        MastodonMirrorNetwork(client: client, postVisibility: settings.visibility, copyingWarnings: settings.copyingWarnings)
    }

    /// Each token: whose it is (`verify_credentials`), the scopes of its application (`apps/verify_credentials`)
    /// against what the account needs, the bot flag of the bot account, and the bot's instance's longest status.
    public func doctor(_ context: DoctorContext, logger: Logger) async -> DoctorReport {
        let client = client(clock: clock, logger: logger)
        var findings: [DoctorFinding] = []
        var person: MastodonAccount?
        for account in Account.allCases {
            let label = "\(account) account"
            guard let access = settings.access(of: account) else {
                findings.append(.failed(label, "\(account.environmentPrefix)MASTODON_URL and \(account.environmentPrefix)MASTODON_TOKEN are not set"))
                continue
            }
            let user: MastodonAccount
            do {
                user = try await client.send(VerifyCredentials(), as: account)
                findings.append(.ok(label, "@\(user.acct) (id \(user.id)) at \(access.instance.absoluteString)"))
            } catch {
                findings.append(.failed(label, "\(error)"))
                continue
            }
            if account == .human { person = user }
            let needed = MastodonScopes.needed(by: account, liking: context.liking)
            do {
                let application = try await client.send(VerifyAppCredentials(), as: account)
                if let scopes = application.scopes {
                    let missing = MastodonScopes.missing(needed, from: scopes)
                    findings.append(
                        missing.isEmpty
                            ? .ok("\(account) token's scopes", "\(scopes.joined(separator: " ")) (needs \(needed.joined(separator: ", ")))")
                            : .failed(
                                "\(account) token's scopes",
                                "the application \"\(application.name)\" has \(scopes.joined(separator: " ")), without \(missing.joined(separator: ", ")): on the \(account)'s account make a new one in Preferences → Development with \(needed.joined(separator: ", ")), and set its token"
                            ))
                } else {
                    findings.append(
                        .ok(
                            "\(account) token's scopes",
                            "the instance does not say them (Mastodon before 4.3); the \(account) needs \(needed.joined(separator: ", "))"))
                }
            } catch {
                findings.append(.failed("\(account) token's scopes", "\(error)"))
            }
            guard account == .bot else { continue }
            findings.append(
                user.bot
                    ? .ok("bot flag", "@\(user.acct) says it is automated")
                    : .failed(
                        "bot flag",
                        "@\(user.acct) is not marked as automated: in Preferences → Profile tick \"This is an automated account\" (Mastodon shows the bot flag; many instances require it)"
                    ))
            if let person { findings.append(Self.profileLink(of: user, to: person)) }
            do {
                let instance = try await client.send(GetInstance(), as: Account.bot)
                findings.append(
                    .ok(
                        "bot's instance",
                        "\(instance.domain) takes statuses of up to \(instance.configuration.statuses.maxCharacters) characters; longer ones are not posted; visibility \(settings.visibility.rawValue)"
                    ))
            } catch {
                findings.append(.failed("bot's instance", "\(error)"))
            }
        }
        findings.append(.ok("network", "Mastodon (NETWORK=mastodon): free, nothing billed"))
        return DoctorReport(findings: findings, network: CommandNetwork(network: network(on: client)))
    }

    /// Whether the bot's profile says whose mirror it is: a field linking to the person's profile, verified by the
    /// instance once the person's profile links back (Mastodon's `rel="me"`). Advice, not a failure: the bot runs either way.
    static func profileLink(of bot: MastodonAccount, to person: MastodonAccount) -> DoctorFinding {
        guard let personURL = person.url, let botURL = bot.url else {
            return .note(
                "profile link",
                "the instance gives no profile address for @\(bot.acct) or @\(person.acct), so the link between them cannot be checked")
        }
        guard let field = bot.fields?.first(where: { $0.links(to: personURL) }) else {
            return .note(
                "profile link",
                "@\(bot.acct)'s profile does not say whose mirror it is: in its Preferences → Profile → Extra fields add \"Mirror of\" with \(personURL), and on @\(person.acct)'s profile a field with \(botURL); the instance then verifies the link both ways (rel=\"me\")"
            )
        }
        guard field.verifiedAt != nil else {
            return .note(
                "profile link",
                "@\(bot.acct)'s field \"\(field.name)\" names @\(person.acct), not verified yet: the person adds a field with \(botURL) to their profile, and the instance verifies it (rel=\"me\")"
            )
        }
        return .ok(
            "profile link",
            "@\(bot.acct)'s field \"\(field.name)\" names @\(person.acct), verified by the instance: the person's profile links back (rel=\"me\")")
    }

    /// The person's instance and token.
    public var personCredentials: [(name: String, value: String)] {
        guard let human = settings.human else { return [] }
        return [("HUMAN_MASTODON_URL", human.instance.absoluteString), ("HUMAN_MASTODON_TOKEN", human.token)]
    }

    /// Signing in on Mastodon.
    public var personSignInCommand: String { "mirror_bot auth mastodon --account human" }

    /// Each token the front door signed in revoked on its instance (`POST /oauth/revoke`, as the application kept
    /// beside it); a token made by hand, or by `mirror_bot auth` (no application kept), is its owner's to revoke.
    public func releaseKeptSignIns(state: any BotState, sealer: any SecretSealer, logger: Logger) async -> [Account] {
        await MastodonAccountAuthorization.releaseKept(
            [(.human, settings.human), (.bot, settings.bot)], state: state, sealer: sealer, logger: logger)
    }

    /// `verify_credentials` with the person's token: their account id on their instance.
    public func verifyPerson(usageDays: any UsageDays, logger: Logger) async throws -> VerifiedPerson {
        guard let human = settings.human else { throw PersonSignInRefused("HUMAN_MASTODON_URL and HUMAN_MASTODON_TOKEN are not set") }
        do {
            let me = try await client(clock: clock, logger: logger).send(VerifyCredentials(), as: Account.human)
            return VerifiedPerson(account: "\(me.id)@\(FleetServers.name(of: human.instance))", handle: me.acct, credential: "HUMAN_MASTODON_TOKEN")
        } catch MastodonAPIError.unauthorized(_, _, let detail) {
            throw PersonSignInRefused("\(FleetServers.name(of: human.instance)) refuses the person's token (HUMAN_MASTODON_TOKEN): \(detail)")
        }
    }
}

/// The OAuth scopes each account's token needs on Mastodon.
public enum MastodonScopes {
    /// The person's token reads; the bot's reads, posts and (when it likes) favourites.
    public static func needed(by account: Account, liking: Bool) -> [String] {
        account == .human ? ["read"] : ["read", "write:statuses"] + (liking ? ["write:favourites"] : [])
    }

    /// What of `needed` `granted` lacks: a scope is covered by itself or its parent (`read` covers `read:statuses`;
    /// `write` covers `write:favourites`).
    public static func missing(_ needed: [String], from granted: [String]) -> [String] {
        needed.filter { scope in
            !granted.contains(scope) && !granted.contains(String(scope.split(separator: ":").first ?? ""))
        }
    }
}

extension PostAddresses {
    /// Mastodon: the web app of the instance that gave the id opens `/statuses/<id>` (a path of its web app, which
    /// shows the status under its author's handle), local or not.
    public static func mastodon(botInstance: URL, personInstance: URL) -> PostAddresses {
        PostAddresses(botSide: statusPage(on: botInstance), personSide: statusPage(on: personInstance))
    }

    private static func statusPage(on instance: URL) -> @Sendable (String) -> String? {
        var base = instance.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return { [base] id in !id.isEmpty && id.allSatisfy(\.isASCII) && id.allSatisfy(\.isNumber) ? base + "/statuses/" + id : nil }
    }
}
