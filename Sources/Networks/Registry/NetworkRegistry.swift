import BlueskyNetwork
import MastodonNetwork
import MisskeyNetwork
public import SocialNetwork
import XNetwork

/// The networks mirror_bot runs on, one line each: adding a network is adding its folder under `Sources/Networks`,
/// its line here, and its targets in Package.swift (see docs/architecture.md, "Adding a network").
public enum NetworkRegistry {
    /// Every network, the default (`NETWORK` not set) first.
    public static let networks: [any NetworkDefinition] = [
        XDefinition(),
        MastodonDefinition(),
        BlueskyDefinition(),
        MisskeyDefinition(),
    ]

    /// The choices among them.
    public static let choices = NetworkChoices(networks)
}
