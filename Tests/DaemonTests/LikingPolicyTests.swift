import BotClock
import Foundation
import ScriptedNetwork
import Testing

@testable import Daemon

/// The line that says whether the bot likes and why, on a network that offers likes and on one that asks bots not to.
@Suite("Whether the bot likes, in a line")
struct LikingPolicyTests {
    static let persona = ScriptedPersona(seed: 1, dayStart: Date(timeIntervalSince1970: 1_795_273_200), timeZone: .gmt)

    @Test(
        "LIKES=auto where the network asks bots not to like: off, with its reason; LIKES=on there: on, and the reason said beside; where it offers likes: on, no reason"
    )
    func statusLines() {
        let clock = ManualBotClock(now: Self.persona.dayStart)
        let discouraging = ScriptedNetwork(world: Self.persona.world, clock: clock, likes: false)
        let welcoming = ScriptedNetwork(world: Self.persona.world, clock: clock, likes: true)
        let auto = LikingPolicy(setting: .auto, network: discouraging)
        #expect(
            !auto.isChosen
                && auto.statusLine
                    == "likes: off (LIKES=auto: the scripted network offers no likes); nothing only liking needs is read. Set LIKES=on to try anyway"
        )
        let on = LikingPolicy(setting: .on, network: discouraging)
        #expect(on.isChosen && on.statusLine == "likes: on (LIKES=on), though the scripted network offers no likes")
        #expect(LikingPolicy(setting: .on, network: welcoming).statusLine == "likes: on (LIKES=on)")
        #expect(LikingPolicy(setting: .auto, network: welcoming).statusLine == "likes: on (LIKES=auto)")
    }
}
