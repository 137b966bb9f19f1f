/// What the bot's numbers stand for on a network whose ids are not numbers (table `network_ids`): Misskey's note and
/// user ids are strings too long for the 63-bit numbers the other stores key posts and users by, so its module gives
/// each a number and keeps here which id it stands for, to ask the network about it again (an original's existence,
/// the bot's copy to delete, a mention to answer after a restart, a status page's link).
public protocol NetworkIDStore: Sendable {
    /// Keeps what each number stands for (a number kept before keeps its id).
    func remember(_ ids: [Int64: String]) async throws
    /// The ids of those of `numbers` that are kept.
    func ids(of numbers: [Int64]) async throws -> [Int64: String]
}
