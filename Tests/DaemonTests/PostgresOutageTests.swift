import BotClock
import FakeX
import Foundation
import Logging
import Picking
import PostgresStores
import Schedule
import Stores
import TestSupport
import Testing
import XAPI
import XNetwork

@testable import Daemon

@Suite("Services when Postgres goes away", .serialized)
struct PostgresOutageTests {
    @Test("The replier pauses while Postgres is down, retries with backoff, and answers the waiting mention once when it is back")
    func replierSurvivesOutage() async throws {
        try await TestServers.withScratchDatabase("outage") { url async throws in
            let seed = FakeXSeed(
                now: ReplierWorld.start,
                users: [.init(id: "200", username: "mirror_bot"), .init(id: "300", username: "friend")],
                accounts: [.init(userID: "200", consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts")])
            let server = FakeXServer(seed: seed, logger: ReplierWorld.quiet)
            try await server.withRunning { base in
                try await PostgresStoreSet(url: url, logger: TestServers.logger).withRunning { database in
                    try await database.migrations.migrate()
                    let archive = database.archive(timeZone: TimeZone(identifier: "UTC")!, rowLimit: 100)
                    _ = try await archive.insert([
                        ArchivedPost(
                            postID: 1, text: "@friend それな", replyUserID: 300,
                            createdAt: ReplierWorld.start.addingTimeInterval(-90_000))
                    ])
                    let mentions = database.mentions
                    let state = database.state
                    try await state.setValue("0", of: Replier.sinceIDKey)
                    let clock = ManualBotClock(now: ReplierWorld.start)
                    let client = XClient(
                        configuration: .init(baseURL: base, credentials: [.bot: ReplierWorld.bot]), clock: clock,
                        logger: ReplierWorld.quiet)
                    let replier = Replier(
                        clock: clock, mentions: mentions, state: state, picker: ReplyPicker(archive: archive, fallback: .none),
                        network: XMirrorNetwork(client: client),
                        botUserID: "200", settings: .init(pollInterval: 60, delay: 0...0), logger: ReplierWorld.quiet, seed: 1)
                    let running = Task { try await replier.run() }
                    try await clock.waitForSleepers()
                    #expect(clock.sleepRequests == [.seconds(60)])  // a poll that found nothing

                    try await TestServers.setOutage(true, of: url.database)
                    await server.add(tweets: [FakeXSeed.Tweet(id: "1001", authorID: "300", text: "@mirror_bot 元気？", createdAt: ReplierWorld.start)])
                    // Each failed poll ends when postgres-nio's pool gives up on its request, up to a minute of real time
                    // while Postgres refuses: three minutes bound the wait for the poll's next sleep (a loaded machine).
                    for _ in 0..<3 {
                        _ = clock.advanceToNextSleeper()
                        try await clock.waitForSleepers(within: .seconds(180))
                    }
                    // Three failed polls, each followed by a longer wait; nothing was posted, the service still runs.
                    // (The first takes postgres-nio's pool up to a minute to give up on: requests wait while it tries.)
                    #expect(Array(clock.sleepRequests.suffix(3)) == [Duration.seconds(2), .seconds(4), .seconds(8)])
                    #expect(await server.posted().isEmpty)

                    try await TestServers.setOutage(false, of: url.database)
                    // postgres-nio's pool retries its connection on its own real-time backoff (after an outage its
                    // circuit breaker fails requests at once until a connection succeeds): the bot's polls go on
                    // until then. This waits, in real time, for the pool to reconnect.
                    let deadline = ContinuousClock.now + .seconds(120)
                    while await server.posted().isEmpty, ContinuousClock.now < deadline {
                        _ = clock.advanceToNextSleeper()
                        try await clock.waitForSleepers(within: .seconds(180))
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    let backoffs = clock.sleepRequests.dropFirst().dropLast().filter { $0 > .zero }  // (0: the reply's pause)
                    #expect(zip(backoffs, backoffs.dropFirst()).allSatisfy { $0 <= $1 }, "\(backoffs)")  // never faster
                    #expect(backoffs.allSatisfy { $0 <= .seconds(256) })
                    #expect(clock.sleepRequests.last == .seconds(60))  // back to the normal poll
                    let posted = await server.posted()
                    #expect(posted.count == 1)
                    #expect(posted.first?.text == "それな")
                    #expect(try await mentions.outcome(of: 1001)?.state == .replied)

                    _ = clock.advanceToNextSleeper()
                    try await clock.waitForSleepers()
                    #expect(await server.posted().count == 1)  // answered once
                    running.cancel()
                    _ = try? await running.value
                }
            }
        }
    }
}
