public import BlueskyAPI
public import BotClock
public import BotConfiguration
public import BotCore
public import Foundation
public import Logging
public import SocialNetwork
public import Stores

/// Bluesky's section of the configuration: where accounts log in, the bot's handle and app password, the person's
/// handle (their app password only to read their likes).
public struct BlueskyNetworkSettings: ConfigurationSection {
    /// `BLUESKY_SERVICE_URL`: where accounts log in (default the public entryway, `https://bsky.social`).
    public var service: URL
    /// `BOT_BLUESKY_HANDLE` and `BOT_BLUESKY_APP_PASSWORD`, or `BOT_BLUESKY_SIGN_IN=oauth` (the bot's account signed in
    /// at the front door: its session is kept in the store, sealed), when set.
    public var bot: BlueskyAccess?
    /// `HUMAN_BLUESKY_HANDLE` and, optionally, `HUMAN_BLUESKY_APP_PASSWORD`, or `HUMAN_BLUESKY_SIGN_IN=oauth` (the
    /// person signed in with atproto OAuth: their session is kept in the store, sealed).
    public var human: BlueskyAccess?
    /// `POST_CW`: the person's posts with self-labels are learned and copied with their labels.
    public var copyingLabels: Bool

    /// The variables of Bluesky's section.
    public static let variableNames = [
        "BLUESKY_SERVICE_URL", "BOT_BLUESKY_HANDLE", "BOT_BLUESKY_APP_PASSWORD", "HUMAN_BLUESKY_HANDLE",
        "HUMAN_BLUESKY_APP_PASSWORD", "HUMAN_BLUESKY_SIGN_IN", "BOT_BLUESKY_SIGN_IN",
    ]

    /// Bluesky's settings from their parts.
    public init(service: URL = BlueskyClient.Configuration.entryway, bot: BlueskyAccess?, human: BlueskyAccess?, copyingLabels: Bool = false) {
        self.service = service
        self.bot = bot
        self.human = human
        self.copyingLabels = copyingLabels
    }

    /// Reads Bluesky's variables: a handle is a domain name (a leading @ is dropped), the bot's needs its app password.
    public init(reading environment: inout EnvironmentReader) {
        service = environment.apiBaseURL("BLUESKY_SERVICE_URL", default: BlueskyClient.Configuration.entryway, example: "https://bsky.social")
        func access(_ account: Account, needsPassword: Bool) -> BlueskyAccess? {
            let handleName = account.environmentPrefix + "BLUESKY_HANDLE"
            let passwordName = account.environmentPrefix + "BLUESKY_APP_PASSWORD"
            let (handleText, password) = (environment.value(handleName), environment.value(passwordName))
            if handleText == nil && password == nil { return nil }
            guard let handleText else {
                environment.report(
                    .init(
                        variable: handleName, isMissing: true,
                        expected: "the \(account) account's handle, such as alice.bsky.social (\(passwordName) is set)"))
                return nil
            }
            let handle = (handleText.hasPrefix("@") ? String(handleText.dropFirst()) : handleText).lowercased()
            guard RichText.isHandle(handle) else {
                environment.malformed(handleName, expected: "a Bluesky handle, such as alice.bsky.social", shown: handleText)
                return nil
            }
            if needsPassword && password == nil {
                environment.report(
                    .init(
                        variable: passwordName, isMissing: true,
                        expected: "an app password of @\(handle) (Settings → Privacy and security → App passwords; \(handleName) is set)"))
                return nil
            }
            return BlueskyAccess(handle: handle, appPassword: password)
        }
        // An account signed in by OAuth: its session is in the store, and it has no password.
        func signsInWithOAuth(_ account: Account, by whom: String) -> Bool {
            let name = account.environmentPrefix + "BLUESKY_SIGN_IN"
            guard let signIn = environment.value(name) else { return false }
            guard signIn.lowercased() == "oauth" else {
                environment.malformed(name, expected: "oauth (set by \(whom)), or not set", shown: signIn)
                return false
            }
            return true
        }
        let botByOAuth = signsInWithOAuth(.bot, by: "the front door")
        let humanByOAuth = signsInWithOAuth(.human, by: "`mirror_bot auth bluesky --account human` or the front door")
        bot = access(.bot, needsPassword: !botByOAuth)
        human = access(.human, needsPassword: false)
        for (account, byOAuth) in [(Account.human, humanByOAuth), (.bot, botByOAuth)] where byOAuth {
            if account == .human ? human == nil : bot == nil {
                environment.report(
                    .init(
                        variable: account.environmentPrefix + "BLUESKY_HANDLE", isMissing: true,
                        expected: "the \(account) account's handle, such as alice.bsky.social (\(account.environmentPrefix)BLUESKY_SIGN_IN is set)"))
            } else if account == .human {
                human?.signsInWithOAuth = true
            } else {
                bot?.signsInWithOAuth = true
            }
        }
        copyingLabels = environment.flag("POST_CW")
    }

