public import BotConfiguration
public import BotCore
public import Foundation
public import Logging
public import SocialNetwork
public import Stores
public import XAPI

/// X's section of the configuration: each account's OAuth 1.0a credentials, the API's address, the daily budget.
public struct XNetworkSettings: ConfigurationSection {
    /// The person's credentials (`HUMAN_*`), when set.
    public var human: AccountCredentials?
    /// The bot's credentials (`BOT_*`), when set.
    public var bot: AccountCredentials?
    /// `X_API_BASE_URL` (default `https://api.x.com`).
    public var baseURL: URL
    /// `X_DAILY_BUDGET`, in US dollars a UTC day (default 1.00): a plain decimal above 0 and at most 10,000.
    public var dailyBudget: Double

    /// Default of `X_API_BASE_URL`.
    public static let defaultBaseURL = URL(string: "https://api.x.com")!
    /// Default of `X_DAILY_BUDGET`.
    public static let defaultDailyBudget = 1.0
    /// Each account's variables, after its prefix (`HUMAN_`, `BOT_`).
    static let credentialSuffixes = ["CONSUMER_KEY", "CONSUMER_SECRET", "ACCESS_TOKEN", "ACCESS_TOKEN_SECRET"]
    /// The variables of X's section.
    public static let variableNames =
        Account.allCases.flatMap { account in credentialSuffixes.map { account.environmentPrefix + $0 } }
        + ["X_API_BASE_URL", "X_DAILY_BUDGET", "DOOR_X_CONSUMER_KEY", "DOOR_X_CONSUMER_SECRET"]

    /// X's settings from their parts.
    public init(
        human: AccountCredentials?, bot: AccountCredentials?, baseURL: URL = Self.defaultBaseURL, dailyBudget: Double = Self.defaultDailyBudget
    ) {
        self.human = human
        self.bot = bot
        self.baseURL = baseURL
        self.dailyBudget = dailyBudget
    }

    /// Reads X's variables: an account's four credentials are all set or none is.
    public init(reading environment: inout EnvironmentReader) {
        func credentials(_ account: Account) -> AccountCredentials? {
            let names = Self.credentialSuffixes.map { account.environmentPrefix + $0 }
            let values = names.map { environment.value($0) }
            if values.allSatisfy({ $0 == nil }) { return nil }
            for (name, found) in zip(names, values) where found == nil {
                environment.report(
                    .init(
                        variable: name, isMissing: true,
                        expected:
                            "the \(account) account's \(name.dropFirst(account.environmentPrefix.count).lowercased().replacingOccurrences(of: "_", with: " ")) from the X developer portal (the other three \(account.environmentPrefix)* variables are set)"
                    ))
            }
            guard let key = values[0], let secret = values[1], let token = values[2], let tokenSecret = values[3] else { return nil }
            return AccountCredentials(consumerKey: key, consumerSecret: secret, accessToken: token, accessTokenSecret: tokenSecret)
        }
        human = credentials(.human)
        bot = credentials(.bot)
        baseURL = environment.apiBaseURL("X_API_BASE_URL", default: Self.defaultBaseURL, example: "https://api.x.com")
        dailyBudget = Self.defaultDailyBudget
        if let text = environment.value("X_DAILY_BUDGET") {
            if let number = Self.dollars(text) {
                dailyBudget = number
            } else {
                environment.malformed(
                    "X_DAILY_BUDGET",
                    expected: "US dollars a UTC day above 0, such as 1.00 (a plain decimal, at most \(Int(Self.largestDailyBudget)))",
                    shown: text)
            }
        }
    }

    /// The largest `X_DAILY_BUDGET`: $10,000 a day, far past what a mirror bot spends, and no typo's $1e300.
    public static let largestDailyBudget = 10_000.0

