public import Foundation

/// The bot's clock for rehearsals (`mirror_bot start --speed N --start-time T`): it starts at `start` and runs
/// `speed` times faster than real time. Only the bot's sense of time changes; what it sends is real.
public struct SimulatedBotClock: BotClock {
    /// Where the bot's time starts.
    public let start: Date
    /// How many bot seconds pass per real second.
    public let speed: Double
    private let realStart: ContinuousClock.Instant

    /// A clock at `start`, running `speed` (> 0) times faster than real time.
    public init(start: Date, speed: Double) {
        self.start = start
        self.speed = max(speed, 0.000_001)
        self.realStart = ContinuousClock.now
    }

    /// start + real time elapsed × speed.
    public func now() -> Date {
        let elapsed = realStart.duration(to: ContinuousClock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return start.addingTimeInterval(seconds * speed)
    }

    /// Sleeps `duration` of bot time, that is `duration / speed` of real time.
    public func sleep(for duration: Duration) async throws {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        guard seconds > 0 else { return }
        try await Task.sleep(for: .nanoseconds(Int64(seconds / speed * 1e9)))
    }
}