    /// The access of `account`, when set.
    public func access(of account: Account) -> BlueskyAccess? { account == .human ? human : bot }
}

/// Sessions kept in the bot's state (`bluesky.session.bot`), sealed (`MIRROR_BOT_KEY`, or a fleet's `FLEET_KEY`): a
/// restart renews the stored session instead of logging in again (`createSession` is limited to 300 a day), and a
/// copy of the database gives no token away. A session that does not open (kept before sealing, or sealed with
/// another key) counts as none: the account logs in again, and the new session is kept sealed.
public struct StoredBlueskySessions: BlueskySessionStore {
    /// The store.
    public let state: any BotState
    /// What seals the sessions.
    public let sealer: any SecretSealer

    /// Sessions in `state`, sealed by `sealer`.
    public init(state: any BotState, sealer: any SecretSealer) {
        self.state = state
        self.sealer = sealer
    }

    static func key(_ account: Account) -> String { "bluesky.session.\(account.rawValue)" }

    /// The stored session of `account`; nil when none, or one that does not open or read.
    public func session(of account: Account) async throws -> BlueskySession? {
        guard let text = try await state.value(of: Self.key(account)), let plain = try? sealer.open(text) else { return nil }
        return try? JSONDecoder().decode(BlueskySession.self, from: Data(plain.utf8))
    }

    /// Stores `session` sealed (nil forgets it).
    public func save(_ session: BlueskySession?, of account: Account) async throws {
        guard let session else { return try await state.removeValue(of: Self.key(account)) }
        try await state.setValue(try sealer.seal(String(decoding: try JSONEncoder().encode(session), as: UTF8.self)), of: Self.key(account))
    }

    static func claimKey(_ account: Account) -> String { "bluesky.renewing.\(account.rawValue)" }

    /// How long a renewal may hold the claim: a claim older than this was left by a process that stopped mid-renewal,
    /// and is taken over.
    static let claimLife: TimeInterval = 90

    /// One renewal at a time among every process on this store (the daemon, a command, a fleet's other process): a
    /// claim (`bluesky.renewing.<account>`, its holder and until when) taken by compare-and-set; who finds it held
    /// waits for the session it stores (every second on `clock`), and takes over a claim left to lapse.
    public func renew(
        _ account: Account, replacing stale: BlueskySession, clock: any BotClock,
        by renew: @escaping @Sendable (BlueskySession) async throws -> BlueskySession
    ) async throws -> BlueskySession {
        let (key, me) = (Self.claimKey(account), UUID().uuidString)
        let giveUp = clock.now().addingTimeInterval(2 * Self.claimLife)
        while true {
            if let stored = try await session(of: account), stored.refreshJwt != stale.refreshJwt { return stored }
            let claim = try await state.value(of: key)
            if claim == nil || Self.claimLapsed(claim, at: clock.now()) {
                let mine = "\(me) \(clock.now().addingTimeInterval(Self.claimLife).formatted(.iso8601))"
                guard try await state.replaceValue(of: key, expecting: claim, with: mine) else { continue }
                do {
                    // Renewed between the look and the claim: nothing to spend.
                    if let stored = try await session(of: account), stored.refreshJwt != stale.refreshJwt {
                        _ = try await state.replaceValue(of: key, expecting: mine, with: nil)
                        return stored
                    }
                    let renewed = try await renew(stale)
                    try await save(renewed, of: account)
                    _ = try await state.replaceValue(of: key, expecting: mine, with: nil)
                    return renewed
                } catch {
                    _ = try? await state.replaceValue(of: key, expecting: mine, with: nil)
                    throw error
                }
            }
            guard clock.now() < giveUp else {
                throw BlueskyAPIError.transport(
                    method: "refreshSession", reason: "another process has been renewing the \(account)'s session and has not finished", attempts: 1)
            }
            try await clock.sleep(for: .seconds(1))
        }
    }