    /// A plain decimal amount of dollars (`2.50`, `$2.50`, `3`: ASCII digits, at most one point) above 0 and at most
    /// `largestDailyBudget`; nil for anything else (`0x10`, `1e300`, `inf`, `+2`, `２`), which `Double` would read.
    static func dollars(_ text: String) -> Double? {
        let amount = text.hasPrefix("$") ? text.dropFirst() : Substring(text)
        let parts = amount.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.utf8.count <= 5,
            parts.allSatisfy({ $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }), parts.count == 1 || (1...6).contains(parts[1].utf8.count),
            let number = Double(amount), number > 0, number <= largestDailyBudget
        else { return nil }
        return number
    }

    /// The credentials of `account`, when set.
    public func credentials(of account: Account) -> AccountCredentials? { account == .human ? human : bot }
}

/// X as a network module: billed by the call against `X_DAILY_BUDGET`, no automated likes, links left out unless
/// `POST_LINKS=true` (a post with a link costs twenty times a plain one), every post at `x.com`.
public struct XNetworkModule: NetworkModule {
    /// X's section of the configuration.
    public let settings: XNetworkSettings

    /// The module for `settings`.
    public init(settings: XNetworkSettings) { self.settings = settings }

    /// "X".
    public var name: String { "X" }
    public var botServer: String? { nil }
    /// No: X bills a post with a URL $0.200, a plain one $0.010.
    public var postsLinksByDefault: Bool { false }
    /// Remixes: X forbids the same content on two accounts.
    public var postStyleByDefault: PostStyle { .remix }
    /// Any post opens at `x.com/i/web/status/<id>`.
    public var postLinks: PostAddresses { .x }
    /// `X_DAILY_BUDGET`.
    public var dailyBudget: Double? { settings.dailyBudget }
    /// X has no content warnings.
    public var copiesContentWarnings: Bool { false }
    public var capabilities: NetworkCapabilities { XMirrorNetwork.capabilities }
    /// None: X's archive names each reply's user by id.
    public func archiveAccountResolver(logger: Logger) -> (@Sendable (_ address: String) async throws -> AccountID?)? { nil }

    /// The four credentials of each account in `accounts` that are not set.
    public func missingSettings(for accounts: [Account]) -> [MissingSetting] {
        accounts.filter { settings.credentials(of: $0) == nil }.flatMap { account in
            XNetworkSettings.credentialSuffixes.map { suffix in
                MissingSetting(
                    variable: account.environmentPrefix + suffix,
                    expected: "the \(account) account's \(suffix.lowercased().replacingOccurrences(of: "_", with: " "))"
                        + (suffix.hasPrefix("ACCESS")
                            ? " (`mirror_bot auth x --account \(account)`, signed in as that account)" : " from the X developer portal"))
            }
        }
    }

    /// X for a command: its meter counts the command's bill; nothing is budgeted.
    public func forCommand(accounts: [Account], logger: Logger) -> CommandNetwork {
        commandNetwork(XMirrorNetwork(client: XClient(configuration: clientConfiguration(accounts: accounts), logger: logger)))
    }

