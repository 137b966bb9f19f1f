public import Foundation
public import Logging
public import WordCounts

/// Everything the bot keeps, in one database: the person's posts, the day plans, the mentions and likes handled, the
/// bot's small state, the training examples, the day's usage, and what reads them all (actions, retention). One
/// implementation per database (Postgres, the SQLite file, memory for tests), each in its own module; the choice is
/// made once, where the set is opened, and nothing else asks which database it is.
public protocol StoreSet: Sendable {
    /// Where the stores are, without secrets ("Postgres at host:5432/db", "the SQLite file bot.sqlite").
    var location: String { get }
    /// What opening applies: the SQLite file is the bot's own and every command migrates it; Postgres is migrated by
    /// `mirror_bot migrate` only.
    var migratesWhenOpened: Bool { get }
    /// The time zone and the row limit the archive counts with.
    var settings: StoreSettings { get }

    /// The person's posts, counted in `settings`' zone, at most `settings`' rows.
    var archive: any PostArchive { get }
    /// The day plans and their slots.
    var plans: any PlanStore { get }
    /// Every mention handled.
    var mentions: any MentionLog { get }
    /// Every like made.
    var likes: any LikeLog { get }
    /// The bot's small named values.
    var state: any BotState { get }
    /// Every post the favorite filter learned.
    var examples: any TrainingExamples { get }
    /// The network's bill per day and run.
    var usageDays: any UsageDays { get }
    /// The bot's actions, newest first.
    var actions: any ActionLog { get }
    /// The pruning of old records.
    var retention: any StoreRetention { get }
    /// The schema's migrations.
    var migrations: any SchemaMigrations { get }

    /// The archive counted in another zone, keeping another number of rows (tests; `doctor`).
    func archive(timeZone: TimeZone, rowLimit: Int) -> any PostArchive

    /// The word counts when they live in this same database (the SQLite file); nil where they cannot (Postgres keeps
    /// none: they go to Redis or a file of their own).
    func sharedWordCounts(now: @escaping @Sendable () -> Date) throws -> (any WordCountBackend)?

    /// Takes the one daemon's lease of this bot's stores, or throws `LeaseHeld` naming who holds it.
    func takeLease(logger: Logger) async throws -> any DaemonLease

    /// One trivial read: whether the stores answer now (the caller bounds how long it waits).
    func ping() async throws
    /// Opens one connection outside any pool (for the SQLite file, checks the whole file); throws an `ArchiveError` saying why it failed.
    func checkReachable() async throws
    /// Does the background work of the stores (a connection pool) until the task is cancelled.
    func run() async
    /// Runs the background work for the duration of `body`, once the database answers.
    func withRunning<Result: Sendable>(isolation: isolated (any Actor)?, _ body: () async throws -> Result) async throws -> Result
}

extension StoreSet {
    /// Runs the background work for the duration of `body`, once the database answers.
    public func withRunning<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        try await withRunning(isolation: isolation, body)
    }

    /// Runs the background work for the duration of `body`, which gets these stores, once the database answers.
    public func withRunning<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (Self) async throws -> Result
    ) async throws -> Result {
        try await withRunning(isolation: isolation) { try await body(self) }
    }

    /// What a command finding the database behind is told to do.
    public var migrationAdvice: String {
        migratesWhenOpened ? "the next command applies them (or `mirror_bot migrate`)" : "run `mirror_bot migrate`"
    }
}

/// What the stores count with: the person's zone (minutes of the day, calendar days) and the archive's row limit.
public struct StoreSettings: Sendable, Equatable {
    /// The person's time zone (`TZ`).
    public var timeZone: TimeZone
    /// The most posts the archive keeps (`ARCHIVE_ROW_LIMIT`).
    public var archiveRowLimit: Int
    /// How long a write waits for another process's lock on the SQLite file, in seconds.
    public var busyTimeout: Int
    /// How long a Postgres operation may wait before it fails; nil: as long as the pool waits.
    public var operationTimeLimit: Duration?

    /// Settings from their parts; the defaults are a one-shot command's (UTC, 10,000 rows, a busy file waited for 10 s).
    public init(
        timeZone: TimeZone = TimeZone(identifier: "UTC")!, archiveRowLimit: Int = StoreSettings.defaultArchiveRowLimit,
        busyTimeout: Int = StoreSettings.commandBusyTimeout, operationTimeLimit: Duration? = nil
    ) {
        self.timeZone = timeZone
        self.archiveRowLimit = archiveRowLimit
        self.busyTimeout = busyTimeout
        self.operationTimeLimit = operationTimeLimit
    }

    /// The original's row limit (the free Postgres plan's).
    public static let defaultArchiveRowLimit = 10_000
    /// How long a one-shot command's write waits for another process's write: long, as nobody waits on it.
    public static let commandBusyTimeout = 10
    /// How long the daemon's write waits for another process's write: short, so that a service finds the file locked
    /// within seconds, pauses with backoff, and a shutdown is never held up by the wait.
    public static let daemonBusyTimeout = 1
    /// How long the daemon's Postgres operations may wait: a service pauses within seconds when Postgres is gone.
    public static let daemonOperationTimeLimit = Duration.seconds(10)

    /// The daemon's: a busy store fails fast and the service pauses with backoff.
    public func forDaemon() -> StoreSettings {
        var settings = self
        settings.busyTimeout = Self.daemonBusyTimeout
        settings.operationTimeLimit = Self.daemonOperationTimeLimit
        return settings
    }
}

/// A failure of the stores' database, described as a sentence a user can act on.
public struct ArchiveError: Error, CustomStringConvertible {
    /// What the stores were doing, such as "inserting 200 posts".
    public var operation: String
    /// What went wrong, without secrets.
    public var reason: String

    /// An error from its parts.
    public init(operation: String, reason: String) {
        self.operation = operation
        self.reason = reason
    }

    /// An error for a failure of the database's library while doing `operation`: its own words (an `ArchiveError`'s reason).
    public init(operation: String, underlying error: any Error) {
        self.init(operation: operation, reason: (error as? ArchiveError)?.reason ?? String(describing: error))
    }

    /// "Database error while OPERATION: REASON".
    public var description: String { "Database error while \(operation): \(reason)" }
}
