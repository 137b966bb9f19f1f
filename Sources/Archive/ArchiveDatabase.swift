public import BotConfiguration
public import Logging
public import PostgresNIO
import NIOSSL

/// The archive's Postgres database: a postgres-nio connection pool for one `DATABASE_URL`.
///
/// The pool does its work in `run()`: the daemon runs it as a service; one-shot commands use `withRunning(_:)`.
/// A pool runs once: `run()` or `withRunning(_:)` is called at most once per value.
public struct ArchiveDatabase: Sendable {
    /// The pool; queries go through it.
    public let client: PostgresClient
    /// Where the database is.
    public let url: DatabaseURL
    /// Where database events are logged.
    public let logger: Logger
    private let configuration: PostgresClient.Configuration

    /// A pool for `url`. `schema`, when given, becomes the connections' `search_path` (tests isolate themselves so).
    public init(url: DatabaseURL, schema: String? = nil, logger: Logger) {
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database,
            tls: Self.tls(for: url.tlsMode))
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.maximumConnections = 4
        if let schema { configuration.options.additionalStartupParameters = [("search_path", schema)] }
        self.configuration = configuration
        // The pool's own events (a connection being opened while the pool shuts down, idle closes) are not news
        // at info level; warnings and errors still show.
        var backgroundLogger = logger
        backgroundLogger.logLevel = max(logger.logLevel, .notice)
        self.client = PostgresClient(configuration: configuration, backgroundLogger: backgroundLogger)
        self.url = url
        self.logger = logger
    }

    /// Runs the pool until the task is cancelled (a `ServiceLifecycle` service does exactly this).
    public func run() async {
        await client.run()
    }

    /// Runs the pool for the duration of `body`, first checking that the database answers, so that a one-shot
    /// command fails with one clear line instead of waiting on a pool that cannot connect.
    public func withRunning<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ArchiveDatabase) async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            // The check opens its own connection; meanwhile the pool's task starts, so the body never leases
            // from a pool that is not running yet.
            try await checkReachable()
            return try await body(self)
        }
    }

    /// Opens one connection outside the pool and closes it; throws an `ArchiveError` that says why it failed.
    public func checkReachable() async throws {
        var connectionConfiguration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database,
            tls: .disable)
        do {
            switch url.tlsMode {
            case .disable: break
            case .prefer: connectionConfiguration.tls = .prefer(try NIOSSLContext(configuration: Self.unverifiedTLS))
            case .require: connectionConfiguration.tls = .require(try NIOSSLContext(configuration: Self.unverifiedTLS))
            case .verifyFull: connectionConfiguration.tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            connectionConfiguration.options.connectTimeout = .seconds(10)
            let connection = try await PostgresConnection.connect(
                configuration: connectionConfiguration, id: 0, logger: logger)
            try await connection.close()
        } catch {
            throw ArchiveError(operation: "connecting to \(url.redacted)", underlying: error)
        }
    }

    private static var unverifiedTLS: TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        // libpq's `require` and `prefer` encrypt without verifying; Heroku's certificates are signed by no public CA.
        tls.certificateVerification = .none
        return tls
    }

    private static func tls(for mode: DatabaseURL.TLSMode) -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: .disable
        case .prefer: .prefer(unverifiedTLS)
        case .require: .require(unverifiedTLS)
        case .verifyFull: .require(.makeClientConfiguration())
        }
    }
}
