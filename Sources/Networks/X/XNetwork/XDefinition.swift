public import BotConfiguration
public import SocialNetwork

/// X (the X API v2, OAuth 1.0a), as the registry lists it: `NETWORK=x`.
public struct XDefinition: NetworkDefinition {
    /// The definition.
    public init() {}

    /// `NETWORK=x`.
    public var key: String { "x" }
    /// "X".
    public var name: String { "X" }
    /// Its section's variables.
    public var variableNames: [String] { XNetworkSettings.variableNames }

    /// Its module, from its section.
    public func module(reading environment: inout EnvironmentReader) -> any NetworkModule {
        XNetworkModule(settings: XNetworkSettings(reading: &environment))
    }
}
