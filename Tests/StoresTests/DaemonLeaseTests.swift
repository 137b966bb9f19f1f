import Foundation
import PostgresStores
import Stores
import TestSupport
import Testing

/// The daemon's lease on Postgres through what a server does to it: a second taker is refused naming the holder; a
/// restart or failover that ends the lease's connection is noticed at once (never a hang), the lease cannot be taken
/// while connections are refused, and is taken again after.
@Suite("The daemon's lease on Postgres", .serialized)
struct DaemonLeaseTests {
    /// Fails instead of hanging: `body` within `seconds` (real time; a hang is the bug looked for, not a speed).
    static func within<T: Sendable>(_ seconds: Int, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                Issue.record("\(what) did not finish within \(seconds) s")
                throw CancellationError()
            }
            return value
        }
    }

    @Test("Held once; a lost connection is seen lost at once; refused while the database refuses connections; taken again after")
    func lostAndRetaken() async throws {
        try await TestServers.withScratchDatabase("lease") { url async throws in
            let database = try PostgresStoreSet(url: url, logger: TestServers.logger)
            try await database.withRunning { database in
                try await database.migrations.migrate()
                let lease = try await database.takeLease(logger: TestServers.logger)
                #expect(await lease.isHeld(logger: TestServers.logger))
                await #expect(throws: LeaseHeld.self) { try await database.takeLease(logger: TestServers.logger) }

                try await TestServers.setOutage(true, of: url.database)
                let held = try await Self.within(15, "checking a lease whose connection was ended") { await lease.isHeld(logger: TestServers.logger) }
                #expect(!held)
                try await Self.within(15, "letting go of a lease whose connection was ended") { await lease.release() }
                await #expect(throws: ArchiveError.self) {
                    try await Self.within(15, "taking the lease while connections are refused") {
                        try await database.takeLease(logger: TestServers.logger)
                    }
                }
                try await TestServers.setOutage(false, of: url.database)
                let again = try await Self.within(30, "taking the lease again") { try await database.takeLease(logger: TestServers.logger) }
                #expect(await again.isHeld(logger: TestServers.logger))
                await again.release()
            }
        }
    }
}
