public import Foundation

/// Wakes a fake's open streams when what they send may have changed (a write, the clock set, the streams cut), or
/// when the fake's clock is due to reveal the next seeded post: a stream sleeps until then instead of looking every few
/// milliseconds (a fleet's benchmark holds hundreds of streams open on one fake).
///
/// A stream reads `rings` before it looks for events and then waits `after` that count: a ring in between ends the
/// wait at once, so nothing is missed.
public actor StreamBell {
    private var rung = 0
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextKey = 0

    /// A bell nobody has rung.
    public init() {}

    /// How many times the bell has rung.
    public var rings: Int { rung }

    /// Wakes every stream waiting.
    public func ring() {
        rung += 1
        let woken = waiters
        waiters = [:]
        for waiter in woken.values { waiter.resume() }
    }

    /// Returns once the bell rings after `seen` rings (at once if it already has), or after `seconds`.
    public func wait(after seen: Int, upTo seconds: Double) async {
        guard seen == rung, seconds > 0 else { return }
        nextKey += 1
        let key = nextKey
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            waiters[key] = waiter
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                self.timeOut(key)
            }
        }
    }

    /// Ends one wait when its time is up (if a ring has not ended it already).
    private func timeOut(_ key: Int) { waiters.removeValue(forKey: key)?.resume() }

    /// The real seconds a stream waits for the fake's clock to reach `reveal` at `speed` (the clock's seconds per real
    /// second), from `now`: at least a millisecond, at most `longest` (a stopped clock, or nothing to reveal, waits
    /// `longest`: a ring ends it sooner).
    public static func realSeconds(until reveal: Date?, from now: Date, speed: Double, longest: Double = 1) -> Double {
        guard let reveal, speed > 0 else { return longest }
        return min(longest, max(0.001, reveal.timeIntervalSince(now) / speed))
    }
}