    /// Whether `claim` ("<holder> <until>") is past its time, or unreadable.
    static func claimLapsed(_ claim: String?, at now: Date) -> Bool {
        guard let until = claim?.split(separator: " ").last.flatMap({ try? Date(String($0), strategy: .iso8601) }) else { return true }
        return until <= now
    }
}

/// Bluesky as a network module: free, links copied, likes off by default (Bluesky asks bots to act only where they
/// were tagged), each post linked on bsky.app.
public struct BlueskyNetworkModule: NetworkModule {
    /// Bluesky's section of the configuration.
    public let settings: BlueskyNetworkSettings
    private let clock: any BotClock
    /// The person's session for checking their grant, kept between checks: a check asks with it (renewed as needed),
    /// and logs in again only when it no longer works (Bluesky limits logins).
    private let personSessions = InMemoryBlueskySessions()

    /// Why the bot does not like posts on Bluesky unless told to.
    public static let whyNoLikes =
        "Bluesky asks bots to like, repost or reply only where a user tagged them; liking posts of the timeline is unsolicited"

    /// The module for `settings`; commands run on `clock`.
    public init(settings: BlueskyNetworkSettings, clock: any BotClock = SystemBotClock()) {
        self.settings = settings
        self.clock = clock
    }

    /// "Bluesky".
    public var name: String { "Bluesky" }
    public var botServer: String? { FleetServers.name(of: settings.service) }
    /// Yes: links cost nothing.
    public var postsLinksByDefault: Bool { true }
    /// Copies: Bluesky welcomes scheduled posting bots.
    public var postStyleByDefault: PostStyle { .copy }
    /// `https://bsky.app/profile/<handle>/post/<rkey>`: the bot's handle for its posts, the person's for theirs.
    public var postLinks: PostAddresses {
        func link(_ handle: String?) -> @Sendable (String) -> String? {
            { id in
                guard let handle, let rkey = BlueskyIDs.recordKey(ofPost: id) else { return nil }
                return "https://bsky.app/profile/\(handle)/post/\(rkey)"
            }
        }
        return PostAddresses(botSide: link(settings.bot?.handle), personSide: link(settings.human?.handle))
    }
    /// None: the API is free.
    public var dailyBudget: Double? { nil }
    /// `POST_CW`: labelled posts copied with their labels.
    public var copiesContentWarnings: Bool { settings.copyingLabels }
    public var capabilities: NetworkCapabilities { BlueskyMirrorNetwork.capabilities }
    /// None: the person's archive carries DIDs, not addresses to look up.
    public func archiveAccountResolver(logger: Logger) -> (@Sendable (_ address: String) async throws -> AccountID?)? { nil }

    /// The handle (and, for the bot, the app password) of each account in `accounts` that is not set.
    public func missingSettings(for accounts: [Account]) -> [MissingSetting] {
        accounts.filter { settings.access(of: $0) == nil }.flatMap { account -> [MissingSetting] in
            let instead = account == .human ? " (`mirror_bot auth bluesky --account human`, signed in as themselves)" : ""
            var missing = [
                MissingSetting(
                    variable: account.environmentPrefix + "BLUESKY_HANDLE",
                    expected: "the \(account) account's handle, such as alice.bsky.social (NETWORK=bluesky)\(instead)")
            ]
            if account == .bot {
                missing.append(
                    MissingSetting(
                        variable: "BOT_BLUESKY_APP_PASSWORD",
                        expected: "an app password of the bot's account (Settings → Privacy and security → App passwords)"))
            }
            return missing
        }
    }

