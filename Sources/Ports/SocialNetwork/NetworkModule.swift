public import BotClock
public import BotCore
public import Foundation
public import Logging
public import ServiceLifecycle
public import Stores

/// A network, whole: the one value each network module exports, built by the assembly from that network's own
/// section of the configuration. Everything the rest of the program asks about a network is asked here (its
/// defaults, what it needs set, how it is opened for a command or the daemon, its doctor's checks, how its posts are
/// linked, its budget), so that adding a network is adding a module: see "Adding a network" in docs/architecture.md.
public protocol NetworkModule: Sendable {
    /// The network's name for log lines and reports ("X", "Mastodon").
    var name: String { get }
    /// The server the bot's account is on (the instance, the PDS: `FleetServers.name(of:)`), for a fleet that spaces its
    /// bots' starts on one server; nil where the network is one service (X).
    var botServer: String? { get }
    /// Whether the person's posts with links are copied when `POST_LINKS` is not set (X bills a post with a link
    /// twenty times a plain one: no; Mastodon: yes).
    var postsLinksByDefault: Bool { get }
    /// What a scheduled post is when `POST_STYLE` is not set: X's automation rules forbid "identical or substantially
    /// similar content across multiple accounts", so there a remix; elsewhere a copy.
    var postStyleByDefault: PostStyle { get }
    /// Where the network shows a post, from its id, for the status page.
    var postLinks: PostAddresses { get }
    /// The daily budget in US dollars, on a network that bills (nil: free).
    var dailyBudget: Double? { get }
    /// Whether posts behind a content warning are copied, warning included (Mastodon's `POST_CW`; X has none).
    var copiesContentWarnings: Bool { get }
    /// What the bot's network offers, as its daemon's network says it (its post length, its repeat window), known
    /// before any client is opened: for a preview of what the bot would post.
    var capabilities: NetworkCapabilities { get }

    /// What must be set for `accounts` to be reached, and is not.
    func missingSettings(for accounts: [Account]) -> [MissingSetting]
    /// The network for a one-shot command, as `accounts`.
    func forCommand(accounts: [Account], logger: Logger) -> CommandNetwork
    /// The same, with the tokens kept in the store (`kept`: a Bluesky session, the person's OAuth sign-in) used and
    /// renewed there; nil: the command keeps its sessions in memory.
    func forCommand(accounts: [Account], kept: KeptTokens?, logger: Logger) -> CommandNetwork
    /// The network for the daemon, on `context`'s clock and stores, with the services its accounting runs; logs its
    /// start lines (what it costs, what it leaves out).
    func forDaemon(_ context: DaemonNetworkContext, logger: Logger) async -> DaemonNetwork
    /// The doctor's checks of the network: each account, what its tokens may do, what it costs.
    func doctor(_ context: DoctorContext, logger: Logger) async -> DoctorReport
    /// How an imported archive's replies find whom they answered, where its addresses need the network (Mastodon:
    /// `user@domain` looked up on the person's instance; nil when the instance does not know it). Nil where the
    /// archive carries the ids (X).
    func archiveAccountResolver(logger: Logger) -> (@Sendable (_ address: String) async throws -> AccountID?)?
    /// Sets the bot's account up as the network's rules ask, where the bot can do it itself through the API (Bluesky:
    /// the `bot` self-label on its profile); returns what was done, in a line. Nil where it is done in the network's
    /// own settings (X's automated label, Mastodon's bot flag): `doctor` says where.
    func setUpBotAccount(logger: Logger) async throws -> String?

