import BotClock
public import BotConfiguration
public import Foundation
public import Logging
import NIOSSL
public import PostgresNIO
public import Stores
public import WordCounts

/// Every store of the bot in Postgres, through one postgres-nio connection pool for one `DATABASE_URL`. The pool
/// does its work in `run()` (the daemon runs it as a service; one-shot commands use `withRunning`), once per value.
/// The statements of each store are in its own file; this file holds the pool and the ways they run SQL.
public struct PostgresStoreSet: StoreSet {
    /// The pool (tests and administrative statements use it).
    public let client: PostgresClient
    /// The database's address.
    public let url: DatabaseURL
    /// The Postgres schema the pool's connections use (`search_path`), when one was given.
    public let schema: String?
    /// What the stores count with.
    public let settings: StoreSettings
    /// Where database events are logged.
    public let logger: Logger
    /// For a view on another set's pool (a fleet's bot): the schema every statement runs in, set on the connection it
    /// borrows before each statement (the pool's connections serve every bot). Nil: the pool's own `search_path`.
    public let routedSchema: String?
    /// For a fleet's bot: the hold every statement checks before it runs (its lease still this process's, unexpired,
    /// with this fencing number); a statement of a process whose lease lapsed or was taken fails, unrun.
    public let fence: Fence?
    /// Whether this value runs its pool (a view's pool is run by the set it shares it with).
    private let ownsPool: Bool

    /// A fleet bot's hold as its statements check it: the lease in `registrySchema`'s `fleet_leases`.
    public struct Fence: Sendable, Equatable {
        /// The schema of the fleet's registry.
        public var registrySchema: String
        /// The hold: the bot and its fencing number.
        public var claim: FleetClaim
        /// The process holding it.
        public var process: String
        /// A fence from its parts.
        public init(registrySchema: String, claim: FleetClaim, process: String) {
            self.registrySchema = registrySchema
            self.claim = claim
            self.process = process
        }
    }

