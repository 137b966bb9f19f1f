public import Foundation
import Synchronization

/// A clock that only moves when told: sleepers wait until `advance(by:)` or `advance(to:)` passes their deadline.
/// Tests await `waitForSleepers(count:)` ("a sleep was scheduled") before advancing, which is not flaky; that wait is
/// bounded in real time, so a sleep that never comes fails the test saying what it waited for instead of hanging it.
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
        var watchers: [Watcher] = []
        /// Watchers whose bound passed before they were registered.
        var expired: Set<UInt64> = []
    }

    private struct Watcher {
        var id: UInt64
        var count: Int
        var continuation: CheckedContinuation<Void, any Error>
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
                var ready: [CheckedContinuation<Void, any Error>] = []
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

    /// Returns once at least `count` sleepers are waiting; throws `SleepersNotSeen` when fewer are waiting after
    /// `limit` of real time (a bound on the test, not the bot's time: nothing the clock decides waits on it), and
    /// `CancellationError` when the waiting task is cancelled.
    public func waitForSleepers(count: Int = 1, within limit: Duration = .seconds(60)) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task { [self] in
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            let (expired, waiting) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, Int) in
                guard let index = state.watchers.firstIndex(where: { $0.id == id }) else {
                    state.expired.insert(id)
                    return (nil, state.sleepers.count)
                }
                return (state.watchers.remove(at: index).continuation, state.sleepers.count)
            }
            expired?.resume(throwing: SleepersNotSeen(wanted: count, waiting: waiting, limit: limit))
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Bool, SleepersNotSeen> in
                    if state.sleepers.count >= count { return .success(true) }
                    if state.expired.remove(id) != nil {
                        return .failure(SleepersNotSeen(wanted: count, waiting: state.sleepers.count, limit: limit))
                    }
                    state.watchers.append(Watcher(id: id, count: count, continuation: continuation))
                    return .success(false)
                }
                switch outcome {
                case .success(true): continuation.resume()
                case .success: if Task.isCancelled { cancelWatcher(id) }
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            cancelWatcher(id)
        }
    }

    /// Ends the wait of watcher `id`, if still waiting, with `CancellationError`.
    private func cancelWatcher(_ id: UInt64) {
        let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard let index = state.watchers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.watchers.remove(at: index).continuation
        }
        cancelled?.resume(throwing: CancellationError())
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

/// A wait for sleepers on a `ManualBotClock` that outlasted its bound: the code under test never went to sleep as the
/// test expected (it hangs, ended, or sleeps fewer times).
public struct SleepersNotSeen: Error, CustomStringConvertible {
    /// The sleepers waited for.
    public var wanted: Int
    /// The sleepers waiting when the bound passed.
    public var waiting: Int
    /// The bound, in real time.
    public var limit: Duration
    /// "waited 60 s for 2 sleepers on the manual clock; 1 was waiting".
    public var description: String {
        "waited \(limit) for \(wanted) sleeper\(wanted == 1 ? "" : "s") on the manual clock; \(waiting) \(waiting == 1 ? "was" : "were") waiting"
    }
}
