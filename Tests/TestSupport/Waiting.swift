/// A wait in a test that outlasted its bound, naming what it waited for.
public struct WaitExpired: Error, CustomStringConvertible {
    /// What the test waited for ("the fake's clock to reach 06:12").
    public var what: String
    /// The bound, in real time.
    public var limit: Duration
    /// An error for `what`, waited for `limit`.
    public init(what: String, limit: Duration) {
        self.what = what
        self.limit = limit
    }
    /// "waited 180 seconds for the fake's clock to reach 06:12".
    public var description: String { "waited \(limit) for \(what)" }
}

/// Waits in real time (for another process or a server: a test's own code waits on its clock instead) until
/// `condition` holds, looking every `interval`; throws `WaitExpired` naming `what` when `limit` passes first.
public func waitUntil(
    _ what: @autoclosure () -> String, within limit: Duration, every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw WaitExpired(what: what(), limit: limit) }
        try await Task.sleep(for: interval)
    }
}
