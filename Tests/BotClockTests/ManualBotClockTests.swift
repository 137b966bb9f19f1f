import BotClock
import Foundation
import Testing

@Suite("The manual clock")
struct ManualBotClockTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("A sleeper wakes when the clock passes its deadline, not before")
    func wakesAtDeadline() async throws {
        let clock = ManualBotClock(now: start)
        let sleeper = Task { try await clock.sleep(for: .seconds(60)); return clock.now() }
        await clock.waitForSleepers(count: 1)
        clock.advance(by: 59)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: 1)
        #expect(try await sleeper.value == start.addingTimeInterval(60))
        #expect(clock.sleepRequests == [.seconds(60)])
    }

    @Test("Sleeping until a past date returns at once; sleeping until a future date waits for it")
    func sleepUntil() async throws {
        let clock = ManualBotClock(now: start)
        try await clock.sleep(until: start.addingTimeInterval(-5))
        #expect(clock.sleepRequests.isEmpty)
        let sleeper = Task { try await clock.sleep(until: start.addingTimeInterval(90)) }
        await clock.waitForSleepers()
        #expect(clock.advanceToNextSleeper() == start.addingTimeInterval(90))
        try await sleeper.value
    }

    @Test("Cancelling a sleeper ends its sleep with CancellationError")
    func cancellation() async throws {
        let clock = ManualBotClock(now: start)
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        await clock.waitForSleepers()
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }
}
