public import Foundation
import Synchronization

/// Each endpoint's calls as each caller since the start: how many were sent, how many failed, when one last
/// succeeded. A client counts as it sends; the status page shows what answers (also on networks that bill nothing).
public final class CallTally: Sendable {
    /// One endpoint's calls as one caller.
    public struct Count: Sendable, Equatable {
        /// The endpoint, as its reference names it.
        public var endpoint: String
        /// Who called it (an account, or `public` for calls without one).
        public var caller: String
        /// Requests sent, retries included.
        public var calls = 0
        /// Requests that ended in an error answer, an unreadable one or none.
        public var failures = 0
        /// When the last request that was answered and read succeeded, on the client's clock.
        public var lastSuccessAt: Date?
    }

    private struct Key: Hashable {
        var endpoint: String
        var caller: String
    }
    private let table = Mutex<[Key: Count]>([:])

    /// An empty tally.
    public init() {}

    /// A request to `endpoint` by `caller` is being sent.
    public func sent(_ endpoint: String, by caller: String) { update(endpoint, caller) { $0.calls += 1 } }
    /// It failed.
    public func failed(_ endpoint: String, by caller: String) { update(endpoint, caller) { $0.failures += 1 } }
    /// It succeeded at `date`.
    public func succeeded(_ endpoint: String, by caller: String, at date: Date) {
        update(endpoint, caller) { $0.lastSuccessAt = max($0.lastSuccessAt ?? date, date) }
    }

    /// The counts so far, by endpoint then caller.
    public var counts: [Count] {
        table.withLock { Array($0.values) }.sorted { ($0.endpoint, $0.caller) < ($1.endpoint, $1.caller) }
    }

    private func update(_ endpoint: String, _ caller: String, _ change: (inout Count) -> Void) {
        table.withLock { table in
            let key = Key(endpoint: endpoint, caller: caller)
            var count = table[key] ?? Count(endpoint: endpoint, caller: caller)
            change(&count)
            table[key] = count
        }
    }
}
