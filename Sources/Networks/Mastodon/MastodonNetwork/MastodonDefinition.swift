public import BotConfiguration
public import SocialNetwork

/// a Mastodon instance (OAuth 2 bearer tokens), as the registry lists it: `NETWORK=mastodon`.
public struct MastodonDefinition: NetworkDefinition {
    /// The definition.
    public init() {}

    /// `NETWORK=mastodon`.
    public var key: String { "mastodon" }
    /// "Mastodon".
    public var name: String { "Mastodon" }
    /// Its section's variables.
    public var variableNames: [String] { MastodonNetworkSettings.variableNames }

    /// Its module, from its section.
    public func module(reading environment: inout EnvironmentReader) -> any NetworkModule {
        MastodonNetworkModule(settings: MastodonNetworkSettings(reading: &environment))
    }
}