    /// The person's own credentials as configured (their token, their app password), by variable, for a digest that
    /// notices when they change; empty when nothing of the person's own is set (a handle alone proves nothing).
    var personCredentials: [(name: String, value: String)] { get }
    /// Signs in with the person's own credentials and says whose account they are; throws `PersonSignInRefused` when
    /// the network refuses them (revoked, wrong), other errors when it cannot be asked now. A billed read is stored in
    /// `usageDays`.
    func verifyPerson(usageDays: any UsageDays, logger: Logger) async throws -> VerifiedPerson
    /// `verifyPerson`, where the person's sign-in may be kept in the store (Bluesky's OAuth session, in `state` sealed
    /// with `sealer`) rather than in the configuration.
    func verifyPerson(usageDays: any UsageDays, state: any BotState, sealer: (any SecretSealer)?, logger: Logger) async throws -> VerifiedPerson
    /// The command that signs the person in on this network (`mirror_bot auth mastodon --account human`).
    var personSignInCommand: String { get }
    /// The id in an account a person typed (`mirror_bot optout add`, `BLOCKED_ACCOUNTS`), when it is one as the bot's
    /// network writes ids; nil when it is a handle. With `@` in front it is always a handle.
    func accountID(typed entry: String) -> String?
    /// Whether the daemon keeps tokens of this network in the store (a Bluesky session), sealed with the context's
    /// sealer: without one it does not start.
    var storesTokens: Bool { get }
    /// Gives back at the network the sign-ins kept in the store (`state`, sealed by `sealer`): each grant revoked there,
    /// for a mirror being deleted at its person's word. The accounts whose grants the network took back; a failure is
    /// logged and leaves the grant to lapse or to its owner.
    func releaseKeptSignIns(state: any BotState, sealer: any SecretSealer, logger: Logger) async -> [Account]
}

/// The person's account, as their own credentials signed in.
public struct VerifiedPerson: Sendable, Equatable {
    /// The account as the network identifies it: an X user id, `id@instance` on Mastodon and Misskey, a DID on Bluesky.
    public var account: String
    /// Its handle now, for people to read.
    public var handle: String
    /// Which variables hold the credentials that signed in (`HUMAN_MASTODON_TOKEN`).
    public var credential: String

    /// A verified person from their parts.
    public init(account: String, handle: String, credential: String) {
        self.account = account
        self.handle = handle
        self.credential = credential
    }
}

/// The network refused the person's own credentials: the grant was revoked, or the token or password is wrong.
public struct PersonSignInRefused: Error, CustomStringConvertible {
    /// What the network said.
    public var description: String

    /// A refusal saying `description`.
    public init(_ description: String) { self.description = description }
}

/// The person's sign-in ran out by the network's own limit on its life (not taken back by them): nothing of theirs is
/// used until they sign in again, and nothing learned is deleted.
public struct PersonSignInLapsed: Error, CustomStringConvertible {
    /// What the network said.
    public var description: String

    /// A lapse saying `description`.
    public init(_ description: String) { self.description = description }
}

extension NetworkModule {
    /// Nothing kept in the store to use.
    public func forCommand(accounts: [Account], kept: KeptTokens?, logger: Logger) -> CommandNetwork {
        forCommand(accounts: accounts, logger: logger)
    }

    /// Nothing the bot can set itself.
    public func setUpBotAccount(logger: Logger) async throws -> String? { nil }

    /// No tokens kept in the store: they are in the configuration.
    public var storesTokens: Bool { false }

    /// None to give back: the network has no way to revoke from here what its accounts approved.
    public func releaseKeptSignIns(state: any BotState, sealer: any SecretSealer, logger: Logger) async -> [Account] { [] }

    /// An account id is digits (X's, Mastodon's).
    public func accountID(typed entry: String) -> String? { TypedAccount.digits(entry) }

    /// The person's credentials are all in the configuration: the store is not needed to verify them.
    public func verifyPerson(usageDays: any UsageDays, state: any BotState, sealer: (any SecretSealer)?, logger: Logger) async throws
        -> VerifiedPerson
    {
        try await verifyPerson(usageDays: usageDays, logger: logger)
    }
}

/// A variable a network needs that is not set, and what it should hold.
public struct MissingSetting: Sendable, Equatable {
    /// The variable's name (`BOT_MASTODON_TOKEN`).
    public var variable: String
    /// What it should hold, in words.
    public var expected: String

    /// A missing setting from its parts.
    public init(variable: String, expected: String) {
        self.variable = variable
        self.expected = expected
    }
}

/// Seals the secrets a network keeps in the store (a session's tokens), so that a copy of the database gives none
/// away: `MIRROR_BOT_KEY` for a single bot, `FLEET_KEY` in a fleet.
public protocol SecretSealer: Sendable {
    /// `text` sealed, as text for the store.
    func seal(_ text: String) throws -> String
    /// The text `sealed` holds; throws when this key did not seal it (or it was changed).
    func open(_ sealed: String) throws -> String
}

