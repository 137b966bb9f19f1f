import Synchronization

/// An operation that did not finish within its time limit.
public struct TimeLimitExceeded: Error, CustomStringConvertible {
    /// The limit.
    public var limit: Duration
    /// "did not answer within 10 seconds".
    public var description: String { "did not answer within \(limit.components.seconds) seconds" }
}

/// Runs `operation`, cancelling it and throwing `TimeLimitExceeded` when it takes longer than `limit` of real time.
///
/// For limits on waiting for a store or a server (I/O), which are real time whatever the bot's clock says; decisions
/// about *when* the bot acts go through its `BotClock`. The limit holds even for an operation that does not answer
/// its cancellation (a query written to a connection the server ended may never complete): it is cancelled and let
/// go, not waited for. Cancelling the caller cancels the operation and returns at once with `CancellationError`.
public func withTimeLimit<Result: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
    let race = FirstOutcome<Result>()
    // Two tasks, as a task group's two children would be: the work settles the race itself when done, the timer when
    // the limit passes (cancelling the work); the caller resumes once, on the first outcome.
    let work = Task<Void, Never> {
        do { race.settle(.success(try await operation())) } catch { race.settle(.failure(error)) }
    }
    let timer = Task<Void, Never> {
        guard (try? await Task.sleep(for: limit)) != nil else { return }
        work.cancel()
        race.settle(.failure(TimeLimitExceeded(limit: limit)))
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in race.wait(with: continuation) }
    } onCancel: {
        work.cancel()
        race.settle(.failure(CancellationError()))
    }
}

/// The first of several outcomes of one operation, given to one waiting continuation once.
private final class FirstOutcome<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var early: Result<Value, any Error>?
        var settled = false
    }
    private let state = Mutex(State())

    /// Waits with `continuation`; an outcome that came before is given at once.
    func wait(with continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            guard let early = state.early, !state.settled else {
                state.continuation = continuation
                return nil
            }
            state.settled = true
            return early
        }
        if let early { continuation.resume(with: early) }
    }

    /// Gives an outcome: the first one wins, the rest are dropped.
    func settle(_ outcome: Result<Value, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard !state.settled else { return nil }
            guard let continuation = state.continuation else {
                if state.early == nil { state.early = outcome }
                return nil
            }
            state.settled = true
            return continuation
        }
        waiting?.resume(with: outcome)
    }
}
