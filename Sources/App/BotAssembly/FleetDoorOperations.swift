import Crypto
import Fleet
public import Foundation
public import FrontDoor
public import Logging
import Stores

/// The operator's page on the fleet's registry (`DoorOperations`): the bots and processes as the registry has them,
/// the invitations kept by their codes' digests, and every change recorded in the audit log (`fleet_audit`) with who
/// made it. The operator pauses and resumes bots; a pause that is a person's own (or a mirror never started) is
/// theirs: the operator never starts a mirror its person has not.
public struct FleetDoorOperations: DoorOperations {
    /// The fleet's administration.
    public let bots: FleetBots
    /// The most mirrors the door makes (`DOOR_MAX_MIRRORS`), for the page.
    public var maxMirrors: Int
    /// The log.
    public let logger: Logger
    /// How long a process is counted alive after its last heartbeat.
    public var liveness: TimeInterval = 60

    /// Why a bot the operator paused is.
    public static let pausedByTheOperator = "paused by the operator"
    /// What a refused invitation's person reads.
    public static let invitationNotOpen = DoorMirrorRefused.invitationNotOpen.description

    /// The operations on `bots`' fleet.
    public init(bots: FleetBots, maxMirrors: Int, logger: Logger) {
        self.bots = bots
        self.maxMirrors = maxMirrors
        self.logger = logger
    }

    /// The digest an invitation's code is kept by.
    public static func digest(ofInvitation code: String) -> Data { Data(SHA256.hash(data: Data(code.utf8))) }

    /// Whether the pause `reason` is a person's own, theirs to lift.
    public static func isPersonsPause(_ reason: String?) -> Bool {
        reason.map { FleetDoorMirrors.personsReasons.contains($0) || $0 == FleetDoorMirrors.beingDeleted } ?? false
    }

    /// Whether the pause `reason` is one the fleet made after a failure (neither a person's nor an operator's).
    static func isFailure(_ reason: String) -> Bool {
        !FleetDoorMirrors.personsReasons.contains(reason) && !reason.hasPrefix(pausedByTheOperator) && !reason.hasPrefix(FleetBots.pausedByHand)
            && reason != FleetDoorMirrors.beingDeleted
    }

    public func overview(now: Date) async throws -> DoorOverview {
        let liveness = liveness
        return try await bots.withRegistry { registry in
            let listed = try await registry.bots().map { bot in
                DoorOverview.Bot(
                    name: bot.name, network: bot.network, pauseReason: bot.pauseReason, pausedByItsPerson: Self.isPersonsPause(bot.pauseReason),
                    failed: bot.pauseReason.map(Self.isFailure) ?? false, holder: bot.holder, createdAt: bot.createdAt)
            }
            return DoorOverview(
                bots: listed, processes: try await registry.processes(liveness: liveness), invitations: try await registry.invitations(),
                audit: try await registry.auditLog(limit: 50), maxMirrors: maxMirrors)
        }
    }

    public func setPaused(_ paused: Bool, bot name: String, by actor: String) async throws -> Bool {
        do {
            let found = paused ? try await bots.pause(name, reason: Self.pausedByTheOperator, by: actor) : try await bots.resume(name, by: actor)
            if found { logger.notice("web: the operator \(paused ? "paused" : "resumed") the bot \(name)") }
            return found
        } catch let refused as FleetResumeRefused {
            throw DoorMirrorRefused(refused.description)
        }
    }

    public func invite(note: String, days: Int, by actor: String, now: Date) async throws -> String {
        let code = Self.newCode()
        let expires = now.addingTimeInterval(TimeInterval(days) * 86_400)
        try await bots.withRegistry { registry in
            let invitation = try await registry.invite(codeDigest: Self.digest(ofInvitation: code), note: note, expiresAt: expires)
            try await registry.audit(
                FleetAuditEntry(
                    actor: actor, action: "made an invitation", detail: "number \(invitation.id), \"\(note)\", good for \(days) days"))
        }
        logger.notice("web: the operator made an invitation, good for \(days) days")
        return code
    }

    public func withdrawInvitation(_ id: Int64, by actor: String) async throws -> Bool {
        try await bots.withRegistry { registry in
            guard try await registry.withdrawInvitation(id) else { return false }
            try await registry.audit(FleetAuditEntry(actor: actor, action: "withdrew an invitation", detail: "number \(id)"))
            return true
        }
    }

    public func isOpenInvitation(_ code: String) async throws -> Bool {
        try await bots.withRegistry { try await $0.isOpenInvitation(codeDigest: Self.digest(ofInvitation: code)) }
    }

    public func record(_ action: String, by actor: String) async throws {
        try await bots.withRegistry { try await $0.audit(FleetAuditEntry(actor: actor, action: action)) }
    }

    /// 128 random bits, base64url: what an invitation's link carries.
    static func newCode() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
