/// Spaces the starts of a fleet's bots on one server. A process that claims many bots at once (at its own start, or
/// taking over a killed process's) would otherwise have all of them ask one instance who they are, read their
/// mentions and open their streams in the same second: a burst an instance's rate limits (per address, not per
/// account) answer with 429s. Each bot's start waits for its turn on its server; bots on different servers do not
/// wait for each other.
actor FleetStartPacer {
    /// How long after one bot's start the next bot on the same server starts.
    let spacing: Duration
    private var nextTurns: [String: ContinuousClock.Instant] = [:]

    /// A pacer starting a bot on any one server every `spacing`.
    init(spacing: Duration) { self.spacing = spacing }

    /// At most this many bots a second start on one server.
    static let startsPerSecondOnAServer = 10

    /// Takes the next turn on `server` at or after `now`, and returns when it is.
    func turn(on server: String, now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        let turn = max(now, nextTurns[server] ?? now)
        nextTurns[server] = turn + spacing
        return turn
    }

    /// Waits (in real time: it spaces requests to a real server) for the next turn on `server`.
    func waitForTurn(on server: String) async throws {
        let turn = turn(on: server, now: .now)
        if turn > .now { try await Task.sleep(until: turn, clock: .continuous) }
    }
}
