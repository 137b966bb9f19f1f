import Foundation

/// Blocking work (a child process waited for, a socket read, a poll loop) run on a thread of its own rather than on
/// one of the concurrency pool's: on two cores the pool has two threads, which every test and the servers' handlers
/// share, and a CI run once saw a status server's answers wait past a client's 10 s while two contract tests' Python
/// validators held both.
public enum OffThePool {
    /// Runs `work`, which blocks, on a new thread; returns (or throws) what it did.
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try work() }) }.start()
        }
    }

    /// `run` for work that cannot throw.
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }
}
