import BotClock
import BotConfiguration
public import Classifier
import Daemon
import Foundation
public import Logging
import PostgresStores
import SQLiteStores
public import Stores
import Tokenizer
import Training
public import WordCounts

/// The bot built from its configuration, once per process: one pool for the archive database that every store
/// shares, the word counts (sharing that pool when they live in the same SQLite file), the tokenizer and the
/// classifier, and the network client. Every command and `start` build from here, and the migration rule is applied
/// here only.
public struct BotParts: Sendable {
    /// What the process is, which says how long a busy store is waited for.
    public enum Role: Sendable {
        /// A one-shot command: nobody waits on it, so a busy SQLite file is waited for 10 s.
        case command
        /// The daemon: a busy store fails fast (SQLite 2 s, Postgres 10 s) and the service pauses with backoff.
        case daemon
    }

    /// The configuration everything is built from.
    public let configuration: Configuration
    /// What the process is.
    public let role: Role
    /// The log.
    public let logger: Logger
    /// Every store of the bot: Postgres at `DATABASE_URL`, or the SQLite file `MIRROR_BOT_DATA`; one pool.
    public let database: any StoreSet

    /// Opens the stores' pool (nothing is connected until it runs).
    public init(configuration: Configuration, role: Role = .command, logger: Logger) throws {
        self.configuration = configuration
        self.role = role
        self.logger = logger
        database = try Self.openStores(for: configuration.storage, timeZone: configuration.behaviour.timeZone, role: role, logger: logger)
    }

    /// The stores `configuration` names: Postgres at `DATABASE_URL` when set, else the SQLite file `MIRROR_BOT_DATA`
    /// (default `mirror_bot.sqlite`). The one place the database is chosen.
    static func openStores(for storage: StorageSection, timeZone: TimeZone, role: Role, logger: Logger) throws -> any StoreSet {
        var settings = StoreSettings(timeZone: timeZone, archiveRowLimit: storage.archiveRowLimit)
        if role == .daemon { settings = settings.forDaemon() }
        if let url = storage.database { return try PostgresStoreSet(url: url, schema: storage.databaseSchema, settings: settings, logger: logger) }
        return try SQLiteStoreSet(path: storage.embeddedDataPath, settings: settings, logger: logger)
    }

    // MARK: The database, and the migration rule

    /// Runs the pool for the duration of `body` once the database answers, with the migration rule applied: the
    /// SQLite file is the bot's own and is migrated here; a Postgres database is migrated by `mirror_bot migrate`
    /// only, and a command finding it behind stops with that advice. The archive is then brought to the time zone.
    public func withRunning<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (BotParts) async throws -> Result
    ) async throws -> Result {
        try await database.withRunning {
            if database.migratesWhenOpened { try await database.migrations.migrate() }
            let pending = try await database.migrations.pending().count
            guard pending == 0 else {
                throw ArchiveError(operation: "starting", reason: "\(pending) migration(s) are not applied yet; run `mirror_bot migrate` first")
            }
            try await archive.prepare()
            return try await body(self)
        }
    }

    /// Runs the pool for `body` without migrating anything (`doctor` reports what is pending; `migrate` applies it).
    public func withRunningAsIs<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (any StoreSet) async throws -> Result
    ) async throws -> Result {
        try await database.withRunning { try await body(database) }
    }

    /// What a command finding the database behind is told to do.
    public var migrationAdvice: String { database.migrationAdvice }

    // MARK: Stores, all on the one pool

    /// The person's posts.
    public var archive: any PostArchive {
        database.archive
    }
    /// The bot's small named values (cursors, refusals, the calibration).
    public var state: any BotState { database.state }
    /// The day's spend of each run.
    public var usageDays: any UsageDays { database.usageDays }
    /// The examples the like threshold is calibrated on.
    public var examples: any TrainingExamples { database.examples }

    // MARK: Word counts, tokenizer, classifier

    /// The word counts and a line saying where they are.
    public func wordCounts() throws -> (store: any WordCountBackend, description: String) {
        try WordCountStores.open(for: configuration.storage, sharing: database, busyTimeout: database.settings.busyTimeout)
    }

    /// The favorite filter on `store` (the word counts when nil): the MeCab tokenizer, the configured threshold, and
    /// the training examples it records as it learns.
    public func classifier(on store: (any WordCountBackend)? = nil) throws -> FavoriteClassifier {
        Self.classifier(
            on: try store ?? wordCounts().store, tokenizer: try PostTokenizer(), configuration: configuration, examples: examples, logger: logger)
    }

    /// The favorite filter of the bot `configuration` describes, on `store` with `tokenizer` (a fleet shares one
    /// across its bots), recording what it learns in `examples`.
    static func classifier(
        on store: any WordCountBackend, tokenizer: PostTokenizer, configuration: Configuration, examples: any TrainingExamples,
        logger: Logger
    ) -> FavoriteClassifier {
        FavoriteClassifier(
            store: store, tokenizer: tokenizer, threshold: configuration.behaviour.favoriteRateThreshold,
            examples: ExampleRecorder(examples), logger: logger)
    }

}