/// What the daemon's network is opened with.
public struct DaemonNetworkContext: Sendable {
    /// The bot's clock.
    public var clock: any BotClock
    /// Where lasting refusals are kept.
    public var state: any BotState
    /// Where each day's spend is kept.
    public var usageDays: any UsageDays
    /// This run's id, in the usage it stores.
    public var runID: String
    /// Whether the person's posts with links are copied (`POST_LINKS`, or the network's default).
    public var postLinks: Bool
    /// What seals the tokens a network keeps in the store (required where `NetworkModule.storesTokens`).
    public var sealer: (any SecretSealer)?

    /// A context from its parts.
    public init(
        clock: any BotClock, state: any BotState, usageDays: any UsageDays, runID: String, postLinks: Bool,
        sealer: (any SecretSealer)? = nil
    ) {
        self.clock = clock
        self.state = state
        self.usageDays = usageDays
        self.runID = runID
        self.postLinks = postLinks
        self.sealer = sealer
    }
}

/// Where a network's tokens are kept between runs: the bot's state, sealed.
public struct KeptTokens: Sendable {
    /// The state.
    public var state: any BotState
    /// What seals them.
    public var sealer: any SecretSealer

    /// Tokens kept in `state`, sealed by `sealer`.
    public init(state: any BotState, sealer: any SecretSealer) {
        self.state = state
        self.sealer = sealer
    }
}

/// The daemon's network and the services its accounting runs (X: storing the day's spend every minute).
public struct DaemonNetwork: Sendable {
    /// The network.
    public var network: any MirrorNetwork
    /// Services to run beside the daemon's, stopped after every service that acts.
    public var services: [any Service]
    /// How the daemon checks the person's grant through this network's own client, where the grant's tokens are
    /// renewed by use (Bluesky's OAuth session: a refresh token works once, so one client renews it); nil: the
    /// consent gate's check, on the configured credentials.
    public var personCheck: (@Sendable () async throws -> VerifiedPerson)?

    /// A daemon network from its parts.
    public init(network: any MirrorNetwork, services: [any Service] = [], personCheck: (@Sendable () async throws -> VerifiedPerson)? = nil) {
        self.network = network
        self.services = services
        self.personCheck = personCheck
    }
}

/// The network a one-shot command talks to, with what a paid network adds: the day's usage to store, and the bill
/// in a line.
public struct CommandNetwork: Sendable {
    /// The network, in the bot's words.
    public let network: any MirrorNetwork
    /// What the command's calls cost, on a network that bills.
    public let billing: (any CommandBilling)?

    /// A command's network from its parts.
    public init(network: any MirrorNetwork, billing: (any CommandBilling)? = nil) {
        self.network = network
        self.billing = billing
    }

    /// Stores what the command spent in the day's usage (nothing on a free network).
    public func recordUsage(into usageDays: any UsageDays, command: String) async throws {
        try await billing?.recordUsage(into: usageDays, command: command)
    }

    /// What today's earlier runs spent (0 on a free network).
    public func spentToday(in usageDays: any UsageDays) async throws -> Double { try await billing?.spentToday(in: usageDays) ?? 0 }

    /// " N API calls; X's bill by mirror_bot's count $…" for a summary line, or "" when nothing was billed.
    public var billLine: String { billing?.billLine ?? "" }

    /// The daily budget, on a network that bills.
    public var dailyBudget: Double? { billing?.dailyBudget }
}

/// What a billing network counts for a one-shot command.
public protocol CommandBilling: Sendable {
    /// The daily budget in US dollars.
    var dailyBudget: Double { get }
    /// Stores what the command spent in the day's usage.
    func recordUsage(into usageDays: any UsageDays, command: String) async throws
    /// What today's earlier runs spent.
    func spentToday(in usageDays: any UsageDays) async throws -> Double
    /// " N API calls; …'s bill by mirror_bot's count $…", or "" when nothing was billed.
    var billLine: String { get }
    /// The day's spend against the budget, in a line for `doctor`, with this command's calls stored first.
    func spendLine(storingInto usageDays: any UsageDays) async throws -> String
    /// Takes back the lasting refusals stored by earlier runs, so that what was refused is not asked again.
    func restoreRefusals(from state: any BotState) async throws
}