    /// Bluesky for a command, with sessions kept for the command's length only.
    public func forCommand(accounts: [Account], logger: Logger) -> CommandNetwork {
        CommandNetwork(network: network(sessions: InMemoryBlueskySessions(), clock: clock, logger: logger))
    }

    /// Bluesky for a command, with the sessions kept in the store (`kept`, sealed: the person's OAuth sign-in is only
    /// there), renewed there; in memory without.
    public func forCommand(accounts: [Account], kept: KeptTokens?, logger: Logger) -> CommandNetwork {
        let sessions: any BlueskySessionStore = kept.map { StoredBlueskySessions(state: $0.state, sealer: $0.sealer) } ?? InMemoryBlueskySessions()
        return CommandNetwork(network: network(sessions: sessions, clock: clock, logger: logger))
    }

    /// Bluesky for the daemon, its sessions kept in the bot's state; says who is where, that nothing is billed, and
    /// what Bluesky asks of bots' likes.
    public func forDaemon(_ context: DaemonNetworkContext, logger: Logger) async -> DaemonNetwork {
        logger.notice(
            "network: Bluesky at \(settings.service.host ?? "?"), the person @\(settings.human?.handle ?? "?"), the bot @\(settings.bot?.handle ?? "?"); free, nothing billed"
        )
        // The start refuses to run without a sealer (`storesTokens`); should one be missing all the same, nothing is stored.
        let sessions: any BlueskySessionStore =
            context.sealer.map { StoredBlueskySessions(state: context.state, sealer: $0) } ?? InMemoryBlueskySessions()
        let daemonClient: BlueskyClient = client(sessions: sessions, clock: context.clock, logger: logger)
        let network = BlueskyMirrorNetwork(client: daemonClient, copyingLabels: settings.copyingLabels, clock: context.clock)
        // An OAuth sign-in is checked through the daemon's own client: one client renews its single-use refresh token.
        let oauth = settings.human.map { $0.appPassword == nil && $0.signsInWithOAuth } ?? false
        let check: (@Sendable () async throws -> VerifiedPerson)? = oauth ? { @Sendable in try await Self.verifyPersonByOAuth(daemonClient) } : nil
        return DaemonNetwork(network: network, personCheck: check)
    }

    /// The client for the configured accounts, keeping sessions in `sessions`.
    public func client(sessions: any BlueskySessionStore, clock: any BotClock, logger: Logger) -> BlueskyClient {
        var accounts: [Account: BlueskyAccess] = [:]
        for account in Account.allCases { accounts[account] = settings.access(of: account) }
        return BlueskyClient(
            configuration: .init(service: settings.service, accounts: accounts), sessionStore: sessions, clock: clock, logger: logger)
    }

    private func network(sessions: any BlueskySessionStore, clock: any BotClock, logger: Logger) -> BlueskyMirrorNetwork {
        BlueskyMirrorNetwork(client: client(sessions: sessions, clock: clock, logger: logger), copyingLabels: settings.copyingLabels, clock: clock)
    }

    /// The bot's session (its DID and PDS), the person's handle, the bot's `bot` self-label.
    public func doctor(_ context: DoctorContext, logger: Logger) async -> DoctorReport {
        let network = network(sessions: InMemoryBlueskySessions(), clock: clock, logger: logger)
        var findings: [DoctorFinding] = []
        for account in [Account.human, .bot] {
            let label = "\(account) account"
            guard settings.access(of: account) != nil else {
                findings.append(.failed(label, missingSettings(for: [account]).map(\.variable).joined(separator: " and ") + " not set"))
                continue
            }
            do {
                let user = try await network.whoAmI(account)
                let did = try await network.did(of: account)
                var detail = "@\(user.handle) (\(did))"
                if account == .bot, let pds = try await network.client.session(of: .bot).pds { detail += ", its PDS \(pds.absoluteString)" }
                findings.append(.ok(label, detail))
                guard account == .bot else { continue }
                findings.append(
                    user.markedAutomated == true
                        ? .ok("bot label", "@\(user.handle)'s profile carries the self-label \"bot\"")
                        : .failed(
                            "bot label", BotDisclosure.botLabel.problem(bot: user, person: user, networkName: "Bluesky") ?? "no self-label \"bot\""))
            } catch {
                findings.append(.failed(label, "\(error)"))
            }
        }
        if context.likesForced { findings.append(.ok("likes", "on (LIKES=on), though \(Self.whyNoLikes)")) }
        findings.append(.ok("network", "Bluesky (NETWORK=bluesky) at \(settings.service.absoluteString): free, nothing billed"))
        return DoctorReport(findings: findings, network: CommandNetwork(network: network))
    }

