public import BotConfiguration
public import GRDB
public import Logging
public import PostgresNIO
import NIOSSL

/// The archive's database: Postgres (a postgres-nio connection pool for one `DATABASE_URL`) or the embedded SQLite
/// file (`MIRROR_BOT_DATA`, a GRDB pool in WAL mode) when no `DATABASE_URL` is set. The stores (`TweetArchive`,
/// `PlanStore`, `MentionLog`, `LikeLog`, `BotState`, `TrainingExamples`, `UsageDays`, `Migrator`) hold the statements of each dialect.
///
/// A Postgres pool does its work in `run()`: the daemon runs it as a service; one-shot commands use
/// `withRunning(_:)`. A pool runs once: `run()` or `withRunning(_:)` is called at most once per value.
public struct ArchiveDatabase: Sendable {
    /// Which database engine holds the archive.
    public enum Backend: Sendable {
        /// A Postgres server, through a postgres-nio pool.
        case postgres(PostgresClient, DatabaseURL)
        /// The embedded SQLite file at `path`.
        case sqlite(DatabasePool, path: String)
    }

    /// The engine and its connection pool.
    public let backend: Backend
    /// The Postgres schema the pool's connections use (`search_path`), when one was given.
    public private(set) var schema: String?
    /// Where database events are logged.
    public let logger: Logger
    /// How long a Postgres operation may wait (for a connection, for an answer) before it fails; nil: as long as
    /// the pool waits. The daemon sets one, so that a service pauses within seconds when Postgres goes away.
    public var operationTimeLimit: Duration?

    /// The Postgres pool, when the archive is in Postgres (tests and administrative statements use it).
    public var client: PostgresClient? {
        if case .postgres(let client, _) = backend { client } else { nil }
    }

    /// Where the archive is, without secrets: "Postgres at host:port/db" or "the SQLite file PATH".
    public var location: String {
        switch backend {
        case .postgres(_, let url): "Postgres at \(url.redacted)"
        case .sqlite(_, let path): "the SQLite file \(path)"
        }
    }

