public import Foundation
import Synchronization

/// Passwords checked as the status page and the operator's page check them.
public enum Passwords {
    /// Whether the password `given` is `expected`, in time that depends on neither's content (only on `expected`'s
    /// length, which is the deploy's, and on whether `given` is shorter).
    public static func equalInConstantTime(_ given: String, _ expected: String) -> Bool {
        let given = Array(given.utf8)
        let expected = Array(expected.utf8)
        var difference = given.count ^ expected.count
        for index in expected.indices { difference |= Int((index < given.count ? given[index] : 0) ^ expected[index]) }
        return difference == 0
    }
}

/// Wrong passwords counted per client: past `limit` of them within `window`, the client is refused until the window
/// that began with its first failure ends. At most `capacity` clients are remembered (the oldest windows are
/// forgotten first), so that many addresses cannot fill the memory.
public final class FailedLogins: Sendable {
    /// The wrong passwords a client may give in a window.
    public let limit: Int
    /// The window, in seconds.
    public let window: TimeInterval
    /// The most clients remembered.
    public let capacity: Int
    private let now: @Sendable () -> Date
    private let windows = Mutex<[String: (start: Date, failures: Int)]>([:])

    /// Counts on `now` (real time).
    public init(limit: Int = 10, window: TimeInterval = 900, capacity: Int = 10_000, now: @escaping @Sendable () -> Date) {
        self.limit = limit
        self.window = window
        self.capacity = capacity
        self.now = now
    }

    /// The seconds `client` must wait before its password is checked again; nil: it may try now.
    public func refusal(of client: String) -> Int? {
        let now = now()
        return windows.withLock { windows in
            guard let entry = windows[client] else { return nil }
            let ends = entry.start.addingTimeInterval(window)
            if ends <= now {
                windows[client] = nil
                return nil
            }
            return entry.failures >= limit ? max(1, Int(ends.timeIntervalSince(now).rounded(.up))) : nil
        }
    }

    /// Counts a wrong password of `client`.
    public func recordFailure(of client: String) {
        let now = now()
        windows.withLock { windows in
            if let entry = windows[client], entry.start.addingTimeInterval(window) > now {
                windows[client] = (entry.start, entry.failures + 1)
                return
            }
            if windows.count >= capacity {
                windows = windows.filter { $0.value.start.addingTimeInterval(window) > now }
                while windows.count >= capacity, let oldest = windows.min(by: { $0.value.start < $1.value.start })?.key { windows[oldest] = nil }
            }
            windows[client] = (now, 1)
        }
    }
}