    /// The `bot` self-label on the bot's profile (`labelBotAccount`).
    public func setUpBotAccount(logger: Logger) async throws -> String? { try await labelBotAccount(logger: logger) }

    /// Adds the self-label `bot` to the bot's profile record, keeping every other field (a compare-and-swap on the
    /// record's CID: a profile changed meanwhile is read again). Returns what was done, in a line.
    public func labelBotAccount(logger: Logger) async throws -> String {
        let client = client(sessions: InMemoryBlueskySessions(), clock: clock, logger: logger)
        let session = try await client.session(of: .bot)
        for _ in 0..<3 {
            var profile: [String: JSONValue] = ["$type": .string("app.bsky.actor.profile")]
            var swap: String?
            do {
                let current = try await client.send(GetRecord(repo: session.did, collection: "app.bsky.actor.profile", rkey: "self"), as: .bot)
                if case .object(let fields) = current.value { profile = fields }
                swap = current.cid
            } catch let error as BlueskyAPIError where error.isNotFound {}
            var values: [JSONValue] = []
            if case .array(let existing)? = profile["labels"]?["values"] { values = existing }
            if values.contains(where: { $0["val"]?.stringValue == "bot" }) {
                return "@\(session.handle)'s profile already carries the self-label \"bot\""
            }
            values.append(.object(["val": .string("bot")]))
            profile["labels"] = .object(["$type": .string(SelfLabels.type), "values": .array(values)])
            do {
                _ = try await client.send(
                    PutRecord(
                        repo: session.did, collection: "app.bsky.actor.profile", rkey: "self", record: JSONValue.object(profile),
                        swapRecord: swap), as: .bot)
                return "@\(session.handle)'s profile now carries the self-label \"bot\" (its other fields kept)"
            } catch BlueskyAPIError.rejected(_, _, "InvalidSwap", _) {
                logger.info("Bluesky: the profile changed while it was being labelled; reading it again")
            }
        }
        throw BlueskyAPIError.rejected(method: "com.atproto.repo.putRecord", status: 400, error: "InvalidSwap", message: "the profile kept changing")
    }

    /// The person's handle and app password, or their handle and `HUMAN_BLUESKY_SIGN_IN=oauth` (the sign-in itself in
    /// the store); none otherwise (a handle proves nothing of whoever set it).
    public var personCredentials: [(name: String, value: String)] {
        guard let human = settings.human else { return [] }
        if let password = human.appPassword { return [("HUMAN_BLUESKY_HANDLE", human.handle), ("HUMAN_BLUESKY_APP_PASSWORD", password)] }
        return human.signsInWithOAuth ? [("HUMAN_BLUESKY_HANDLE", human.handle), ("HUMAN_BLUESKY_SIGN_IN", "oauth")] : []
    }

    /// Signing in on Bluesky (atproto OAuth in the person's browser, or an app password of theirs).
    public var personSignInCommand: String { "mirror_bot auth bluesky --account human" }

    /// The daemon keeps each account's session in the store, sealed.
    public var storesTokens: Bool { true }

