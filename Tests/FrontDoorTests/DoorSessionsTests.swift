import BotClock
import Foundation
import Testing

@testable import FrontDoor

@Suite("The front door's sessions: lapsing, swept a minute apart, capped")
struct DoorSessionsTests {
    @Test("A session lapses twelve hours after its last use, at once for its browser; lapsed ones are swept a minute apart, not on every request")
    func lapseAndSweep() async {
        let clock = ManualBotClock(now: Date(timeIntervalSince1970: 1_795_000_000))
        let sessions = DoorSessions(clock: clock)
        let (kept, _) = await sessions.open()
        let (idle, _) = await sessions.open()
        _ = await sessions.session(nil)  // the first sweep, now
        clock.advance(by: DoorSessions.lifetime - 10)
        #expect(await sessions.session(kept) != nil, "used before it lapsed: slid forward")
        clock.advance(by: 20)
        #expect(await sessions.session(idle) == nil, "lapsed: refused at once, before any sweep")
        let (fresh, _) = await sessions.open()
        for _ in 0..<5 { _ = await sessions.open() }
        // Every session lapses: the first request after a minute sweeps them all.
        clock.advance(by: DoorSessions.lifetime + 1)
        #expect(await sessions.session(kept) == nil)
        #expect(await sessions.count == 0, "the sweep at the first request after a minute took every lapsed one")
        let (late, _) = await sessions.open()
        clock.advance(by: DoorSessions.lifetime + 1)
        #expect(await sessions.session(fresh) == nil)
        #expect(await sessions.count == 0, "swept again: more than a minute since the last")
        // A session that lapses within a minute of the last sweep is kept until the next one (no pass over all on every
        // request), and refused all the same.
        let (lapsing, _) = await sessions.open()
        clock.advance(by: DoorSessions.lifetime - 30)
        _ = await sessions.session(nil)  // a sweep: it has not lapsed yet
        clock.advance(by: 40)
        _ = await sessions.session(nil)  // no sweep: 40 s since the last
        #expect(await sessions.count == 1 && late != lapsing)
        #expect(await sessions.session(lapsing) == nil)
        #expect(await sessions.count == 0)
    }
}
