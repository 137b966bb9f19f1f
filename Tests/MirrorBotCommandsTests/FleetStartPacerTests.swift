import Testing

@testable import BotAssembly

/// The fleet's spacing of its bots' starts on one server, on instants given (nothing sleeps).
@Suite("A fleet spaces its bots' starts on each server")
struct FleetStartPacerTests {
    @Test("Bots on one server start a spacing apart; another server's first bot starts at once; after a quiet spell a start is not held back")
    func spacing() async {
        let pacer = FleetStartPacer(spacing: .milliseconds(100))
        let now = ContinuousClock.now
        var turns: [ContinuousClock.Instant] = []
        for _ in 0..<5 { turns.append(await pacer.turn(on: "mastodon.example", now: now)) }
        #expect(turns == (0..<5).map { now + .milliseconds(100 * $0) })
        #expect(await pacer.turn(on: "misskey.example", now: now) == now)
        let later = now + .seconds(10)
        #expect(await pacer.turn(on: "mastodon.example", now: later) == later)
        #expect(await pacer.turn(on: "mastodon.example", now: later) == later + .milliseconds(100))
    }

    @Test("A thousand bots on three servers, as bench-fleet claims them: all started within the time their server's share takes at ten a second")
    func aThousandBots() async {
        let pacer = FleetStartPacer(spacing: .seconds(1) / FleetStartPacer.startsPerSecondOnAServer)
        let now = ContinuousClock.now
        var last = now
        for bot in 0..<1_000 { last = max(last, await pacer.turn(on: ["a", "b", "c"][bot % 3], now: now)) }
        #expect(last == now + .milliseconds(100 * 333))
    }
}
