/// An operation that did not finish within its time limit.
public struct TimeLimitExceeded: Error, CustomStringConvertible {
    /// The limit.
    public var limit: Duration
    /// "did not answer within 10 seconds".
    public var description: String { "did not answer within \(limit.components.seconds) seconds" }
}

/// Runs `operation`, cancelling it and throwing `TimeLimitExceeded` when it takes longer than `limit` of real time.
///
/// For limits on waiting for a store or a server (I/O), which are real time whatever the bot's clock says; decisions
/// about *when* the bot acts go through its `BotClock`.
public func withTimeLimit<Result: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw TimeLimitExceeded(limit: limit) }
        guard let result = first else { throw TimeLimitExceeded(limit: limit) }
        return result
    }
}
