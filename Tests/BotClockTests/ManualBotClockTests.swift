import BotClock
import Foundation
import Testing

@Suite("The manual clock")
struct ManualBotClockTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("A sleeper wakes when the clock passes its deadline, not before")
    func wakesAtDeadline() async throws {
        let clock = ManualBotClock(now: start)
        let sleeper = Task {
            try await clock.sleep(for: .seconds(60))
            return clock.now()
        }
        try await clock.waitForSleepers(count: 1)
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
        try await clock.waitForSleepers()
        #expect(clock.advanceToNextSleeper() == start.addingTimeInterval(90))
        try await sleeper.value
    }

    @Test("Cancelling a sleeper ends its sleep with CancellationError")
    func cancellation() async throws {
        let clock = ManualBotClock(now: start)
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        try await clock.waitForSleepers()
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("Waiting for sleepers that never come fails within its bound, saying how many it waited for and how many came")
    func waitForSleepersIsBounded() async throws {
        let clock = ManualBotClock(now: start)
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        try await clock.waitForSleepers(count: 1)
        do {
            try await clock.waitForSleepers(count: 2, within: .milliseconds(50))
            Issue.record("the wait for a second sleeper returned, but only one sleeps")
        } catch let error as SleepersNotSeen {
            #expect(error.wanted == 2 && error.waiting == 1)
            #expect(error.description.contains("for 2 sleepers on the manual clock; 1 was waiting"), "\(error)")
        }
        // The expired wait is gone: a later sleeper wakes no one, and the clock goes on as before.
        let second = Task { try await clock.sleep(for: .seconds(30)) }
        try await clock.waitForSleepers(count: 2)
        clock.advance(by: 60)
        try await sleeper.value
        try await second.value
    }

    @Test("A wait for sleepers ends with CancellationError when its task is cancelled")
    func waitForSleepersCancelled() async throws {
        let clock = ManualBotClock(now: start)
        let waiter = Task { try await clock.waitForSleepers(count: 1, within: .seconds(600)) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }
}