    /// X for the daemon: both accounts, counted against `X_DAILY_BUDGET` (with what other runs spent today, read from
    /// the usage days), the lasting refusals kept in the bot's state and restored from it, and the service that
    /// stores the run's spend every minute; each billed call's worst case is written to the store before it is sent.
    /// Logs the budget line (and, without links, what leaving them out saves); when the day's spend cannot be read,
    /// billed calls wait until it can, rather than count from zero.
    public func forDaemon(_ context: DaemonNetworkContext, logger: Logger) async -> DaemonNetwork {
        let usage = UsageMeter()
        let refusals = XRefusals()
        let ledger = StoredSpend(days: context.usageDays, state: context.state, usage: usage, runID: context.runID, command: "start")
        let budget = DailyBudget(limit: settings.dailyBudget, meter: usage, ledger: ledger, logger: logger)
        let client = XClient(
            configuration: clientConfiguration(accounts: [.human, .bot]), clock: context.clock, usage: usage,
            refusals: refusals, budget: budget, refusalStore: StoredRefusals(state: context.state), logger: logger)
        do {
            refusals.restore(try await UsageRecording.storedRefusals(in: context.state), apps: client.appFingerprints)
        } catch {
            logger.error("Could not read the refusals X made before (\(error)); the first call of each kind finds out again.")
        }
        do {
            try await ledger.readOthers(onBillingDay: UsageMeter.billingDay(of: context.clock.now()))
            let spent = usage.spent(onBillingDay: UsageMeter.billingDay(of: context.clock.now()))
            logger.notice(
                "\(String(format: "budget: X_DAILY_BUDGET $%.2f a UTC day by mirror_bot's count of X's bill ($%.3f spent today before this start; %@)", settings.dailyBudget, spent, usage.prices.source))"
            )
        } catch {
            usage.markSpentElsewhereUnread()
            logger.error("Could not read today's API spend (\(error)); billed calls wait until it can be read (looked at again every minute).")
        }
        if !context.postLinks {
            logger.notice(
                "\(String(format: "links: the person's tweets and replies with a link are not posted (POST_LINKS=false: X bills a post with a URL $%.3f, a plain one $%.3f)", usage.prices.postCreateWithURL, usage.prices.postCreate))"
            )
        }
        let recorder = SpendRecorder(
            clock: context.clock, usage: usage, budget: budget, days: context.usageDays, state: context.state, runID: context.runID,
            ledger: ledger, logger: logger)
        return DaemonNetwork(network: XMirrorNetwork(client: client), services: [recorder])
    }

    /// One `GET /2/users/me` per account (it proves the credentials and reads no posts), X's prices, and what
    /// `POST_LINKS` costs. The budget line is the doctor's, once the store is open (`CommandBilling.spendLine`).
    public func doctor(_ context: DoctorContext, logger: Logger) async -> DoctorReport {
        let configured = Account.allCases.filter { settings.credentials(of: $0) != nil }
        let retry = XClient.RetryPolicy(maxAttempts: 2)
        let network = XMirrorNetwork(client: XClient(configuration: clientConfiguration(accounts: configured, retry: retry), logger: logger))
        var findings: [DoctorFinding] = []
        var users: [Account: NetworkUser] = [:]
        for account in Account.allCases {
            let label = "\(account) account"
            guard configured.contains(account) else {
                findings.append(.failed(label, "\(account.environmentPrefix)* credentials are not set"))
                continue
            }
            do {
                let user = try await network.whoAmI(account)
                users[account] = user
                findings.append(.ok(label, "@\(user.handle) (id \(user.id)) at \(settings.baseURL.absoluteString)"))
            } catch {
                findings.append(.failed(label, "\(error)"))
            }
        }
        if let bot = users[.bot], let person = users[.human], let rule = network.capabilities.disclosure {
            findings.append(
                rule.problem(bot: bot, person: person, networkName: network.name).map { .failed("automation disclosure", $0) }
                    ?? .ok("automation disclosure", "the bio of @\(bot.handle) says it is automated and names @\(person.handle)"))
        }
        let prices = network.client.usage.prices
        findings.append(.ok("X's prices", prices.summary))
        findings.append(
            .ok(
                "links",
                context.postLinks
                    ? "POST_LINKS=true: the person's tweets with links are posted (X bills each $\(prices.postCreateWithURL))"
                    : "POST_LINKS=false: the person's tweets and replies with links are not posted (X bills each $\(prices.postCreateWithURL), a plain post $\(prices.postCreate))"
            ))
        findings.append(.ok("X API", settings.baseURL.absoluteString))
        return DoctorReport(findings: findings, network: commandNetwork(network))
    }

    private func commandNetwork(_ network: XMirrorNetwork) -> CommandNetwork {
        CommandNetwork(network: network, billing: XCommandBilling(client: network.client, dailyBudget: settings.dailyBudget))
    }

