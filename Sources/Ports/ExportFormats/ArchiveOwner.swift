import Foundation

/// Whose archive it is, as the archive itself names its account (a user id, an actor's address, a DID); some exports
/// name nobody.
public struct ArchiveOwner: Sendable, Equatable, CustomStringConvertible {
    /// The network the archive is of, as its folder names it ("Mastodon").
    public var network: String
    /// The account as that network identifies it: a user id, an actor's address, a DID.
    public var account: String
    /// Its handle, where the archive says.
    public var handle: String?

    /// An owner from its parts.
    public init(network: String, account: String, handle: String?) {
        self.network = network
        self.account = account
        self.handle = handle
    }

    /// The owner of an archive whose activities are by the ActivityPub actor at `address` (`https://host/users/name`),
    /// on `network`: its handle is the address's username.
    public static func actor(_ address: String, on network: String) -> ArchiveOwner {
        var owner = ArchiveOwner(network: network, account: address, handle: nil)
        owner.handle = owner.actorAddress?.username
        return owner
    }

    /// "@hanako (X 123)", "@hanako (Mastodon https://mastodon.example/users/hanako)", "did:plc:… on Bluesky".
    public var description: String { handle.map { "@\($0) (\(network) \(account))" } ?? "\(account) on \(network)" }

    /// The username and server (`host[:port]`) of an account named by its actor's address `https://host/users/name`;
    /// nil for an account named otherwise.
    public var actorAddress: (username: String, server: String)? {
        guard let url = URL(string: account), url.scheme == "https" || url.scheme == "http", let host = url.host() else { return nil }
        let parts = url.path().split(separator: "/")
        guard let users = parts.firstIndex(of: "users"), users + 1 < parts.count else { return nil }
        return (String(parts[users + 1]), host + (url.port.map { ":\($0)" } ?? ""))
    }
}
