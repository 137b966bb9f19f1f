import BotCore
public import Foundation

/// The front door's address (`mirror_bot web`): where people reach it, and where the networks send browsers back.
public struct FrontDoorSection: ConfigurationSection, Equatable {
    /// `PUBLIC_URL`: the door's address as people reach it; nil when unset (`mirror_bot web` then serves
    /// `http://localhost:PORT`, for this machine only).
    public var publicURL: URL?

    /// The variables of this section.
    public static let variableNames = ["PUBLIC_URL"]

    /// Reads the section: an https:// address, or http:// for this machine only (a sign-in's code must not cross the
    /// internet in the clear).
    public init(reading environment: inout EnvironmentReader) {
        publicURL = nil
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
