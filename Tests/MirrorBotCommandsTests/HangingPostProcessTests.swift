import FakeX
import Foundation
import Stores
import TestSupport
import Testing

/// SIGTERM while X has made a post but holds back its answer: the bot does not wait for the answer past its graceful
/// shutdown, and the next start reads the post back instead of sending it again. A process test because only a
/// process shows it: SIGTERM, a real connection held open past the shutdown's real-time limit, and the next start.
@Suite("mirror_bot start stopped while a post's answer hangs")
struct HangingPostProcessTests {
    @Test(
        "SIGTERM while X holds a post's answer: exit 0 well before the answer comes; the next start records the slot as posted with that post; nothing posted twice",
        arguments: PersonaDayProcessTests.backends)
    func sigtermDuringHangingPost(_ backends: StoreBackends) async throws {
        let persona = PersonaDayProcessTests.persona()
        try await PersonaDayProcessTests.withTrainedBot(persona, "hang", backends) { server, environment, database, _ in
            try await TestServers.withTemporaryFolder { folder in
                // The first scheduled post hangs (not an answer to a mention, which may come first).
                await server.add(fault: FakeXFault(kind: .hangAfterHandling, endpoint: "POST /2/tweets (post)"))
                await server.armClock(PersonaDayProcessTests.dayStart, speed: 720)
                let bot = try RunningBot(
                    ["start", "--speed", "720", "--start-time", "2026-11-22T00:00:00+09:00", "--duration", "1d"],
                    environment: environment, folder: folder)
                // The first post is made, and its answer held back (real time: the bot is another process).
                let deadline = ContinuousClock.now + .seconds(120)
                while await server.hangsBegun() == 0, ContinuousClock.now < deadline, bot.process.isRunning {
                    try await Task.sleep(for: .milliseconds(50))
                }
                try #require(await server.hangsBegun() == 1, "\(bot.tail)")
                let made = try #require(await server.posted().last { $0.inReplyToTweetID == nil })
                kill(bot.process.processIdentifier, SIGTERM)
                let (status, took) = try await bot.waitForExit()
                #expect(
                    status == 0,
                    "\(bot.log.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.contains("API usage") }.suffix(60).joined(separator: "\n"))")
                // The answer comes 20 s after the post: the bot stopped without it, within the 10 s a shutdown has
                // (the post in flight is given 7 s, then cancelled).
                #expect(took < .seconds(10), "stopped after \(took)")
                #expect(bot.log.contains("Poster stopped for shutdown."), "\(bot.tail)")
                let plans = database.plans
                let cut = try await plans.slots(of: PersonaDayProcessTests.day)?.filter { $0.state == .posting } ?? []
                #expect(cut.count == 1, "the slot being sent is left for the next start to read back: \(cut)")

                // Started again: the slot is read back from the bot's posts, and recorded with the post X made.
                let resumeAt = await server.now()
                await server.armClock(resumeAt, speed: 1_440)
                // Stopped once it said so (a fixed --duration could end, on a loaded machine, before the read-back).
                let again = try RunningBot(
                    ["start", "--speed", "1440", "--start-time", resumeAt.formatted(.iso8601), "--duration", "1d"],
                    environment: environment, folder: folder)
                #expect(try await again.waitForLog("interrupted while posting last run"), "\(again.tail)")
                kill(again.process.processIdentifier, SIGTERM)
                #expect(try await again.waitForExit().status == 0, "\(again.tail)")
                let slots = try await plans.slots(of: PersonaDayProcessTests.day) ?? []
                #expect(slots.filter { $0.state == .posting }.isEmpty)
                let recorded = slots.filter { $0.botPostID.map(String.init) == made.id }
                #expect(recorded.count == 1 && recorded.first?.state == .posted, "\(slots.filter { $0.minute == cut.first?.minute })")
                let texts = await server.posted().filter { $0.inReplyToTweetID == nil }.map(\.text)
                #expect(Set(texts).count == texts.count, "a text posted twice: \(texts)")
                #expect(texts.filter { $0 == made.text }.count == 1)
            }
        }
    }
}
