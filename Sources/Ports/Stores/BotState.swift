/// The daemon's small persistent state (table `bot_state`): named values such as `mentions.since_id`, the like
/// calibration, what a network refused for good.
public protocol BotState: Sendable {
    /// A stored value, such as `mentions.since_id`.
    func value(of name: String) async throws -> String?
    /// Every stored value, by name.
    func values() async throws -> [String: String]
    /// Stores a value.
    func setValue(_ value: String, of name: String) async throws
    /// Forgets a value (such as a `since_id`, so that reading starts afresh).
    func removeValue(of name: String) async throws
    /// Sets `name` to `new` (nil: forgets it) only when its stored value is `expected` (nil: none is stored), in one
    /// step that two processes on the same store cannot interleave; returns whether it did.
    func replaceValue(of name: String, expecting expected: String?, with new: String?) async throws -> Bool
}
