public import Foundation

/// The bots of a fleet and who runs each (tables `fleet_bots`, `fleet_leases`, `fleet_processes`, with the operator's
/// `fleet_audit` and the front door's `fleet_invitations`; Postgres only): every
/// bot's settings sealed with `FLEET_KEY`, its stores in a schema of its own, and a lease per bot that one process
/// holds at a time, with a fencing number that grows with each new holder. Processes share the bots without a
/// coordinator: each claims what is free or expired, up to its share of the live processes.
public protocol FleetRegistry: Sendable {
    /// Adds a bot, paused `pausedBecause` when it is given (no process claims it until it is resumed); throws
    /// `FleetError.nameTaken` when the name is in use.
    func add(name: String, network: String, sealedSettings: Data, pausedBecause: String?) async throws -> FleetBot
    /// Adds a bot whose stores are the tables `start` made in `schema`: they move into the bot's own schema in place (no
    /// row copied), and `schema` keeps a note of the bot they went to (`adopted_into_fleet`), which the single-bot
    /// commands refuse. One transaction. Returns the bot and how many tables moved; throws `FleetError.nameTaken`,
    /// `FleetError.nothingToAdopt`.
    func adopt(name: String, network: String, sealedSettings: Data, storesIn schema: String) async throws -> (bot: FleetBot, tables: Int)
    /// Every bot, by name, with who holds it.
    func bots() async throws -> [FleetBot]
    /// One bot by name, nil when there is none.
    func bot(named name: String) async throws -> FleetBot?
    /// Pauses a bot (`reason` says why: the operator, or revoked tokens) or resumes it (nil); false when there is none.
    @discardableResult func setPaused(_ name: String, reason: String?) async throws -> Bool
    /// Sets a bot's pause to `reason` only while it is still `current` (one statement: a change made meanwhile, a
    /// person's pause, is never overwritten unseen); false when it was not (or there is no such bot).
    func setPaused(_ name: String, reason: String?, ifStill current: String?) async throws -> Bool
    /// Replaces a bot's sealed settings, and lets go of its lease in the same statement (a new holder raises the fencing
    /// number): the process that runs it stops writing and lets it go at its next renewal, and the next round starts it
    /// with these settings. False when there is none.
    @discardableResult func replaceSettings(of name: String, with sealedSettings: Data) async throws -> Bool
    /// Removes a bot, its lease and its schema with its data; false when there is none.
    @discardableResult func remove(_ name: String) async throws -> Bool

    /// Says `process` is alive now; returns how many processes are (heard from within `liveness`).
    func heartbeat(_ process: String, liveness: TimeInterval) async throws -> Int
    /// Claims up to `limit` bots that are not paused and whose lease is free or expired, for `process`, until
    /// `expiresIn` from now; each claim raises the bot's fencing number. Returns the bots claimed with their numbers.
    func claim(for process: String, limit: Int, expiresIn: TimeInterval) async throws -> [FleetClaim]
    /// Extends the leases `process` still holds among `claims` (same fencing number, not paused), until `expiresIn` from
    /// now; returns the ones it still holds.
    func renew(_ claims: [FleetClaim], for process: String, expiresIn: TimeInterval) async throws -> [FleetClaim]
    /// Lets go of `process`'s leases at once (a graceful stop), and says it is gone.
    func release(for process: String) async throws
    /// Lets go of `claims` of `process` at once (a bot handed over to another process).
    func release(_ claims: [FleetClaim], for process: String) async throws
    /// Whether `claim` still holds now (its holder and its fencing number unchanged, not expired): what a write of that
    /// bot checks first.
    func holds(_ claim: FleetClaim, for process: String) async throws -> Bool

    /// The processes heard from within `liveness`, the most recently heard first.
    func processes(liveness: TimeInterval) async throws -> [FleetProcess]

    /// Records what the operator did, now (`fleet_audit`: kept until the fleet's tables go).
    func audit(_ entry: FleetAuditEntry) async throws
    /// The operator's latest `limit` actions, newest first.
    func auditLog(limit: Int) async throws -> [FleetAuditEntry]

    /// Keeps an invitation by the SHA-256 of its code (the code itself is never stored), good until `expiresAt`.
    func invite(codeDigest: Data, note: String, expiresAt: Date) async throws -> FleetInvitation
    /// Every invitation, the newest first.
    func invitations() async throws -> [FleetInvitation]
    /// Whether an invitation of that digest is there, unused and unexpired.
    func isOpenInvitation(codeDigest: Data) async throws -> Bool
    /// Uses the invitation of that digest for the bot `bot`, when it is open (one statement: two people cannot both use
    /// it); false when it is not.
    func useInvitation(codeDigest: Data, for bot: String) async throws -> Bool
    /// Gives back the invitation of that digest (the mirror it was used for could not be made): open again until it
    /// expires.
    func returnInvitation(codeDigest: Data) async throws
    /// Forgets the name of the bot `name` where the audit log and the invitations keep it (its person deleted it: the
    /// name is made from their account); what was done stays recorded.
    func forgetName(of bot: String) async throws
    /// Withdraws the invitation `id` (its code no longer opens anything); false when there is none unused.
    @discardableResult func withdrawInvitation(_ id: Int64) async throws -> Bool
}

extension FleetRegistry {
    /// Adds a bot that processes may claim at once; throws `FleetError.nameTaken` when the name is in use.
    public func add(name: String, network: String, sealedSettings: Data) async throws -> FleetBot {
        try await add(name: name, network: network, sealedSettings: sealedSettings, pausedBecause: nil)
    }
}

