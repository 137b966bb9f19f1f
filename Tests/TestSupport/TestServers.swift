public import BotConfiguration
import Foundation
public import Logging
import PostgresNIO
public import PostgresStores
public import RedisClient
public import Stores

/// Where the test servers are: `MIRROR_BOT_TEST_DATABASE_URL` / `MIRROR_BOT_TEST_REDIS_URL` (set by
/// `script/test`, which starts throwaway servers), else `DATABASE_URL` / `REDIS_URL` of a developer's own servers.
public enum TestServers {
    /// Thrown when no test server is configured.
    public struct NotConfigured: Error, CustomStringConvertible {
        /// Which variables were looked for.
        public var variables: [String]
        /// The error for `variables`.
        public init(variables: [String]) { self.variables = variables }
        /// What to do.
        public var description: String {
            "No test server: set \(variables.joined(separator: " or ")), or run the tests with script/test, which starts throwaway servers."
        }
    }

    /// The test Postgres.
    public static func databaseURL() throws -> DatabaseURL {
        let names = ["MIRROR_BOT_TEST_DATABASE_URL", "DATABASE_URL"]
        let environment = ProcessInfo.processInfo.environment
        guard let text = names.lazy.compactMap({ environment[$0] }).first, let url = DatabaseURL(text) else {
            throw NotConfigured(variables: names)
        }
        return url
    }

    /// The PostgreSQL that takes TLS connections only (`script/test` starts it), as text without `sslmode`, with the
    /// CA certificate that signed its certificate and an unrelated one.
    public static func tlsDatabase() throws -> (url: String, ca: String, wrongCA: String) {
        let names = ["MIRROR_BOT_TEST_TLS_DATABASE_URL", "MIRROR_BOT_TEST_TLS_CA", "MIRROR_BOT_TEST_WRONG_CA"]
        let values = names.compactMap { ProcessInfo.processInfo.environment[$0] }
        guard values.count == 3 else { throw NotConfigured(variables: names) }
        return (values[0], values[1], values[2])
    }

    /// The test Redis.
    public static func redisURL() throws -> RedisURL {
        let names = ["MIRROR_BOT_TEST_REDIS_URL", "REDIS_URL"]
        let environment = ProcessInfo.processInfo.environment
        guard let text = names.lazy.compactMap({ environment[$0] }).first, let url = RedisURL(text) else {
            throw NotConfigured(variables: names)
        }
        return url
    }

    /// A Redis that no other suite uses (`MIRROR_BOT_TEST_STATS_REDIS_URL`, started by `script/test`), for tests
    /// that count commands server-wide with `INFO commandstats`: on a shared server, parallel suites would add theirs.
    public static func statsRedisURL() throws -> RedisURL {
        let names = ["MIRROR_BOT_TEST_STATS_REDIS_URL"]
        guard let text = ProcessInfo.processInfo.environment[names[0]], let url = RedisURL(text) else {
            throw NotConfigured(variables: names)
        }
        return url
    }

    /// A logger that only reports problems.
    public static var logger: Logger {
        var logger = Logger(label: "mirror_bot.tests")
        logger.logLevel = .error
        return logger
    }

    /// A name no other test uses, for schemas, databases and key prefixes.
    public static func uniqueName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
    }

    /// Runs `body` with a database whose connections use a schema of their own, created empty for the test and
    /// dropped afterwards, so tests can run in parallel on one server.
    public static func withIsolatedDatabase<Result: Sendable>(
        migrated: Bool = true,
        isolation: isolated (any Actor)? = #isolation,
        settings: StoreSettings = StoreSettings(),
        _ body: (PostgresStoreSet) async throws -> Result
    ) async throws -> Result {
        let url = try databaseURL()
        let schema = uniqueName("test")
        let admin = try PostgresStoreSet(url: url, logger: logger)
        return try await admin.withRunning { admin in
            try await admin.client.query("CREATE SCHEMA \(unescaped: schema)", logger: logger)
            let database = try PostgresStoreSet(url: url, schema: schema, settings: settings, logger: logger)
            do {
                let result = try await database.withRunning { database in
                    if migrated { try await database.migrations.migrate() }
                    return try await body(database)
                }
                try await admin.client.query("DROP SCHEMA \(unescaped: schema) CASCADE", logger: logger)
                return result
            } catch {
                _ = try? await admin.client.query("DROP SCHEMA \(unescaped: schema) CASCADE", logger: logger)
                throw error
            }
        }
    }

    /// A new connection to the test Redis.
    public static func redisConnection() throws -> RedisConnection {
        RedisConnection(url: try redisURL())
    }

    /// A node of the test Redis Cluster (three masters on loopback, which `script/test` starts), from
    /// `MIRROR_BOT_TEST_REDIS_CLUSTER_URL`.
    public static func redisClusterURL() throws -> RedisURL {
        let name = "MIRROR_BOT_TEST_REDIS_CLUSTER_URL"
        guard let text = ProcessInfo.processInfo.environment[name], let url = RedisURL(text) else { throw NotConfigured(variables: [name]) }
        return url
    }
}

extension TestServers {
    /// Runs `body` with a new, empty database on the test server (for tests that run the `mirror_bot` binary, which
    /// connects to a whole database), and drops it afterwards, also when `body` fails.
    public static func withScratchDatabase(
        _ label: String, isolation: isolated (any Actor)? = #isolation, _ body: (DatabaseURL) async throws -> Void
    ) async throws {
        let server = try databaseURL()
        let name = uniqueName(label)
        _ = try await PostgresStoreSet(url: server, logger: logger).withRunning {
            try await $0.client.query("CREATE DATABASE \(unescaped: name)")
        }
        var scratch = server
        scratch.database = name
        var failure: (any Error)?
        do { try await body(scratch) } catch { failure = error }
        // A pool runs only once: dropping takes a new one. FORCE ends connections a killed process left behind.
        _ = try await PostgresStoreSet(url: server, logger: logger).withRunning {
            try await $0.client.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)")
        }
        if let failure { throw failure }
    }
}

extension TestServers {
    /// Makes Postgres refuse every connection to `database` and ends the open ones, as a restart or failover of the
    /// server would; `false` lets connections in again. Only that database is affected: other tests go on.
    public static func setOutage(_ down: Bool, of database: String) async throws {
        try await PostgresStoreSet(url: try databaseURL(), logger: logger).withRunning { admin in
            try await admin.client.query("ALTER DATABASE \(unescaped: database) ALLOW_CONNECTIONS \(unescaped: down ? "false" : "true")")
            if down {
                try await admin.client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(database)")
            }
        }
    }
}

extension DatabaseURL {
    /// The URL as `DATABASE_URL` text for a child process (the test servers have no password).
    public var connectionText: String { "postgres://\(username)@\(host):\(port)/\(database)?sslmode=disable" }
}