    /// Each kept OAuth session's grant revoked at its authorization server (found again from the session's PDS), with
    /// the session's DPoP key and, for the front door's, its client's assertion. App-password sessions are the app
    /// password's, which only its owner deletes: not released.
    public func releaseKeptSignIns(state: any BotState, sealer: any SecretSealer, logger: Logger) async -> [Account] {
        let sessions = StoredBlueskySessions(state: state, sealer: sealer)
        let oauth = BlueskyOAuth()
        var released: [Account] = []
        for account in Account.allCases {
            guard let session = try? await sessions.session(of: account), let binding = session.oauth, let pds = session.pds else { continue }
            do {
                let server = try await oauth.server(for: pds)
                let client = try binding.clientKey.map { try ConfidentialClient(clientID: binding.clientID, rawKey: $0) }
                let key = try DPoPKey(rawRepresentation: binding.dpopKey)
                if await oauth.revoke(session.refreshJwt, clientID: binding.clientID, at: server, key: key, now: clock.now(), client: client) {
                    released.append(account)
                } else {
                    logger.warning("Bluesky: the \(account)'s sign-in could not be revoked at \(server.issuer): it lapses on its own")
                }
            } catch {
                logger.warning("Bluesky: the \(account)'s sign-in could not be revoked (\(error)): it lapses on its own")
            }
        }
        return released
    }

    /// An account typed by its DID (`did:plc:…`, `did:web:…`); anything else is a handle.
    public func accountID(typed entry: String) -> String? {
        let trimmed = entry.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.hasPrefix("did:") && trimmed.count > 4 && !trimmed.contains(where: \.isWhitespace) ? trimmed : nil
    }

    /// A session with the person's app password (`createSession` the first time), used to read their profile: their
    /// DID. The session is kept for the next check; a deleted app password ends it, and the new login is refused.
    public func verifyPerson(usageDays: any UsageDays, state: any BotState, sealer: (any SecretSealer)?, logger: Logger) async throws
        -> VerifiedPerson
    {
        guard let human = settings.human, human.appPassword == nil, human.signsInWithOAuth else {
            return try await verifyPerson(usageDays: usageDays, logger: logger)
        }
        guard let sealer else {
            throw PersonSignInRefused("the person's OAuth sign-in is kept in the store sealed with MIRROR_BOT_KEY, which is not set")
        }
        return try await Self.verifyPersonByOAuth(client(sessions: StoredBlueskySessions(state: state, sealer: sealer), clock: clock, logger: logger))
    }

    /// The person's OAuth sign-in still works: `getSession` as them (the `atproto` scope allows it), through `client`,
    /// which renews the session at the authorization server when its access token expired. A revoked grant is refused
    /// there, or by the PDS.
    static func verifyPersonByOAuth(_ client: BlueskyClient) async throws -> VerifiedPerson {
        do {
            let person = try await client.send(GetSession(), as: .human)
            return VerifiedPerson(account: person.did, handle: person.handle, credential: "their OAuth sign-in (HUMAN_BLUESKY_SIGN_IN)")
        } catch let error as BlueskyAPIError {
            switch error {
            case .grantLapsed(_, let detail):
                throw PersonSignInLapsed("the person's OAuth sign-in on Bluesky lapsed: \(detail)")
            case .grantRefused(_, let detail), .loginRefused(_, let detail), .unauthorized(_, _, let detail):
                throw PersonSignInRefused("Bluesky refuses the person's OAuth sign-in: \(detail)")
            default: throw error
            }
        }
    }

    public func verifyPerson(usageDays: any UsageDays, logger: Logger) async throws -> VerifiedPerson {
        guard let human = settings.human, human.appPassword != nil else {
            if settings.human?.signsInWithOAuth == true {
                throw PersonSignInRefused("the person's OAuth sign-in is kept in the store, and this check was not given it")
            }
            throw PersonSignInRefused("HUMAN_BLUESKY_APP_PASSWORD is not set: a handle alone proves nothing of who set it")
        }
        let client = client(sessions: personSessions, clock: clock, logger: logger)
        do {
            let session = try await client.session(of: .human)
            let profile = try await client.send(GetProfile(actor: session.did), as: .human)
            return VerifiedPerson(account: session.did, handle: profile.handle, credential: "HUMAN_BLUESKY_APP_PASSWORD")
        } catch let error as BlueskyAPIError {
            switch error {
            case .loginRefused(_, let detail), .unauthorized(_, _, let detail):
                throw PersonSignInRefused("Bluesky refuses the person's app password (HUMAN_BLUESKY_APP_PASSWORD) for @\(human.handle): \(detail)")
            default: throw error
            }
        }
    }
}
