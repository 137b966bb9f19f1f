import FakeX
import Foundation
import SeededRandom
import TestSupport
import Testing
import XAPI

/// The daily budget through crashes: `mirror_bot start` on X SIGKILLed again and again through a simulated day, each
/// time right after fake X billed a call (before any minute's recording of the spend could follow), and started again.
/// The budget is written before it is spent, so fake X's own bill of the UTC day stays within `X_DAILY_BUDGET`.
@Suite("The X budget through SIGKILLs", .serialized)
struct BudgetKillsProcessTests {
    static let budget = 0.10

    @Test("SIGKILLed right after billed calls, every few seconds through a simulated day: fake X's bill of the UTC day stays within X_DAILY_BUDGET")
    func budgetHoldsThroughKills() async throws {
        let persona = PersonaDayProcessTests.persona()
        try await PersonaDayProcessTests.withTrainedBot(persona, "budget_kills", StoreBackends(archive: .sqlite, counts: .sqlite)) {
            server, trained, database, _ in
            var environment = trained
            environment["X_DAILY_BUDGET"] = String(Self.budget)
            // The day runs from 11:00 in Tokyo (02:00 UTC) to its end: one UTC day, which the training (the day before
            // in UTC) spent nothing of. Each restart's clock starts where the fake's stands, and lags it by the start-up
            // (a second is 24 bot minutes): two hours from the boundary keep both clocks on the same UTC day.
            let from = PersonaDayProcessTests.dayStart.addingTimeInterval(11 * 3_600)
            let end = PersonaDayProcessTests.dayStart.addingTimeInterval(86_400)
            let utcDay = UsageMeter.billingDay(of: from)
            let billedBefore = await Self.cost(server, on: utcDay)
            #expect(billedBefore == 0, "the training billed $\(billedBefore) on \(utcDay)")
            await server.armClock(from, speed: PersonaDayProcessTests.speed)
            var random = SplitMix64(seed: 43)
            var kills = 0
            var runs = 0
            try await TestServers.withTemporaryFolder { folder in
                // The fake's clock is armed: it is set at `from` by the first run's first request, so that run starts at
                // `from` too; each later run where the fake's clock stands.
                var first = true
                while await server.now() < end.addingTimeInterval(-1_800) {
                    let startAt = first ? from : await server.now()
                    first = false
                    let bot = try RunningBot(
                        [
                            "start", "--speed", "1440", "--start-time", startAt.formatted(.iso8601), "--duration",
                            "\(Int(end.timeIntervalSince(startAt)))s",
                        ],
                        environment: environment, folder: folder)
                    runs += 1
                    defer { if bot.process.isRunning { kill(bot.process.processIdentifier, SIGKILL) } }
                    // A few seconds of the run (an hour or two of the bot's), then the next billed call, then at once SIGKILL.
                    try await Task.sleep(for: .milliseconds(1_000 + Int(random.next() % 2_000)))
                    let billed = await Self.cost(server, on: utcDay)
                    let deadline = ContinuousClock.now + .seconds(5)
                    while await Self.cost(server, on: utcDay) == billed, ContinuousClock.now < deadline, bot.process.isRunning {
                        try await Task.sleep(for: .milliseconds(2))
                    }
                    guard bot.process.isRunning else {
                        let (status, _) = try await bot.waitForExit(within: .seconds(10))
                        #expect(status == 0, "\(bot.tail)")
                        break
                    }
                    kill(bot.process.processIdentifier, SIGKILL)
                    _ = try await bot.waitForExit(within: .seconds(10))
                    kills += 1
                    #expect(!bot.log.contains("Fatal error"), "\(bot.tail)")
                    // Written before it is spent: after any kill the store holds at least what fake X billed.
                    let storedNow = try await database.usageDays.entries(since: utcDay).filter { $0.day == utcDay }.reduce(0) { $0 + $1.cost }
                    let billedNow = await Self.cost(server, on: utcDay)
                    #expect(
                        storedNow + 1e-9 >= billedNow,
                        "after SIGKILL \(kills) the store holds $\(storedNow) spent where fake X billed $\(billedNow): a spend was lost")
                }
            }
            let billed = await Self.cost(server, on: utcDay)
            let stored = try await database.usageDays.entries(since: utcDay).filter { $0.day == utcDay }
            let otherDays = try await database.usageDays.entries(since: "2026-01-01").filter { $0.day != utcDay && $0.command == "start" }
            #expect(otherDays.isEmpty, "a run counted its spend on another UTC day than fake X: \(otherDays.map { "\($0.day) \($0.cost)" })")
            print(
                "budget through kills, stored: \(stored.map { String(format: "%.3f", $0.cost) }.joined(separator: " + ")) = \(stored.reduce(0) { $0 + $1.cost }); fake X's bill by app: \(await server.billing().filter { $0.day == utcDay }.map { "\($0.app.prefix(6)) \($0.bill)" })"
            )
            print(
                "budget through kills: \(runs) runs, \(kills) SIGKILLs; fake X billed $\(billed) on \(utcDay) against X_DAILY_BUDGET $\(Self.budget)")
            #expect(kills >= 4, "only \(kills) SIGKILLs in the day")
            #expect(
                billed <= Self.budget + 1e-9, "fake X billed $\(billed) on \(utcDay), past X_DAILY_BUDGET $\(Self.budget), through \(kills) SIGKILLs")
            // The budget was what stopped the spending: the bot's own count of the day reached it. (Fake X's bill stays
            // below that count: a killed run's reservation of a call's worst case is never settled to what the call cost,
            // so the bill of a day of kills came to $0.043–$0.057 where the count reached $0.087–$0.091 in three runs.)
            // Compared as the bill is above (1e-9 of a dollar for the sums' rounding: $0.08 counted against 0.10 × 0.8
            // = 0.08000000000000002 is 80%).
            let counted = stored.reduce(0) { $0 + $1.cost }
            #expect(
                counted >= Self.budget * 0.8 - 1e-9,
                "the bot counted only $\(counted) spent (fake X billed $\(billed)): the budget was never reached, so the test proves nothing")
        }
    }

    /// What fake X billed on the UTC `day`, every app together.
    static func cost(_ server: FakeXServer, on day: String) async -> Double {
        await server.billing().filter { $0.day == day }.reduce(0.0) { $0 + XPriceList.current.cost(of: $1.bill) }
    }
}
