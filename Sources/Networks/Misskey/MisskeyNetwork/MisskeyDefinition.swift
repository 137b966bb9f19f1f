public import BotConfiguration
public import SocialNetwork

/// a Misskey instance (tokens from MiAuth or Settings → API), as the registry lists it: `NETWORK=misskey`.
public struct MisskeyDefinition: NetworkDefinition {
    /// The definition.
    public init() {}

    /// `NETWORK=misskey`.
    public var key: String { "misskey" }
    /// "Misskey".
    public var name: String { "Misskey" }
    /// Its section's variables.
    public var variableNames: [String] { MisskeyNetworkSettings.variableNames }

    /// Its module, from its section.
    public func module(reading environment: inout EnvironmentReader) -> any NetworkModule {
        MisskeyNetworkModule(settings: MisskeyNetworkSettings(reading: &environment))
    }
}