    /// A pool for `url`. `schema`, when given, becomes the connections' `search_path` (tests isolate themselves so).
    public init(url: DatabaseURL, schema: String? = nil, logger: Logger) throws {
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database,
            tls: try Self.tls(for: url))
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.maximumConnections = 4
        if let schema { configuration.options.additionalStartupParameters = [("search_path", schema)] }
        self.schema = schema
        // The pool's own events (a connection being opened while the pool shuts down, idle closes) are not news
        // at info level; warnings and errors still show.
        var backgroundLogger = logger
        backgroundLogger.logLevel = max(logger.logLevel, .notice)
        self.backend = .postgres(PostgresClient(configuration: configuration, backgroundLogger: backgroundLogger), url)
        self.logger = logger
    }

    /// The archive in the SQLite file at `path`, created if missing (with its folder's permission). WAL mode with
    /// `synchronous = NORMAL`: a killed process loses nothing committed. Tables come from `Migrator`. A write waits
    /// up to `busyTimeout` seconds for another process's write to end.
    public init(sqliteFile path: String, busyTimeout: Int = ArchiveDatabase.commandBusyTimeout, logger: Logger) throws {
        do {
            self.backend = .sqlite(try Self.openSQLitePool(path: path, busyTimeout: busyTimeout), path: path)
        } catch {
            throw ArchiveError(operation: "opening the SQLite file \(path) (MIRROR_BOT_DATA)", underlying: error)
        }
        self.logger = logger
    }

    /// How long a one-shot command's write waits for another process's write: long, as nobody waits on it.
    public static let commandBusyTimeout = 10
    /// How long the daemon's write waits for another process's write: short, so that a service finds the file
    /// locked within seconds, pauses with backoff off the database, and a shutdown is never held up by the wait.
    public static let daemonBusyTimeout = 1

    /// A GRDB pool on the SQLite file at `path` as every store of the bot opens it: WAL mode (a pool's default) with
    /// `synchronous = NORMAL`, so a killed process loses nothing committed (only a power cut may lose the last
    /// transactions, never consistency), and a wait of `busyTimeout` seconds for another writer.
    public static func openSQLitePool(path: String, busyTimeout: Int = commandBusyTimeout) throws -> DatabasePool {
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(Double(busyTimeout))
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        return try DatabasePool(path: path, configuration: configuration)
    }

    /// The database `configuration` names: Postgres at `DATABASE_URL` when set, else the SQLite file
    /// `MIRROR_BOT_DATA` (default `mirror_bot.sqlite`).
    public static func open(for configuration: BotConfiguration.Configuration, busyTimeout: Int = commandBusyTimeout,
                            operationTimeLimit: Duration? = nil, logger: Logger) throws -> ArchiveDatabase {
        if let url = configuration.database {
            var database = try ArchiveDatabase(url: url, logger: logger)
            database.operationTimeLimit = operationTimeLimit
            return database
        }
        return try ArchiveDatabase(sqliteFile: configuration.embeddedDataPath, busyTimeout: busyTimeout, logger: logger)
    }

    /// How long the daemon's Postgres operations may wait: a service pauses within seconds when Postgres is gone.
    public static let daemonOperationTimeLimit = Duration.seconds(10)

    /// Runs the Postgres pool until the task is cancelled (a `ServiceLifecycle` service does exactly this); for
    /// SQLite, which needs no background work, waits for cancellation.
    public func run() async {
        switch backend {
        case .postgres(let client, _): await client.run()
        case .sqlite: while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        }
    }

    /// Runs the pool for the duration of `body`, first checking that the database answers, so that a one-shot
    /// command fails with one clear line instead of waiting on a pool that cannot connect.
    public func withRunning<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ArchiveDatabase) async throws -> Result
    ) async throws -> Result {
        guard case .postgres(let client, _) = backend else { return try await body(self) }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            // The check opens its own connection; meanwhile the pool's task starts, so the body never leases
            // from a pool that is not running yet.
            try await checkReachable()
            return try await body(self)
        }
    }

    /// One trivial query through the pool (`SELECT 1`): whether the store answers now, for a health check. The caller
    /// bounds how long it waits (the pool waits for a connection while Postgres is away).
    public func ping() async throws {
        switch backend {
        case .postgres: _ = try await rows("checking that the database answers", "SELECT 1", as: Int.self)
        case .sqlite: _ = try await read("checking that the SQLite file answers") { db in try Int.fetchOne(db, sql: "SELECT 1") }
        }
    }

    /// Opens one connection outside the pool and closes it (for SQLite, runs SQLite's `quick_check` of the whole
    /// file: a file damaged or not SQLite at all fails here); throws an `ArchiveError` that says why it failed.
    public func checkReachable() async throws {
        let url: DatabaseURL
        switch backend {
        case .postgres(_, let postgresURL): url = postgresURL
        case .sqlite(let pool, let path):
            let verdict: [String]
            do { verdict = try await pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") } }
            catch { throw ArchiveError(operation: "reading the SQLite file \(path)", underlying: error) }
            guard verdict == ["ok"] else {
                throw ArchiveError(operation: "checking the SQLite file \(path)", reason: "it is damaged: \(verdict.prefix(3).joined(separator: "; "))")
            }
            return
        }
        do {
            let connection = try await PostgresConnection.connect(configuration: try Self.connectionConfiguration(for: url), id: 0, logger: logger)
            try await connection.close()
        } catch {
            throw ArchiveError(operation: "connecting to \(url.redacted)", underlying: error)
        }
    }

    /// The configuration of one connection outside the pool to `url`, with the TLS its `sslmode` asks for.
    static func connectionConfiguration(for url: DatabaseURL) throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database, tls: .disable)
        let tls = try tlsConfiguration(for: url)
        switch url.tlsMode {
        case .disable: break
        case .prefer: configuration.tls = .prefer(try NIOSSLContext(configuration: tls))
        case .require, .verifyCA, .verifyFull: configuration.tls = .require(try NIOSSLContext(configuration: tls))
        }
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    /// The TLS of `url`'s `sslmode`, as libpq has it: `prefer` and `require` encrypt without verifying (Heroku's
    /// certificates are signed by no public CA); `verify-ca` checks the chain, `verify-full` the chain and the host
    /// name, against `sslrootcert` when given, else the system's CAs.
    static func tlsConfiguration(for url: DatabaseURL) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch url.tlsMode {
        case .disable, .prefer, .require: tls.certificateVerification = .none
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        if let path = url.rootCertificatePath, url.tlsMode == .verifyCA || url.tlsMode == .verifyFull {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
            } catch {
                throw ArchiveError(operation: "reading sslrootcert", reason: "\(path) is not a readable PEM certificate file (\(error)); give the CA certificate that signed the server's")
            }
        }
        return tls
    }

    private static func tls(for url: DatabaseURL) throws -> PostgresClient.Configuration.TLS {
        switch url.tlsMode {
        case .disable: .disable
        case .prefer: .prefer(try tlsConfiguration(for: url))
        case .require, .verifyCA, .verifyFull: .require(try tlsConfiguration(for: url))
        }
    }
}