    func clientConfiguration(accounts: [Account], retry: XClient.RetryPolicy = XClient.RetryPolicy()) -> XClient.Configuration {
        var credentials: [Account: AccountCredentials] = [:]
        for account in accounts { credentials[account] = settings.credentials(of: account) }
        return XClient.Configuration(baseURL: settings.baseURL, credentials: credentials, retry: retry)
    }

    /// The person's access token and its secret (the app's key is the app's, not the person's).
    public var personCredentials: [(name: String, value: String)] {
        guard let human = settings.credentials(of: .human) else { return [] }
        return [("HUMAN_ACCESS_TOKEN", human.accessToken), ("HUMAN_ACCESS_TOKEN_SECRET", human.accessTokenSecret)]
    }

    /// Signing in on X (a PIN).
    public var personSignInCommand: String { "mirror_bot auth x --account human" }

    /// One `GET /2/users/me` with the person's tokens (billed: stored in `usageDays` as `consent`): their user id.
    public func verifyPerson(usageDays: any UsageDays, logger: Logger) async throws -> VerifiedPerson {
        guard settings.credentials(of: .human) != nil else { throw PersonSignInRefused("the HUMAN_* credentials are not set") }
        let client = XClient(configuration: clientConfiguration(accounts: [.human], retry: XClient.RetryPolicy(maxAttempts: 2)), logger: logger)
        let billing = XCommandBilling(client: client, dailyBudget: settings.dailyBudget)
        let answer: XSingleResponse<XUser>
        do {
            answer = try await client.send(GetAuthenticatedUser(), as: .human)
        } catch {
            // Billed or not, what was sent is counted.
            try? await billing.recordUsage(into: usageDays, command: "consent")
            if case XAPIError.unauthorized(_, _, let detail) = error {
                throw PersonSignInRefused("X refuses the person's tokens (HUMAN_ACCESS_TOKEN): \(detail)")
            }
            throw error
        }
        try await billing.recordUsage(into: usageDays, command: "consent")
        guard let user = answer.data else { throw NetworkError.unavailable("X's answer to \(GetAuthenticatedUser.name) has no user") }
        return VerifiedPerson(account: user.id, handle: user.username, credential: "HUMAN_ACCESS_TOKEN")
    }
}

/// What a one-shot command's calls to X cost, by mirror_bot's count, kept in the day's usage.
struct XCommandBilling: CommandBilling {
    let client: XClient
    let dailyBudget: Double

    func recordUsage(into usageDays: any UsageDays, command: String) async throws {
        try await UsageRecording.store(client.usage, into: usageDays, runID: UUID().uuidString, command: command)
    }

    func spentToday(in usageDays: any UsageDays) async throws -> Double { try await UsageRecording.day(of: Date(), in: usageDays).cost }

    var billLine: String {
        let usage = client.usage
        let total = usage.total
        guard total.calls > 0 else { return "" }
        return String(
            format: " %d API calls; X's bill by mirror_bot's count $%.3f (%@).", total.calls, usage.totalCost,
            usage.billingDays.reduce(XBill()) { $0 + usage.bill(onBillingDay: $1) }.description)
    }

    func spendLine(storingInto usageDays: any UsageDays) async throws -> String {
        try await recordUsage(into: usageDays, command: "doctor")
        let spend = try await UsageRecording.day(of: Date(), in: usageDays)
        return String(
            format: "X budget: $%.3f spent today (UTC %@) of X_DAILY_BUDGET $%.2f, by mirror_bot's count (%@; this check included)",
            spend.cost, UsageMeter.billingDay(of: Date()), dailyBudget, spend.bill.description)
    }

    func restoreRefusals(from state: any BotState) async throws {
        client.refusals.restore(try await UsageRecording.storedRefusals(in: state), apps: client.appFingerprints)
    }
}

extension PostAddresses {
    /// X: any post opens at `x.com/i/web/status/<id>`, whoever wrote it.
    public static let x: PostAddresses = {
        let link: @Sendable (String) -> String? = { "https://x.com/i/web/status/" + $0 }
        return PostAddresses(botSide: link, personSide: link)
    }()
}
