import BotConfiguration
import Foundation
import PostgresStores
import Stores
import TestSupport
import Testing

/// TLS to Postgres as Heroku's DATABASE_URL needs it, against a throwaway server that takes TLS connections only
/// (ssl=on, a certificate signed by a throwaway CA, hostssl-only pg_hba.conf), started by `script/test`.
@Suite("Postgres over TLS", .serialized)
struct PostgresTLSTests {
    /// Connects to `text` and migrates; the migrations still pending after (none), or the error as the user reads it.
    static func migrate(_ text: String) async -> Result<Int, ArchiveError> {
        do {
            guard let url = DatabaseURL(text) else { return .failure(ArchiveError(operation: "parsing", reason: "not a URL: \(text)")) }
            let database = try PostgresStoreSet(url: url, logger: TestServers.logger)
            try await database.checkReachable()
            // The TLS server's database is the tests' own: migrating it again applies nothing, and that is the check.
            return .success(
                try await database.withRunning { database in
                    try await database.migrations.migrate()
                    return try await database.migrations.pending().count
                })
        } catch let error as ArchiveError {
            return .failure(error)
        } catch {
            return .failure(ArchiveError(operation: "connecting", underlying: error))
        }
    }

    @Test("sslmode=require connects and migrates")
    func require() async throws {
        let server = try TestServers.tlsDatabase()
        let result = await Self.migrate(server.url + "?sslmode=require")
        #expect((try? result.get()) == 0, "\(result)")
    }

    @Test("sslmode=verify-full with sslrootcert naming the server's CA connects; with an unrelated CA it fails with a line that says what to do")
    func verifyFull() async throws {
        let server = try TestServers.tlsDatabase()
        let good = await Self.migrate(server.url + "?sslmode=verify-full&sslrootcert=" + server.ca)
        #expect(throws: Never.self) { try good.get() }
        let wrong = await Self.migrate(server.url + "?sslmode=verify-full&sslrootcert=" + server.wrongCA)
        guard case .failure(let error) = wrong else {
            Issue.record("connected with the wrong CA")
            return
        }
        #expect(error.description.contains("could not be verified") && error.description.contains("sslrootcert"), "\(error)")
        #expect(!error.description.contains("\n"))
        let verifyCA = await Self.migrate(server.url + "?sslmode=verify-ca&sslrootcert=" + server.ca)
        #expect(throws: Never.self) { try verifyCA.get() }
        let missing = await Self.migrate(server.url + "?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem")
        guard case .failure(let missingError) = missing else {
            Issue.record("connected without a CA file")
            return
        }
        #expect(missingError.description.contains("/nonexistent/ca.pem is not a readable PEM certificate file"), "\(missingError)")
    }

    @Test("Plain TCP is refused by the server, and the error says to use TLS")
    func plainRefused() async throws {
        let server = try TestServers.tlsDatabase()
        let plain = await Self.migrate(server.url + "?sslmode=disable")
        guard case .failure(let error) = plain else {
            Issue.record("the TLS-only server took a plain connection")
            return
        }
        #expect(error.description.contains("accepts only TLS connections") && error.description.contains("sslmode=require"), "\(error)")
    }

    @Test("Without sslmode, a server on this machine is reached with TLS when it offers it (prefer)")
    func loopbackPrefers() async throws {
        let server = try TestServers.tlsDatabase()
        #expect(DatabaseURL(server.url)?.tlsMode == .prefer)
        let result = await Self.migrate(server.url)
        #expect(throws: Never.self) { try result.get() }
    }
}
