import BotClock
import Foundation
import Synchronization
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

    @Test(
        "A sign-in no mirror was made with is given back: the bot's replaced by another, a session closed, signed in anew or lapsed; one a mirror was made with is not"
    )
    func unusedSignInsGivenBack() async {
        let clock = ManualBotClock(now: Date(timeIntervalSince1970: 1_795_000_000))
        final class Given: Sendable { let list = Mutex<[String]>([]) }
        let given = Given()
        let sessions = DoorSessions(clock: clock) { signIns in given.list.withLock { $0 += signIns.map { $0.variables[0].value } } }
        func signIn(_ name: String) -> DoorSignIn { DoorSignIn(variables: [("TOKEN", name)]) }
        let person = DoorAccount(network: "mastodon", networkName: "Mastodon", handle: "alice", account: "1@social.example")
        let bot = DoorAccount(network: "mastodon", networkName: "Mastodon", handle: "mirror", account: "2@social.example")

        let alice = await sessions.signIn(person, with: signIn("alice-1"), replacing: nil)
        await sessions.signInBot(bot, with: signIn("bot-1"), in: alice)
        await sessions.signInBot(bot, with: signIn("bot-2"), in: alice)
        #expect(given.list.withLock { $0 } == ["bot-1"], "the bot's first sign-in, replaced")
        // Signed in anew in the same browser: both unused sign-ins of the old session go.
        let again = await sessions.signIn(person, with: signIn("alice-2"), replacing: alice)
        #expect(given.list.withLock { $0 }.sorted() == ["alice-1", "bot-1", "bot-2"])
        // Made into a mirror: nothing to give back when it closes.
        await sessions.dropSignIns(in: again)
        await sessions.close(again)
        #expect(given.list.withLock { $0 }.count == 3)
        // Closed (signed out) before a mirror was made: given back.
        let closed = await sessions.signIn(person, with: signIn("alice-3"), replacing: nil)
        await sessions.close(closed)
        #expect(given.list.withLock { $0 }.last == "alice-3")
        // Lapsed: given back at the sweep.
        _ = await sessions.signIn(person, with: signIn("alice-4"), replacing: nil)
        clock.advance(by: DoorSessions.lifetime + DoorSessions.sweepInterval + 1)
        _ = await sessions.session(nil)
        #expect(given.list.withLock { $0 }.last == "alice-4")
        // The operator's sign-in in the same browser keeps the person's sign-ins: nothing given back.
        let operatorBrowser = await sessions.signIn(person, with: signIn("alice-5"), replacing: nil)
        _ = await sessions.signInOperator(replacing: operatorBrowser)
        #expect(given.list.withLock { $0 }.last == "alice-4")
    }
}