/// A bot of the fleet.
public struct FleetBot: Sendable, Equatable {
    /// Its number.
    public var id: Int64
    /// Its name (lower-case letters, digits, `-` and `_`).
    public var name: String
    /// Its network (`x`, `mastodon`, …), for listing.
    public var network: String
    /// Its settings (`NETWORK`, accounts, `TZ`, options), sealed with `FLEET_KEY`.
    public var sealedSettings: Data
    /// Why it is paused, when it is.
    public var pauseReason: String?
    /// Who holds its lease, when anyone does and it has not expired.
    public var holder: String?
    /// Until when.
    public var leaseExpiresAt: Date?
    /// Its fencing number.
    public var fence: Int64
    /// When it was added.
    public var createdAt: Date?

    /// The schema its stores live in.
    public var schema: String { FleetBot.schema(of: id) }
    /// The schema of bot `id`.
    public static func schema(of id: Int64) -> String { "bot_\(id)" }
    /// Whether a name may be a bot's.
    public static func isValidName(_ name: String) -> Bool {
        name.wholeMatch(of: /[a-z0-9][a-z0-9_\-]{0,39}/) != nil
    }

    /// A bot from its parts.
    public init(
        id: Int64, name: String, network: String, sealedSettings: Data, pauseReason: String? = nil, holder: String? = nil,
        leaseExpiresAt: Date? = nil, fence: Int64 = 0, createdAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.network = network
        self.sealedSettings = sealedSettings
        self.pauseReason = pauseReason
        self.holder = holder
        self.leaseExpiresAt = leaseExpiresAt
        self.fence = fence
        self.createdAt = createdAt
    }
}

/// A process of the fleet, as its heartbeats say.
public struct FleetProcess: Sendable, Equatable {
    /// Its name in the leases.
    public var id: String
    /// When it last said it was alive.
    public var heardAt: Date

    /// A process from its parts.
    public init(id: String, heardAt: Date) {
        self.id = id
        self.heardAt = heardAt
    }
}

/// One thing the operator did: when, from where, what, to which bot.
public struct FleetAuditEntry: Sendable, Equatable {
    /// When (the database's clock, as it was recorded).
    public var at: Date?
    /// Who and from where (`the operator's page (203.0.113.9)`, `mirror_bot bots on run.1234`).
    public var actor: String
    /// What, in a few words (`paused`, `made an invitation`).
    public var action: String
    /// The bot it was done to, when it was one.
    public var bot: String?
    /// More, in a sentence (never a secret).
    public var detail: String?

    /// An entry from its parts.
    public init(at: Date? = nil, actor: String, action: String, bot: String? = nil, detail: String? = nil) {
        self.at = at
        self.actor = actor
        self.action = action
        self.bot = bot
        self.detail = detail
    }
}

/// An invitation to make a mirror at the front door (`DOOR_SIGN_UP=invitations`).
public struct FleetInvitation: Sendable, Equatable {
    /// Its number.
    public var id: Int64
    /// The operator's note (who it is for).
    public var note: String
    /// When it was made.
    public var createdAt: Date
    /// Until when it may be used.
    public var expiresAt: Date
    /// When it was used, and for which bot.
    public var usedAt: Date?
    /// The bot it made.
    public var usedFor: String?

    /// An invitation from its parts.
    public init(id: Int64, note: String, createdAt: Date, expiresAt: Date, usedAt: Date? = nil, usedFor: String? = nil) {
        self.id = id
        self.note = note
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.usedFor = usedFor
    }
}

/// A process's hold on a bot: the bot and the fencing number of this hold.
public struct FleetClaim: Sendable, Equatable, Hashable {
    /// The bot's number.
    public var botID: Int64
    /// The fencing number of this hold: larger than any earlier holder's.
    public var fence: Int64

    /// A claim from its parts.
    public init(botID: Int64, fence: Int64) {
        self.botID = botID
        self.fence = fence
    }
}

/// What the fleet's registry refuses.
public enum FleetError: Error, Equatable, CustomStringConvertible {
    /// A bot of that name exists.
    case nameTaken(String)
    /// No bot of that name.
    case noSuchBot(String)
    /// The name is not one a bot may have.
    case badName(String)
    /// A statement of a fleet's bot was refused: its lease is no longer this hold (lapsed, or taken by another process).
    case leaseLost(botID: Int64, fence: Int64)
    /// `bots adopt` found no stores of a bot in the schema.
    case nothingToAdopt(schema: String)

    /// The sentence.
    public var description: String {
        switch self {
        case .nameTaken(let name): "There is already a bot named \(name): choose another name, or `mirror_bot bots remove \(name)` first."
        case .noSuchBot(let name): "There is no bot named \(name) (`mirror_bot bots list` shows them)."
        case .badName(let name): "\"\(name)\" is not a bot's name: 1 to 40 lower-case letters, digits, - and _, starting with a letter or a digit."
        case .nothingToAdopt(let schema):
            "There are no stores of a bot in the schema \(schema) (no schema_migrations table), or they went to the fleet already: `mirror_bot bots add` adds a new bot."
        case .leaseLost(let botID, let fence):
            "the lease of bot \(botID) is no longer this process's hold \(fence) (it lapsed, or another process took it): nothing more is written for it here"
        }
    }
}
