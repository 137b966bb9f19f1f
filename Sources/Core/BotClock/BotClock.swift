public import Foundation

/// The time source of everything that decides *when*: the wall-clock time now, and sleeping. Production uses
/// `SystemBotClock`; tests use `ManualBotClock` and advance it themselves, so no test sleeps on the wall clock.
public protocol BotClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Suspends for `duration` of this clock's time; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
    /// Suspends until `date` of this clock's time (returns at once when it has passed); throws `CancellationError` when
    /// the task is cancelled.
    func sleep(until date: Date) async throws
}

extension BotClock {
    /// Suspends until `date`: for the time left until it, rounded up to the millisecond (never wakes before it).
    public func sleep(until date: Date) async throws {
        let seconds = date.timeIntervalSince(now())
        if seconds > 0 { try await sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up)))) }
    }
}

/// The real clock: `Date()` and `Task.sleep`.
public struct SystemBotClock: BotClock {
    /// The system clock.
    public init() {}
    /// `Date()`.
    public func now() -> Date { Date() }
    /// `Task.sleep(for:)`.
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
