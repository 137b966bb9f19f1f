public import Foundation
import Synchronization

/// A clock that only moves when told: sleepers wait until `advance(by:)` or `advance(to:)` passes their deadline.
/// Tests await `waitForSleepers(count:)` ("a sleep was scheduled") before advancing, which is not flaky.
public final class ManualBotClock: BotClock {
    private struct Sleeper {
        var id: UInt64
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var sleepRequests: [Duration] = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    /// A clock standing at `now`.
    public init(now: Date) { state = Mutex(State(now: now)) }

    /// The clock's time.
    public func now() -> Date { state.withLock { $0.now } }

    /// Every duration a sleeper asked for, in order.
    public var sleepRequests: [Duration] { state.withLock { $0.sleepRequests } }

    /// The earliest deadline of the waiting sleepers, if any.
    public var nextSleeperDeadline: Date? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    /// How many sleepers are waiting now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock is advanced past now + `duration`.
    public func sleep(for duration: Duration) async throws {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        try await sleep(until: nil, orFor: seconds, duration: duration)
    }

    /// Suspends until the clock is advanced to `date` exactly (returns at once when it has passed).
    public func sleep(until date: Date) async throws {
        let seconds = date.timeIntervalSince(now())
        guard seconds > 0 else { return }
        try await sleep(until: date, orFor: 0, duration: .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }

    /// Suspends until `date`, or for `seconds` from now when `date` is nil.
    private func sleep(until date: Date?, orFor seconds: Double, duration: Duration) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                var ready: [CheckedContinuation<Void, Never>] = []
                let resumeNow = state.withLock { state -> Bool in
                    state.sleepRequests.append(duration)
                    let deadline = date ?? state.now.addingTimeInterval(seconds)
                    if deadline <= state.now { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let count = state.sleepers.count
                    state.watchers.removeAll { watcher in
                        guard count >= watcher.count else { return false }
                        ready.append(watcher.continuation)
                        return true
                    }
                    return false
                }
                ready.forEach { $0.resume() }
                if resumeNow { continuation.resume() }
                // Cancelled before the sleeper was registered: the handler below found nothing to wake, so wake it here,
                // as `Task.sleep` throws at once in a cancelled task.
                if Task.isCancelled {
                    let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                        return state.sleepers.remove(at: index).continuation
                    }
                    cancelled?.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` sleepers are waiting.
    public func waitForSleepers(count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    /// Moves the clock forward and wakes the sleepers whose deadline has come.
    public func advance(by seconds: TimeInterval) {
        advance(to: now().addingTimeInterval(seconds))
    }

    /// Sets the clock to `date` (never backwards) and wakes the sleepers whose deadline has come.
    public func advance(to date: Date) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            if date > state.now { state.now = date }
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due.map(\.continuation)
        }
        due.forEach { $0.resume() }
    }

    /// Sets the clock to `date`, forward or back, as a wall clock set by NTP or a laptop waking does; wakes the
    /// sleepers whose deadline has come (a jump back wakes none: theirs moved further away).
    public func jump(to date: Date) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = date
            let due = state.sleepers.filter { $0.deadline <= date }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= date }
            return due.map(\.continuation)
        }
        due.forEach { $0.resume() }
    }

    /// Advances to the earliest sleeper's deadline, if any, and wakes it; returns that deadline.
    @discardableResult
    public func advanceToNextSleeper() -> Date? {
        guard let deadline = state.withLock({ $0.sleepers.map(\.deadline).min() }) else { return nil }
        advance(to: deadline)
        return deadline
    }
}
