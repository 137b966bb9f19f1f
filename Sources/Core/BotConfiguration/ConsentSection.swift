import Foundation

/// Whom the bot leaves alone and what it never says: the words that ask it to stop, the words it never posts, the
/// accounts it never answers or likes. Lists are comma-separated; words are compared case- and width-insensitively.
public struct ConsentSection: ConfigurationSection, Equatable {
    /// The words in a mention that put its author on the opt-out list (`OPT_OUT_WORDS`); nil: the defaults (English
    /// and Japanese: `stop`, `やめて`, `停止`, `#nobot`, ...).
    public var optOutWords: [String]?
    /// Words the bot never posts or answers with (`BLOCKED_WORDS`).
    public var blockedWords: [String]
    /// Accounts never answered or liked (`BLOCKED_ACCOUNTS`): ids, or handles with or without `@`.
    public var blockedAccounts: [String]

    /// The variables of this section.
    public static let variableNames = ["OPT_OUT_WORDS", "BLOCKED_WORDS", "BLOCKED_ACCOUNTS"]

    /// The entries of a comma-separated list (`、` and `，` also separate, for Japanese keyboards), trimmed, empty ones
    /// dropped.
    public static func list(_ text: String) -> [String] {
        text.split(whereSeparator: { ",、，".contains($0) }).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// Reads the section.
    public init(reading environment: inout EnvironmentReader) {
        optOutWords = environment.value("OPT_OUT_WORDS").map(Self.list)
        if optOutWords?.isEmpty == true {
            environment.malformed(
                "OPT_OUT_WORDS", expected: "comma-separated words that ask the bot to stop (unset: the defaults, English and Japanese)",
                shown: "no word")
        }
        blockedWords = environment.value("BLOCKED_WORDS").map(Self.list) ?? []
        blockedAccounts = environment.value("BLOCKED_ACCOUNTS").map(Self.list) ?? []
    }
}
