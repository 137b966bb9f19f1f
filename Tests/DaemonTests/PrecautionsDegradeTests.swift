import BotClock
import FakeMastodon
import FakeX
import Foundation
import Logging
import MastodonAPI
import MastodonNetwork
import Picking
import Schedule
import SocialNetwork
import Stores
import TestSupport
import Testing

@testable import Daemon

/// The precautions before a post (the look-up of its original, the instance's character limit) degrade: when the
/// network cannot answer them, the post still goes out at its minute, recorded and logged as unchecked. Each day runs
/// the real clients against the fakes, on the manual clock.
@Suite("A precaution's failure never costs the post", .serialized)
struct PrecautionsDegradeTests {
    @Test(
        "An X whose GET /2/tweets/:id answers 500 all day: every slot posted at its minute, unchecked, and the log says so",
        arguments: StoreBackends.archives)
    func tweetLookUpAnswers500(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            await world.server.add(fault: FakeXFault(kind: .internalServerError, count: 100_000, endpoint: "GET /2/tweets/:id"))
            let log = LogRecorder()
            let poster = world.poster(seed: 11, settings: .init(checksOriginals: true), logger: log.logger(level: .info))
            let task = Task { try await poster.run() }
            _ = try await world.drive(until: PosterWorld.dayStart.addingTimeInterval(86_400))
            task.cancel()
            _ = try? await task.value

            let slots = try #require(try await world.plans.slots(of: PosterWorld.day))
            #expect(slots.count == 15)
            #expect(slots.allSatisfy { $0.state == .posted && $0.postedUnchecked }, "\(slots.filter { $0.state != .posted || !$0.postedUnchecked })")
            #expect(slots.allSatisfy { $0.postedAt == LocalTime.date(of: $0.minute, on: PosterWorld.day, in: PosterWorld.tokyo) })
            #expect(
                slots.allSatisfy { $0.reason?.contains("posted unchecked: its original could not be looked up") == true }, "\(slots.map(\.reason))")
            #expect(await world.server.posted().count == 15)
            // The look-ups were asked (and answered 500), once per slot with the client's retries.
            #expect((await world.server.requestCounts()["GET /2/tweets/:id"] ?? 0) >= 15)
            // Nothing left the archive: a look-up that was not answered says nothing about the original.
            #expect(try await world.archive.count() == PosterWorld.history().count)
            #expect(log.lines(containing: "could not be looked up ahead").count == 15)
            #expect(log.lines(containing: "HTTP 500").count >= 15)
            #expect(log.lines(containing: "day \(PosterWorld.day): 15 of 15 slots posted, 15 of them unchecked").count == 1, "\(log.lines.suffix(5))")
        }
    }

    @Test("A Mastodon whose GET /api/v2/instance is rate-limited all day: every slot posted at its minute within the default 500 characters")
    func instanceRateLimited() async throws {
        let seed = FakeMastodonSeed(
            now: PosterWorld.dayStart,
            accounts: [
                .init(id: "100", username: "person", token: "person-token", scopes: ["read"]),
                .init(id: "200", username: "mirror", token: "bot-token", scopes: ["read", "write:statuses"], bot: true),
            ])
        let server = FakeMastodonServer(seed: seed, logger: PosterWorld.quiet)
        await server.add(fault: FakeMastodonFault(kind: .rateLimited, count: 100_000, endpoint: GetInstance.name))
        try await server.withRunning { url in
            try await TestServers.withIsolatedDatabase(.memory) { database in
                let archive = database.archive(timeZone: PosterWorld.tokyo, rowLimit: 10_000)
                try await archive.insert(PosterWorld.history())
                let clock = ManualBotClock(now: PosterWorld.dayStart.addingTimeInterval(30))
                let client = MastodonClient(
                    configuration: .init(accounts: [
                        .human: MastodonAccess(instance: url, token: "person-token"),
                        .bot: MastodonAccess(instance: url, token: "bot-token"),
                    ]),
                    clock: clock, logger: PosterWorld.quiet)
                let log = LogRecorder()
                let poster = Poster(
                    clock: clock, plans: database.plans, planner: SchedulePlanner(archive: archive, maxPostsPerDay: 50),
                    picker: PostPicker(archive: archive, repostAfterDays: 30, allowsMentions: false, logger: PosterWorld.quiet),
                    network: MastodonMirrorNetwork(client: client), settings: .init(), logger: log.logger(level: .info), seed: 11)
                let task = Task { try await poster.run() }
                let end = PosterWorld.dayStart.addingTimeInterval(86_400)
                while true {
                    try await clock.waitForSleepers()
                    await poster.activity.settled()
                    try await clock.waitForSleepers()
                    guard let next = clock.nextSleeperDeadline, next < end else { break }
                    clock.advance(to: next)
                }
                task.cancel()
                _ = try? await task.value

                let slots = try #require(try await database.plans.slots(of: PosterWorld.day))
                #expect(slots.count == 15)
                #expect(slots.allSatisfy { $0.state == .posted }, "\(slots.filter { $0.state != .posted })")
                #expect(slots.allSatisfy { $0.postedAt == LocalTime.date(of: $0.minute, on: PosterWorld.day, in: PosterWorld.tokyo) })
                #expect(await server.posted().filter { $0.accountID == "200" }.count == 15)
                // The instance was asked for its limit, and refused.
                #expect((await server.requestCounts()[GetInstance.name] ?? 0) >= 1)
                #expect(log.lines(containing: "day \(PosterWorld.day): 15 of 15 slots posted").count == 1, "\(log.lines.suffix(5))")
            }
        }
    }
}
