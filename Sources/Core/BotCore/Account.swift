/// Which of the two accounts a value belongs to: the person's, or the bot's.
public enum Account: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The person whose account is mirrored.
    case human
    /// The account the bot acts as.
    case bot

    /// The prefix of this account's environment variables (`HUMAN_`, `BOT_`).
    public var environmentPrefix: String { rawValue.uppercased() + "_" }
    /// `human` or `bot`.
    public var description: String { rawValue }
}
