public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child process that did not end within the test's bound: it was killed (SIGKILL) so the run goes on.
public struct ChildDidNotExit: Error, CustomStringConvertible {
    /// What the test waited for ("mirror_bot start to end its day").
    public var what: String
    /// The bound, in real time.
    public var limit: Duration
    /// An error for `what`, waited for `limit`.
    public init(what: String, limit: Duration) {
        self.what = what
        self.limit = limit
    }
    /// "waited 600 seconds for mirror_bot start to end its day; it was still running and was killed".
    public var description: String { "waited \(limit) for \(what); it was still running and was killed" }
}

extension Process {
    /// Blocks until the process ends or `limit` of real time passes; past it the process is killed (SIGKILL, which
    /// always ends it) and `ChildDidNotExit` naming `what` is thrown. Blocks its thread: call it off the concurrency
    /// pool (`exit(within:_:)` does).
    public func waitUntilExit(within limit: Duration, _ what: @autoclosure () -> String) throws {
        let deadline = ContinuousClock.now + limit
        while isRunning {
            if ContinuousClock.now >= deadline {
                kill(processIdentifier, SIGKILL)
                waitUntilExit()
                throw ChildDidNotExit(what: what(), limit: limit)
            }
            usleep(5_000)
        }
        waitUntilExit()  // reaps it and sets its status
    }

    /// Waits, off the concurrency pool, until the process ends or `limit` of real time passes (then it is killed and
    /// `ChildDidNotExit` naming `what` is thrown).
    public func exit(within limit: Duration, _ what: String) async throws {
        let process = self
        try await OffThePool.run { try process.waitUntilExit(within: limit, what) }
    }
}

/// Kills a child process (SIGKILL) that is still running when its bound passes: for waits no other bound reaches, such
/// as reading a child's output to its end. `fired` tells afterwards whether it had to.
public final class ChildWatchdog: Sendable {
    private let state = Mutex((cancelled: false, fired: false))

    /// Watches `process` from now for `limit` of real time.
    public init(_ process: Process, limit: Duration) {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            let fire = state.withLock { state -> Bool in
                guard !state.cancelled, process.isRunning else { return false }
                state.fired = true
                return true
            }
            if fire { kill(pid, SIGKILL) }
        }
    }

    /// Whether the bound passed with the process still running (it was killed).
    public var fired: Bool { state.withLock { $0.fired } }

    /// Stops watching.
    public func cancel() { state.withLock { $0.cancelled = true } }
}
