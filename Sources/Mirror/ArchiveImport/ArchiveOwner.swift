import Foundation

/// Whose archive it is, as the archive itself names its account: X's `account.js` (the user id), the actor of a
/// Mastodon outbox (its address), a Bluesky repository's DID. Misskey's notes export names nobody.
public struct ArchiveOwner: Sendable, Equatable, CustomStringConvertible {
    /// The network the archive is of, as its module names it ("X", "Mastodon", "Bluesky").
    public var network: String
    /// The account as that network identifies it: an X user id, a Mastodon actor's address, a DID.
    public var account: String
    /// Its handle, where the archive says (X's username then, a Mastodon actor's username).
    public var handle: String?

    /// An owner from its parts.
    public init(network: String, account: String, handle: String?) {
        self.network = network
        self.account = account
        self.handle = handle
    }

    /// The owner of a Mastodon outbox whose activities are by `actor` (`https://host/users/name`).
    public static func mastodonActor(_ actor: String) -> ArchiveOwner {
        var owner = ArchiveOwner(network: "Mastodon", account: actor, handle: nil)
        owner.handle = owner.mastodonAcct?.username
        return owner
    }

    /// "@hanako (X 123)", "@hanako (Mastodon https://mastodon.example/users/hanako)", "did:plc:… on Bluesky".
    public var description: String { handle.map { "@\($0) (\(network) \(account))" } ?? "\(account) on \(network)" }

    /// A Mastodon actor's username and server (`host[:port]`), from its address `https://host/users/name`.
    public var mastodonAcct: (username: String, server: String)? {
        guard network == "Mastodon", let url = URL(string: account), let host = url.host() else { return nil }
        let parts = url.path().split(separator: "/")
        guard let users = parts.firstIndex(of: "users"), users + 1 < parts.count else { return nil }
        return (String(parts[users + 1]), host + (url.port.map { ":\($0)" } ?? ""))
    }
}
