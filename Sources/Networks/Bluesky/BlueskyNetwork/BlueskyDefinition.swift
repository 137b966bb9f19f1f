public import BotConfiguration
public import SocialNetwork

/// Bluesky (the AT Protocol: atproto OAuth or app passwords), as the registry lists it: `NETWORK=bluesky`.
public struct BlueskyDefinition: NetworkDefinition {
    /// The definition.
    public init() {}

    /// `NETWORK=bluesky`.
    public var key: String { "bluesky" }
    /// "Bluesky".
    public var name: String { "Bluesky" }
    /// Its section's variables.
    public var variableNames: [String] { BlueskyNetworkSettings.variableNames }

    /// Its module, from its section.
    public func module(reading environment: inout EnvironmentReader) -> any NetworkModule {
        BlueskyNetworkModule(settings: BlueskyNetworkSettings(reading: &environment))
    }
}
