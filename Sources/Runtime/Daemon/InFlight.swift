import BotClock

/// A write that has begun (a post, an answer) and its record: run in a task of its own, so that a shutdown arriving
/// meanwhile lets it finish and be recorded rather than cut it off. A write that does not finish within `grace` of the
/// shutdown (a request the network never answers) is cancelled then, so that the process still exits 0 within the
/// service group's 10 s; what it was sending is noted in the store, and the next start reads it back.
enum InFlight {
    /// How long a write in flight may go on after its service is cancelled, in real time (the group allows 10 s).
    static let grace = Duration.seconds(7)

    /// Runs `write` to its end, or until `grace` after the caller is cancelled.
    static func finish<Result: Sendable>(grace: Duration = grace, _ write: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let task = DetachedWork.start { try await write() }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            Task {
                try? await ContinuousClock().sleep(for: grace)
                task.cancel()
            }
        }
    }
}
