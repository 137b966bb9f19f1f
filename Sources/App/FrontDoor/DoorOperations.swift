public import Foundation
public import Stores

/// What the operator's page (`/operator`) reads and does: the fleet's bots, its processes, the sign-ups, the
/// invitations, and the audit log that records each thing the operator did.
public protocol DoorOperations: Sendable {
    /// Everything the page shows, read now.
    func overview(now: Date) async throws -> DoorOverview
    /// Pauses the bot `name` (`paused`) or lifts a pause that is the operator's or a failure's, recorded as `actor`'s; a
    /// person's own pause (or a mirror never started) is theirs to lift: that throws `DoorMirrorRefused`. False when
    /// there is no such bot.
    func setPaused(_ paused: Bool, bot name: String, by actor: String) async throws -> Bool
    /// Makes an invitation for `note`, good for `days` days, recorded as `actor`'s: its code, shown once (only its
    /// digest is kept).
    func invite(note: String, days: Int, by actor: String, now: Date) async throws -> String
    /// Withdraws the invitation `id`, recorded as `actor`'s; false when there is none.
    func withdrawInvitation(_ id: Int64, by actor: String) async throws -> Bool
    /// Whether `code` is an invitation's, unused and unexpired.
    func isOpenInvitation(_ code: String) async throws -> Bool
    /// Records something else the operator did (signed in at the page).
    func record(_ action: String, by actor: String) async throws
}

/// The operator's page's content.
public struct DoorOverview: Sendable {
    /// A bot of the fleet as the page lists it.
    public struct Bot: Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its network's key.
        public var network: String
        /// Why it is paused, when it is.
        public var pauseReason: String?
        /// Whether its pause is its person's (theirs to lift, not the operator's).
        public var pausedByItsPerson: Bool
        /// Whether its pause is a failure's (the fleet paused it: revoked tokens, a refused configuration).
        public var failed: Bool
        /// The process running it, when one does.
        public var holder: String?
        /// When it was added.
        public var createdAt: Date?

        /// A bot from its parts.
        public init(
            name: String, network: String, pauseReason: String?, pausedByItsPerson: Bool, failed: Bool, holder: String?, createdAt: Date?
        ) {
            self.name = name
            self.network = network
            self.pauseReason = pauseReason
            self.pausedByItsPerson = pausedByItsPerson
            self.failed = failed
            self.holder = holder
            self.createdAt = createdAt
        }
    }

    /// Every bot, by name.
    public var bots: [Bot]
    /// The fleet's live processes.
    public var processes: [FleetProcess]
    /// Every invitation, the newest first.
    public var invitations: [FleetInvitation]
    /// The operator's latest actions, newest first.
    public var audit: [FleetAuditEntry]
    /// The most mirrors the door makes (`DOOR_MAX_MIRRORS`).
    public var maxMirrors: Int

    /// The mirrors the door made (and were not deleted).
    public var madeAtDoor: [Bot] { bots.filter { $0.name.hasPrefix("door-") } }

    /// An overview from its parts.
    public init(bots: [Bot], processes: [FleetProcess], invitations: [FleetInvitation], audit: [FleetAuditEntry], maxMirrors: Int) {
        self.bots = bots
        self.processes = processes
        self.invitations = invitations
        self.audit = audit
        self.maxMirrors = maxMirrors
    }
}