    /// A pool for `url` of at most `connections` connections. `schema`, when given, becomes the connections'
    /// `search_path` (tests isolate themselves so). `idleTransactionLimit`, when given, is how long the server lets a
    /// transaction of theirs sit idle before ending it (a fleet's: a process frozen mid-transaction would otherwise hold
    /// its bot's lease row, and no other process could take the bot over).
    public init(
        url: DatabaseURL, schema: String? = nil, settings: StoreSettings = StoreSettings(), connections: Int = 4,
        idleTransactionLimit: Duration? = nil, logger: Logger
    ) throws {
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database,
            tls: try Self.tls(for: url))
        configuration.options.connectTimeout = .seconds(Int64(url.connectTimeout))
        configuration.options.maximumConnections = max(1, connections)
        if let schema { configuration.options.additionalStartupParameters.append(("search_path", schema)) }
        if let idleTransactionLimit {
            let milliseconds = idleTransactionLimit.components.seconds * 1000 + idleTransactionLimit.components.attoseconds / 1_000_000_000_000_000
            configuration.options.additionalStartupParameters.append(("idle_in_transaction_session_timeout", String(max(1, milliseconds))))
        }
        // The pool's own events (a connection being opened while the pool shuts down, idle closes) are not news at info
        // level; warnings and errors still show.
        var backgroundLogger = logger
        backgroundLogger.logLevel = max(logger.logLevel, .notice)
        client = PostgresClient(configuration: configuration, backgroundLogger: backgroundLogger)
        self.url = url
        self.schema = schema
        self.settings = settings
        self.logger = logger
        routedSchema = nil
        fence = nil
        ownsPool = true
    }

    /// A view of the stores in `schema` (letters, digits and `_`) on `pool`'s connections, which `pool` runs: many bots'
    /// stores on one pool, each in its own schema, every statement after a `SET search_path` on the connection it runs on.
    /// With `fence`, every statement first checks the fleet's lease (in the same round trip as its `search_path`), in a
    /// transaction that holds the lease's row until the statement has run.
    public init(sharing pool: PostgresStoreSet, schema: String, settings: StoreSettings? = nil, fence: Fence? = nil) {
        precondition(
            !schema.isEmpty && schema.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }, "a schema name of letters, digits and _"
        )
        client = pool.client
        url = pool.url
        self.schema = schema
        self.settings = settings ?? pool.settings
        logger = pool.logger
        routedSchema = schema
        self.fence = fence
        ownsPool = false
    }

    /// "Postgres at host:port/db".
    public var location: String { "Postgres at \(url.redacted)" }
    /// Postgres is migrated by `mirror_bot migrate` only.
    public var migratesWhenOpened: Bool { false }

    public var archive: any PostArchive { archive(timeZone: settings.timeZone, rowLimit: settings.archiveRowLimit) }
    public func archive(timeZone: TimeZone, rowLimit: Int) -> any PostArchive {
        PostgresPostArchive(database: self, timeZone: timeZone, rowLimit: rowLimit)
    }
    public var plans: any PlanStore { PostgresPlanStore(database: self) }
    public var mentions: any MentionLog { PostgresMentionLog(database: self) }
    public var likes: any LikeLog { PostgresLikeLog(database: self) }
    public var state: any BotState { PostgresBotState(database: self) }
    public var examples: any TrainingExamples { PostgresTrainingExamples(database: self) }
    public var usageDays: any UsageDays { PostgresUsageDays(database: self) }
    public var actions: any ActionLog { PostgresActionLog(database: self) }
    public var retention: any StoreRetention { PostgresStoreRetention(database: self) }
    public var migrations: any SchemaMigrations { PostgresMigrations(database: self) }

    /// Postgres keeps no word counts.
    public func sharedWordCounts(now: @escaping @Sendable () -> Date) throws -> (any WordCountBackend)? { nil }

    public func takeLease(logger: Logger) async throws -> any DaemonLease { try await PostgresLease.acquire(on: self, logger: logger) }

    /// Runs the pool until the task is cancelled (a view waits: its pool is run by the set it shares it with).
    public func run() async {
        guard ownsPool else {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            return
        }
        await client.run()
    }

    /// Runs the pool for the duration of `body`, first checking that the database answers, so that a one-shot command
    /// fails with one clear line instead of waiting on a pool that cannot connect.
    public func withRunning<Result: Sendable>(isolation: isolated (any Actor)?, _ body: () async throws -> Result) async throws -> Result {
        guard ownsPool else { return try await body() }
        let client = client
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            // The check opens its own connection; meanwhile the pool's task starts, so the body never leases from a pool
            // that is not running yet.
            try await checkReachable()
            return try await body()
        }
    }

    public func ping() async throws { _ = try await rows("checking that the database answers", "SELECT 1", as: Int.self) }

    /// Opens one connection outside the pool and closes it; throws an `ArchiveError` that says why it failed.
    public func checkReachable() async throws {
        do {
            let connection = try await PostgresConnection.connect(configuration: try Self.connectionConfiguration(for: url), id: 0, logger: logger)
            try await connection.close()
        } catch {
            throw ArchiveError.postgres("connecting to \(url.redacted)", error)
        }
    }

    // MARK: How the stores run SQL

    /// Runs `query` and decodes every row; a failure becomes an `ArchiveError` naming `operation`.
    func rows<each Column: PostgresDecodable & Sendable>(
        _ operation: String, _ query: PostgresQuery, as types: (repeat each Column).Type
    ) async throws -> [(repeat each Column)] {
        let (client, logger, routedSchema, fence) = (client, logger, routedSchema, fence)
        return try await limited(operation) {
            guard let routedSchema else {
                let rows = try await client.query(query, logger: logger)
                var result: [(repeat each Column)] = []
                for try await row in rows.decode((repeat each Column).self) { result.append(row) }
                return result
            }
            // A fenced statement runs in a transaction that holds the lease's row from its check to its end: no other
            // process can take the bot over between the check and the statement (two statements, one lock).
            guard fence == nil else {
                return try await client.withTransaction(logger: logger) { connection in
                    try await Self.route(connection, to: routedSchema, fence: fence, local: true, logger: logger)
                    let rows = try await connection.query(query, logger: logger)
                    var result: [(repeat each Column)] = []
                    for try await row in rows.decode((repeat each Column).self) { result.append(row) }
                    return result
                }
            }
            return try await client.withConnection { connection in
                try await Self.route(connection, to: routedSchema, fence: nil, local: false, logger: logger)
                let rows = try await connection.query(query, logger: logger)
                var result: [(repeat each Column)] = []
                for try await row in rows.decode((repeat each Column).self) { result.append(row) }
                return result
            }
        }
    }

    /// Runs `body` in a transaction; a failure becomes an `ArchiveError` naming `operation`.
    func transaction<Result: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let (client, logger, routedSchema, fence) = (client, logger, routedSchema, fence)
        return try await limited(operation) {
            try await client.withTransaction(logger: logger) { connection in
                if let routedSchema { try await Self.route(connection, to: routedSchema, fence: fence, local: true, logger: logger) }
                return try await body(connection)
            }
        }
    }

    /// Sets `connection`'s `search_path` to `schema` (for the transaction when `local`); with `fence`, only while the
    /// bot's lease is still that hold, unexpired: one statement does both, and in a transaction it holds the lease's row
    /// (`FOR SHARE`), so that no other process takes the lease before the transaction ends. Throws `FleetError.leaseLost`.
    static func route(_ connection: PostgresConnection, to schema: String, fence: Fence?, local: Bool, logger: Logger) async throws {
        guard let fence else {
            _ = try await connection.query(
                local ? "SET LOCAL search_path TO \(unescaped: schema)" : "SET search_path TO \(unescaped: schema)", logger: logger)
            return
        }
        let rows = try await connection.query(
            """
            SELECT set_config('search_path', \(schema), \(local)) FROM \(unescaped: fence.registrySchema).fleet_leases
            WHERE bot_id = \(fence.claim.botID) AND fence = \(fence.claim.fence) AND owner = \(fence.process) AND expires_at > now()
            \(unescaped: local ? "FOR SHARE" : "")
            """, logger: logger)
        var held = false
        for try await _ in rows { held = true }
        guard held else { throw FleetError.leaseLost(botID: fence.claim.botID, fence: fence.claim.fence) }
    }

    /// Runs `work` within `settings.operationTimeLimit` (when set): a Postgres that does not answer fails the operation
    /// after that long, instead of holding the caller while the pool keeps trying to connect.
    private func limited<Result: Sendable>(_ operation: String, _ work: @escaping @Sendable () async throws -> Result) async throws -> Result {
        do {
            guard let limit = settings.operationTimeLimit else { return try await work() }
            return try await withTimeLimit(limit, work)
        } catch let error as TimeLimitExceeded {
            throw ArchiveError(operation: operation, reason: "Postgres \(error)")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw ArchiveError.postgres(operation, error)
        }
    }

    // MARK: Connections and TLS

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
        configuration.options.connectTimeout = .seconds(Int64(url.connectTimeout))
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
                throw ArchiveError(
                    operation: "reading sslrootcert",
                    reason: "\(path) is not a readable PEM certificate file (\(error)); give the CA certificate that signed the server's")
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
