import BotClock
import Foundation
import Stores
import Synchronization
import TestSupport
import Testing
import XNetwork

@testable import XAPI

/// The daily budget written before it is spent: a run that dies at any moment leaves its spend where the next start
/// reads it, and a day whose spend cannot be read spends nothing.
@Suite("The day's X spend, written before it is spent")
struct SpendLedgerTests {
    @Test(
        "Each billed call's worst case is stored before it is sent: runs that die without ever recording their spend still never take the day past X_DAILY_BUDGET by fake X's bill",
        arguments: StoreBackends.archives)
    func crashesLoseNoSpend(_ kind: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(kind) { database in
            let days = database.usageDays
            try await withFakeX { server, url async throws in
                let clock = ManualBotClock(now: Fixture.start)
                let day = UsageMeter.billingDay(of: Fixture.start)
                // Four runs, each killed right after its calls: none of them ever records its spend as a minute's
                // recording would; each starts by reading what the others stored.
                var sent = 0
                for run in 1...4 {
                    let meter = UsageMeter()
                    let ledger = StoredSpend(days: days, usage: meter, runID: "run-\(run)", command: "start")
                    try await ledger.readOthers(onBillingDay: day)
                    let budget = DailyBudget(limit: 0.10, meter: meter, ledger: ledger, logger: LogRecorder().logger())
                    let client = XClient(
                        configuration: .init(baseURL: url, credentials: [.human: Fixture.human, .bot: Fixture.bot]), clock: clock,
                        usage: meter, budget: budget, logger: Fixture.logger)
                    for index in 0..<3 {
                        do {
                            _ = try await client.send(CreateTweet(text: "run \(run), post \(index)"), as: .bot, for: .posts)
                            sent += 1
                        } catch XAPIError.overBudget {}
                    }
                }
                // $0.10 buys six posts of $0.015 ($0.090); the seventh would pass it.
                #expect(sent == 6)
                let billed = await server.billing().reduce(0.0) { $0 + XPriceList.current.cost(of: $1.bill) }
                #expect(billed <= 0.10 + 1e-9, "fake X billed $\(billed) against a budget of $0.10")
                #expect(abs(try await days.spent(on: day) - billed) < 1e-9, "the stored spend is what fake X billed")
            }
        }
    }

    @Test("While what other runs spent today cannot be read, or the spend cannot be written, billed calls are not sent; once it can, they are")
    func unknownSpendWaits() async throws {
        try await withFakeX { server, url async throws in
            let (client, meter, ledger) = Self.client(of: url, limit: 1.0)
            // The start could not read the day's spend: nothing is sent, and each call tries the read again itself.
            meter.markSpentElsewhereUnread()
            ledger.set(readable: false, writable: true)
            await #expect(throws: XAPIError.self) { try await client.send(CreateTweet(text: "first"), as: .bot, for: .posts) }
            #expect(await server.requestCounts()[CreateTweet.name] == nil)
            #expect(ledger.reads == 1)
            // Readable again: the call reads it ($0.50 spent elsewhere, counted) and goes.
            ledger.set(readable: true, writable: true)
            _ = try await client.send(CreateTweet(text: "second"), as: .bot, for: .posts)
            #expect(await server.requestCounts()[CreateTweet.name] == 1)
            #expect(abs(meter.spent(onBillingDay: UsageMeter.billingDay(of: Fixture.start)) - 0.515) < 1e-9)
            // The spend cannot be written: not sent, and nothing is left counted in flight.
            ledger.set(readable: true, writable: false)
            do {
                _ = try await client.send(CreateTweet(text: "third"), as: .bot, for: .posts)
                Issue.record("a call was sent whose spend could not be written")
            } catch let error as XAPIError {
                guard case .spendUnknown = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(error.description.contains("rather than count from zero"), "\(error)")
            }
            #expect(await server.requestCounts()[CreateTweet.name] == 1)
            #expect(abs(meter.spent(onBillingDay: UsageMeter.billingDay(of: Fixture.start)) - 0.515) < 1e-9)
            // Written, the worst case of each call was in the store before it went: $0.015 in flight on top of the bill.
            ledger.set(readable: true, writable: true)
            _ = try await client.send(CreateTweet(text: "fourth"), as: .bot, for: .posts)
            #expect(ledger.written.last.map { abs($0 - 0.030) < 1e-9 } == true, "\(ledger.written)")
        }
    }

    @Test("Calls in flight at once share the headroom: of two posts that each fit alone, with room for one, one is sent")
    func concurrentCallsShareTheHeadroom() async throws {
        try await withFakeX { server, url async throws in
            let (client, _, _) = Self.client(of: url, limit: 0.020)
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<2 { group.addTask { (try? await client.send(CreateTweet(text: "at once \(index)"), as: .bot, for: .posts)) != nil } }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(await server.requestCounts()[CreateTweet.name] == 1)
        }
    }
}

extension SpendLedgerTests {
    /// A client of fake X at `url` whose budget of `limit` writes through a `SwitchedLedger` (readable and writable).
    static func client(of url: URL, limit: Double) -> (XClient, UsageMeter, SwitchedLedger) {
        let meter = UsageMeter()
        let ledger = SwitchedLedger()
        ledger.attach(meter)
        let budget = DailyBudget(limit: limit, meter: meter, ledger: ledger, logger: LogRecorder().logger())
        let client = XClient(
            configuration: .init(baseURL: url, credentials: [.human: Fixture.human, .bot: Fixture.bot]),
            clock: ManualBotClock(now: Fixture.start), usage: meter, budget: budget, logger: Fixture.logger)
        return (client, meter, ledger)
    }
}

/// A ledger a test switches between readable or not and writable or not; it records what was written, and reads
/// $0.50 spent by other runs.
final class SwitchedLedger: SpendLedger {
    private let state = Mutex((readable: true, writable: true, reads: 0, written: [Double]()))
    private let meter = Mutex<UsageMeter?>(nil)

    func set(readable: Bool, writable: Bool) {
        state.withLock {
            $0.readable = readable
            $0.writable = writable
        }
    }
    var reads: Int { state.withLock { $0.reads } }
    var written: [Double] { state.withLock { $0.written } }

    struct Refused: Error {}

    func write(onBillingDay day: String) async throws {
        guard state.withLock({ $0.writable }) else { throw Refused() }
        // What the budget counts for this run now: its bill and the calls in flight.
        let cost = budgetMeter?.recordedCost(onBillingDay: day) ?? 0
        state.withLock { $0.written.append(cost) }
    }

    func readOthers(onBillingDay day: String) async throws {
        let readable = state.withLock {
            $0.reads += 1
            return $0.readable
        }
        guard readable else { throw Refused() }
        budgetMeter?.setSpentElsewhere(0.50, onBillingDay: day)
    }

    /// The meter of the budget this ledger serves.
    var budgetMeter: UsageMeter? { meter.withLock { $0 } }
    /// Serves the budget of `usage`.
    func attach(_ usage: UsageMeter) { meter.withLock { $0 = usage } }
}
