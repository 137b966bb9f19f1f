/// Where the bot's own unstructured tasks run (a write finished through a shutdown, a record written while stopping).
/// By default, wherever the runtime puts them; a test that runs the whole daemon on one executor, to move its clock
/// only when every task waits, sets `executor` so that those tasks run there too.
public enum DetachedWork {
    /// The executor the bot's unstructured tasks prefer; nil: the runtime's default.
    @TaskLocal public static var executor: (any TaskExecutor)?

    /// Starts `operation` in a task of its own that no cancellation of the caller's reaches, on `executor` when set.
    public static func start<Success: Sendable>(_ operation: sending @escaping @isolated(any) () async throws -> Success) -> Task<Success, any Error>
    {
        Task(executorPreference: executor, operation: operation)
    }
}
