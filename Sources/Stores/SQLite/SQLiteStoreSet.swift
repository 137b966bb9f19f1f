public import Foundation
public import GRDB
public import Logging
public import Stores
public import WordCounts

/// Every store of the bot in one SQLite file (`MIRROR_BOT_DATA`), through one GRDB pool in WAL mode with
/// `synchronous = NORMAL` (a killed process loses nothing committed), the word counts included when they live here.
/// The statements of each store are in its own file; this file holds the pool and the ways they run SQL.
public struct SQLiteStoreSet: StoreSet {
    /// The pool.
    public let pool: DatabasePool
    /// The file.
    public let path: String
    /// What the stores count with.
    public let settings: StoreSettings
    /// Where database events are logged.
    public let logger: Logger

    /// The stores in the SQLite file at `path`, created if missing (with its folder's permission). A write waits up to
    /// `settings.busyTimeout` seconds for another process's write to end. Tables come from the migrations.
    public init(path: String, settings: StoreSettings = StoreSettings(), logger: Logger) throws {
        do {
            pool = try Self.openPool(path: path, busyTimeout: settings.busyTimeout)
        } catch {
            throw ArchiveError(operation: "opening the SQLite file \(path) (MIRROR_BOT_DATA)", reason: "\(error)")
        }
        self.path = path
        self.settings = settings
        self.logger = logger
    }

    /// A GRDB pool on the SQLite file at `path` as every store of the bot opens it: WAL mode (a pool's default) with
    /// `synchronous = NORMAL`, so a killed process loses nothing committed (only a power cut may lose the last
    /// transactions, never consistency), and a wait of `busyTimeout` seconds for another writer.
    static func openPool(path: String, busyTimeout: Int) throws -> DatabasePool {
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(Double(busyTimeout))
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        return try DatabasePool(path: path, configuration: configuration)
    }

    /// "the SQLite file PATH".
    public var location: String { "the SQLite file \(path)" }
    /// The file is the bot's own: every command brings it up to date.
    public var migratesWhenOpened: Bool { true }

    public var archive: any PostArchive { archive(timeZone: settings.timeZone, rowLimit: settings.archiveRowLimit) }
    public func archive(timeZone: TimeZone, rowLimit: Int) -> any PostArchive {
        SQLitePostArchive(database: self, timeZone: timeZone, rowLimit: rowLimit)
    }
    public var plans: any PlanStore { SQLitePlanStore(database: self) }
    public var mentions: any MentionLog { SQLiteMentionLog(database: self) }
    public var likes: any LikeLog { SQLiteLikeLog(database: self) }
    public var state: any BotState { SQLiteBotState(database: self) }
    public var examples: any TrainingExamples { SQLiteTrainingExamples(database: self) }
    public var usageDays: any UsageDays { SQLiteUsageDays(database: self) }
    public var actions: any ActionLog { SQLiteActionLog(database: self) }
    public var retention: any StoreRetention { SQLiteStoreRetention(database: self) }
    public var migrations: any SchemaMigrations { SQLiteMigrations(database: self) }

    /// The word counts in this same file, through this pool (one pool per file for the whole process).
    public func sharedWordCounts(now: @escaping @Sendable () -> Date) throws -> (any WordCountBackend)? {
        try SQLiteWordCounts(pool: pool, path: path, now: now)
    }

    public func takeLease(logger: Logger) async throws -> any DaemonLease { try SQLiteLease.acquire(on: self) }

    /// Nothing runs in the background: waits for cancellation.
    public func run() async {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }

    public func withRunning<Result: Sendable>(isolation: isolated (any Actor)?, _ body: () async throws -> Result) async throws -> Result {
        try await body()
    }

    public func ping() async throws { _ = try await read("checking that the SQLite file answers") { db in try Int.fetchOne(db, sql: "SELECT 1") } }

    /// SQLite's `quick_check` of the whole file: a file damaged or not SQLite at all fails here.
    public func checkReachable() async throws {
        let verdict: [String]
        do { verdict = try await pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") } } catch {
            throw ArchiveError(operation: "reading the SQLite file \(path)", reason: "\(error)")
        }
        guard verdict == ["ok"] else {
            throw ArchiveError(operation: "checking the SQLite file \(path)", reason: "it is damaged: \(verdict.prefix(3).joined(separator: "; "))")
        }
    }

    // MARK: How the stores run SQL

    /// Runs `body` in a read transaction; a failure becomes an `ArchiveError` naming `operation`.
    func read<Result: Sendable>(_ operation: String, _ body: @Sendable @escaping (Database) throws -> Result) async throws -> Result {
        do { return try await pool.read(body) } catch { throw ArchiveError(operation: operation, underlying: error) }
    }

    /// Runs `body` in a write transaction (all or nothing); a failure becomes an `ArchiveError` naming `operation`.
    func write<Result: Sendable>(_ operation: String, _ body: @Sendable @escaping (Database) throws -> Result) async throws -> Result {
        do { return try await pool.write(body) } catch { throw ArchiveError(operation: operation, underlying: error) }
    }
}

extension SQLiteStoreSet {
    /// `rows` decoded by `decode`, each row whose stored values do not convert (a date past 9999 written by an older
    /// version, a value written by hand) logged as an error and skipped: one bad row never ends the process (GRDB's
    /// subscripts trap on it) nor hides the good ones. `what` names the read in the log line.
    func decodedRows<Value>(_ rows: [Row], of what: String, _ decode: (Row) throws -> Value?) -> [Value] {
        rows.compactMap { row in
            do {
                return try decode(row)
            } catch {
                logger.error("Skipped a row of \(what) in \(path) that cannot be read (\(error)); fix or delete it with sqlite3.")
                return nil
            }
        }
    }
}
