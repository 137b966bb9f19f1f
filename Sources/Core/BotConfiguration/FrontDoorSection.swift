import BotCore
public import Foundation

/// The front door's address (`mirror_bot web`): where people reach it, and where the networks send browsers back.
public struct FrontDoorSection: ConfigurationSection, Equatable {
    /// `PUBLIC_URL`: the door's address as people reach it; nil when unset (`mirror_bot web` then serves
    /// `http://localhost:PORT`, for this machine only).
    public var publicURL: URL?
    /// `DOOR_SIGN_UP`: who may make a new mirror at the door.
    public var signUp: SignUp = .open
    /// `DOOR_SERVERS`: with `DOOR_SIGN_UP=servers`, the servers people may sign in from, as typed (`social.example`,
    /// `notes.example`; the door compares them as DNS does).
    public var servers: [String] = []
    /// `DOOR_MAX_MIRRORS`: the most mirrors the door makes (those made and not deleted); 0: none new.
    public var maxMirrors = 100
    /// `DOOR_OPERATOR_PASSWORD`: the operator's page's password (16 characters or more); nil: no operator's page.
    public var operatorPassword: String?

    /// Who may make a new mirror at the door.
    public enum SignUp: String, Sendable, Equatable, CaseIterable {
        /// Anyone signed in as themselves.
        case open
        /// Only people whose account is on one of `DOOR_SERVERS` (nobody else signs in at all).
        case servers
        /// Only people who bring an invitation the operator made on the operator's page.
        case invitations
        /// Nobody new: people who have a mirror still sign in to see, pause or delete it.
        case closed
    }

    /// The variables of this section.
    public static let variableNames = ["PUBLIC_URL", "DOOR_SIGN_UP", "DOOR_SERVERS", "DOOR_MAX_MIRRORS", "DOOR_OPERATOR_PASSWORD"]

    /// Reads the section: an https:// address, or http:// for this machine only (a sign-in's code must not cross the
    /// internet in the clear).
    public init(reading environment: inout EnvironmentReader) {
        publicURL = nil
        signUp = environment.choice("DOOR_SIGN_UP", default: .open, expected: "open, servers (those of DOOR_SERVERS), invitations or closed")
        servers =
            environment.value("DOOR_SERVERS")?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
        if signUp == .servers, servers.isEmpty {
            environment.malformed(
                "DOOR_SERVERS", expected: "the servers people may sign up from, such as social.example,notes.example (DOOR_SIGN_UP=servers)",
                shown: nil
            )
        }
        maxMirrors = environment.count("DOOR_MAX_MIRRORS", default: 100, allowsZero: true, maximum: 1_000_000, meaning: "mirrors the door makes")
        if let password = environment.value("DOOR_OPERATOR_PASSWORD") {
            if password.count >= 16 {
                operatorPassword = password
            } else {
                environment.malformed("DOOR_OPERATOR_PASSWORD", expected: "a password of 16 characters or more", shown: nil)
            }
        }
        if signUp == .invitations, operatorPassword == nil {
            environment.malformed(
                "DOOR_OPERATOR_PASSWORD", expected: "the operator's password (DOOR_SIGN_UP=invitations: invitations are made on the operator's page)",
                shown: nil)
        }
        guard let text = environment.value("PUBLIC_URL") else { return }
        if let url = URL(string: text), let host = url.host(), !host.isEmpty,
            url.scheme == "https" || (url.scheme == "http" && LoopbackHost.contains(host))
        {
            publicURL = url
        } else {
            environment.malformed(
                "PUBLIC_URL", expected: "the door's https:// address, such as https://mirror.example (http:// only for localhost)", shown: text)
        }
    }
}