/// What the doctor's network checks are told.
public struct DoctorContext: Sendable {
    /// Whether the bot may like (`LIKES` is not `off`: its tokens then need the likes' permission).
    public var liking: Bool
    /// Whether `LIKES=on` asks for likes even where the network discourages them (`auto` follows the network).
    public var likesForced: Bool
    /// Whether the person's posts with links are copied.
    public var postLinks: Bool

    /// A context from its parts.
    public init(liking: Bool, likesForced: Bool = false, postLinks: Bool) {
        self.liking = liking
        self.likesForced = likesForced
        self.postLinks = postLinks
    }
}

/// One line of `doctor`.
public enum DoctorFinding: Sendable, Equatable {
    /// `label` works: `detail`.
    case ok(_ label: String, _ detail: String)
    /// `label` does not work: `problem` (what to do, where it can be said).
    case failed(_ label: String, _ problem: String)
    /// `label` works, and could be better: `advice` (what the person or the operator may do; not a failure).
    case note(_ label: String, _ advice: String)

    /// Whether it is a failure.
    public var isFailure: Bool { if case .failed = self { true } else { false } }
    /// What was checked (`human account`, `bot flag`, …).
    public var label: String {
        switch self {
        case .ok(let label, _), .failed(let label, _), .note(let label, _): label
        }
    }

    /// "ok    label: detail", "FAIL  label: problem" or "note  label: advice".
    public var line: String {
        switch self {
        case .ok(let label, let detail): "ok    \(label): \(detail)"
        case .failed(let label, let problem): "FAIL  \(label): \(problem)"
        case .note(let label, let advice): "note  \(label): \(advice)"
        }
    }
}

/// The doctor's network checks: the findings, and the network they were made with (for what the doctor asks next).
public struct DoctorReport: Sendable {
    /// The findings, in order.
    public var findings: [DoctorFinding]
    /// The network the checks used.
    public var network: CommandNetwork

    /// A report from its parts.
    public init(findings: [DoctorFinding], network: CommandNetwork) {
        self.findings = findings
        self.network = network
    }
}

/// An account's authorization under way (`mirror_bot auth`): the person approves the app at `address`, as the
/// account, and the code the network shows there finishes it.
public protocol PendingAuthorization: Sendable {
    /// Where the person approves the app.
    var address: URL { get }
    /// Exchanges the code the network showed (X: a PIN) for the account's access; throws `AuthorizationRefused`.
    func finish(code: String) async throws -> AuthorizedAccount
    /// Finishes with the whole query the network sent the browser back with (a web sign-in's callback: `code`,
    /// `state`, and where the network sends them, `iss`); by default its `code` is exchanged.
    func finish(callback query: [String: String]) async throws -> AuthorizedAccount
}

extension PendingAuthorization {
    /// The callback's `code`, exchanged.
    public func finish(callback query: [String: String]) async throws -> AuthorizedAccount { try await finish(code: query["code"] ?? "") }
}

/// The front door a web sign-in comes back to: its public address, a secret of its own that stays the same across
/// restarts (from `FLEET_KEY`), and the process's environment (for a network's own settings, such as its service).
public struct WebDoor: Sendable {
    /// Where people reach the door (`PUBLIC_URL`).
    public var publicURL: URL
    /// 32 bytes that only this deploy knows, the same in each of its processes: what a network's client keys are
    /// derived from.
    public var secret: Data
    /// The process's environment.
    public var environment: [String: String]
    /// The time a network's requests are stamped with (proofs, assertions): the system's, or a rehearsal's.
    public var clock: any BotClock

    /// A door from its parts.
    public init(publicURL: URL, secret: Data, environment: [String: String], clock: any BotClock = SystemBotClock()) {
        self.publicURL = publicURL
        self.secret = secret
        self.environment = environment
        self.clock = clock
    }

