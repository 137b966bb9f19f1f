public import BotConfiguration
public import SocialNetwork

/// The network made for tests, as a registry lists it: `NETWORK=memo`. The program's registry does not list it; the
/// tests register it beside the others, the same way.
public let memoDefinition = SectionNetworkDefinition<MemoSettings>(key: "memo", name: "Memo") { MemoNetworkModule(settings: $0) }

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
