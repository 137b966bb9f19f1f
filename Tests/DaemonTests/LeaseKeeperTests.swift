import BotClock
import Foundation
import InMemoryStores
import Stores
import TestSupport
import Testing

@testable import Daemon

/// The lease keeper on the manual clock, over the in-memory stores (whose lease is lost when its holder is let go, as
/// a Postgres restart lets go of the lock's connection): it checks every 30 seconds, takes a lost lease again, stops
/// when another daemon took it meanwhile, and retries a store that does not answer.
@Suite("The lease keeper")
struct LeaseKeeperTests {
    static let start = Date(timeIntervalSince1970: 1_795_359_600)

    /// A keeper of a lease just taken on `stores`, running on a manual clock, with its log.
    struct Running {
        let stores: InMemoryStoreSet
        let lease: any DaemonLease
        let clock: ManualBotClock
        let log: LogRecorder
        let task: Task<Void, any Error>

        init() async throws {
            stores = InMemoryStoreSet()
            lease = try await stores.takeLease(logger: TestServers.logger)
            clock = ManualBotClock(now: LeaseKeeperTests.start)
            log = LogRecorder()
            let keeper = LeaseKeeper(lease: lease, database: stores, clock: clock, logger: log.logger(level: .info))
            task = Task { try await keeper.run() }
            try await clock.waitForSleepers()
        }

        /// Moves the clock to the keeper's next check and waits until it sleeps again.
        func nextCheck() async throws {
            clock.advance(by: 30)
            try await clock.waitForSleepers()
        }

        /// Whether another daemon could take the lease now (it then holds it).
        func anotherCanTake() async -> Bool { (try? await stores.process().takeLease(logger: TestServers.logger)) != nil }
    }

    @Test("A lease that holds is checked every 30 seconds of the clock it is given, and nothing is said")
    func holds() async throws {
        let running = try await Running()
        for check in 1...5 {
            #expect(running.clock.nextSleeperDeadline == Self.start.addingTimeInterval(Double(check) * 30))
            try await running.nextCheck()
        }
        #expect(running.log.lines.isEmpty, "\(running.log.lines)")
        #expect(await !running.anotherCanTake())
        running.task.cancel()
        try await running.task.value
    }

    @Test("A lease lost (its connection closed) and free is taken again at the next check, saying so, and kept")
    func takenAgain() async throws {
        let running = try await Running()
        await running.lease.release()  // as a restart of the server closes the lock's connection
        try await running.nextCheck()
        #expect(running.log.lines(containing: "lease: taken again after the database's connection was lost").count == 1, "\(running.log.lines)")
        #expect(await !running.anotherCanTake())
        try await running.nextCheck()
        #expect(running.log.lines.count == 1)
        running.task.cancel()
        try await running.task.value
    }

    @Test("A lease another daemon took while it was lost: the keeper says who and ends, which stops the daemon")
    func takenByAnother() async throws {
        let running = try await Running()
        await running.lease.release()
        #expect(await running.anotherCanTake())
        running.clock.advance(by: 30)
        try await running.task.value  // ended by itself
        let line = try #require(
            running.log.lines(containing: "lease: Another mirror_bot start is running for this bot").first, "\(running.log.lines)")
        #expect(line.contains("this one stops"))
        #expect(running.clock.sleeperCount == 0)
    }

    @Test("A store that does not answer when the lease is to be taken again: a warning, and another try 30 seconds later")
    func storeDown() async throws {
        let running = try await Running()
        await running.lease.release()
        running.stores.setFailure("connection refused")
        try await running.nextCheck()
        #expect(running.log.lines(containing: "lease: could not check it").count == 1, "\(running.log.lines)")
        #expect(running.log.lines(containing: "connection refused").count == 1)
        try await running.nextCheck()
        #expect(running.log.lines(containing: "lease: could not check it").count == 2)
        running.stores.setFailure(nil)
        try await running.nextCheck()
        #expect(running.log.lines(containing: "lease: taken again").count == 1, "\(running.log.lines)")
        #expect(await !running.anotherCanTake())
        running.task.cancel()
        try await running.task.value
    }
}