    /// The door's callback, where every network sends the browser back.
    public var callback: URL { publicURL.appending(path: "sign-in/callback") }
}

/// A document the front door serves for a network at its own address (atproto's client metadata and key set).
public struct WebDocument: Sendable {
    /// Its path at the door (`oauth/client-metadata.json`), without a leading slash.
    public var path: String
    /// Its body (JSON).
    public var body: Data

    /// A document from its parts.
    public init(path: String, body: Data) {
        self.path = path
        self.body = body
    }
}

/// A network's sign-in from a web page (`mirror_bot web`, the front door): the browser is sent to the network's page,
/// where the account's owner approves, and comes back to `redirect` with a code and `state`.
public protocol WebSignIn: Sendable {
    /// A server a person would type, for the page's hint (`mastodon.social`); nil where the network is one service.
    var serverExample: String? { get }

    /// Starts `account`'s sign-in on `server` (an instance's address, as a person types it; unused where the network
    /// is one service): the address to send the browser to, and what exchanges the code it brings back. Throws
    /// `AuthorizationRefused` saying what to do.
    func begin(for account: Account, server: String, redirect: URL, state: String, logger: Logger) async throws -> any PendingAuthorization

    /// The flow as `door` runs it (a network whose client is the door itself makes its client here); nil when the
    /// door lacks what the flow needs (its operator's app keys), and the network is then not offered. By default the
    /// flow as it is.
    func at(_ door: WebDoor) -> (any WebSignIn)?
    /// What the door serves for this flow at its own address; none by default.
    var documents: [WebDocument] { get }
}

extension WebSignIn {
    /// The flow as it is: it needs nothing of the door but its callback.
    public func at(_ door: WebDoor) -> (any WebSignIn)? { self }
    /// None.
    public var documents: [WebDocument] { [] }
}

/// How a sign-in whose tokens live in the store is kept there, sealed (Bluesky's OAuth session).
public typealias SignInKeeping = @Sendable (_ state: any BotState, _ sealer: any SecretSealer) async throws -> Void

/// An account's access, got by `mirror_bot auth`.
public struct AuthorizedAccount: Sendable {
    /// The account's handle, without the @.
    public var handle: String
    /// Its user id.
    public var userID: String
    /// The account as the network identifies it in a consent record (`VerifiedPerson.account`): the user id on X, the
    /// DID on Bluesky, `id@instance` on Mastodon and Misskey.
    public var networkAccount: String
    /// The variables to set and their values: secrets.
    public var variables: [(name: String, value: String)]
    /// For a sign-in whose tokens live in the store rather than in variables (Bluesky's OAuth session): how they are
    /// kept there, sealed.
    public var keeping: SignInKeeping?
    /// Gives the access back at the network (revokes the grant), for a sign-in that is refused after it was made (the
    /// person's own account offered as the bot's); nil where the network has no way to (the grant then stays until the
    /// account's owner revokes it). Returns whether the network took it back.
    public var release: (@Sendable () async -> Bool)?

    /// An authorized account from its parts; `networkAccount` is the user id unless given.
    public init(
        handle: String, userID: String, networkAccount: String? = nil, variables: [(name: String, value: String)], keeping: SignInKeeping? = nil,
        release: (@Sendable () async -> Bool)? = nil
    ) {
        self.release = release
        self.handle = handle
        self.userID = userID
        self.networkAccount = networkAccount ?? userID
        self.variables = variables
        self.keeping = keeping
    }
}

/// The network refused a step of an authorization, in words for the person.
public struct AuthorizationRefused: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// A refusal saying `description`.
    public init(_ description: String) { self.description = description }
}

/// How a fleet names the server a bot's account is on.
public enum FleetServers {
    /// The host of `url` as DNS compares it (lower case, no trailing dot), with its port when it names one that is not
    /// its scheme's own (two servers on one host are two servers; `Mastodon.Social.` and `mastodon.social:443` are one).
    public static func name(of url: URL) -> String {
        guard var host = url.host()?.lowercased() else { return url.absoluteString }
        if host.hasSuffix(".") { host.removeLast() }
        let defaultPort = url.scheme?.lowercased() == "http" ? 80 : 443
        return host + (url.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? "")
    }
}
