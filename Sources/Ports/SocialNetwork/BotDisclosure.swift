public import BotCore

/// How a network's rules want a bot to say that it is one, and the check of the bot's account against it (`doctor`
/// prints it, `start` logs it once). Each network's folder defines its own rule (its profile field, its flag, its label).
public struct BotDisclosure: Sendable, Equatable, CustomStringConvertible {
    /// What the rule asks, in words; two rules asking the same are the same rule.
    public let description: String
    private let check: @Sendable (_ bot: NetworkUser, _ person: NetworkUser, _ networkName: String) -> String?

    /// The rule that asks `description`; `problem` says what is missing on the bot's account, in a sentence that says
    /// exactly what to change, or nil when nothing is or the read did not say.
    public init(
        _ description: String, problem: @escaping @Sendable (_ bot: NetworkUser, _ person: NetworkUser, _ networkName: String) -> String?
    ) {
        self.description = description
        self.check = problem
    }

    /// What is missing on `bot`'s account (`person` being whom it mirrors, on the network named `networkName`); nil
    /// when nothing is, or when the read did not say (no profile, no flag).
    public func problem(bot: NetworkUser, person: NetworkUser, networkName: String) -> String? { check(bot, person, networkName) }

    /// Whether two rules ask the same.
    public static func == (left: BotDisclosure, right: BotDisclosure) -> Bool { left.description == right.description }
}
