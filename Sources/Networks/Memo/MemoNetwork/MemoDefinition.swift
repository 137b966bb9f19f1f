public import BotConfiguration
public import SocialNetwork

/// The network made for tests, as a registry lists it: `NETWORK=memo`. The program's registry does not list it; the
/// tests register it beside the others, the same way.
public struct MemoDefinition: NetworkDefinition {
    /// The definition.
    public init() {}

    /// `NETWORK=memo`.
    public var key: String { "memo" }
    /// "Memo".
    public var name: String { "Memo" }
    /// Its section's variables.
    public var variableNames: [String] { MemoSettings.variableNames }

    /// Its module, from its section.
    public func module(reading environment: inout EnvironmentReader) -> any NetworkModule {
        MemoNetworkModule(settings: MemoSettings(reading: &environment))
    }
}

/// The memo network's section: which world (`MEMO_WORLD`), and each account's token.
public struct MemoSettings: ConfigurationSection {
    /// The world's name.
    public var world: String
    /// The person's token (`HUMAN_MEMO_TOKEN`).
    public var humanToken: String?
    /// The bot's token (`BOT_MEMO_TOKEN`).
    public var botToken: String?

    /// Every variable the section reads.
    public static let variableNames = ["MEMO_WORLD", "HUMAN_MEMO_TOKEN", "BOT_MEMO_TOKEN"]

    /// Reads the section.
    public init(reading environment: inout EnvironmentReader) {
        world = environment.value("MEMO_WORLD") ?? "default"
        humanToken = environment.value("HUMAN_MEMO_TOKEN")
        botToken = environment.value("BOT_MEMO_TOKEN")
    }
}
