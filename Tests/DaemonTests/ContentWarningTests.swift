import BotClock
import FakeMastodon
import FakeX
import Foundation
import MastodonAPI
import MastodonNetwork
import Picking
import Schedule
import SocialNetwork
import Stores
import TestSupport
import Testing
import XAPI
import XNetwork

@testable import Daemon

/// A post the person hid behind a content warning (archived with `POST_CW=true`): on Mastodon its copy goes out
/// behind the same warning; on X, which has none, it is never posted in the open.
@Suite("Content warnings kept with their posts", .serialized)
struct ContentWarningTests {
    static let warned = ArchivedPost(
        postID: 7, text: "最終回の結末", createdAt: PosterWorld.dayStart.addingTimeInterval(-86_400 + 9 * 3_600),
        contentWarning: "ネタバレ")

    /// A poster whose archive holds only the warned post, with a plan of one slot at 09:00, on `network`.
    static func postAtNine(_ network: any MirrorNetwork, database: any StoreSet) async throws -> PlanSlot? {
        let archive = database.archive(timeZone: PosterWorld.tokyo, rowLimit: 100)
        try await archive.prepare()
        try await archive.insert([warned])
        #expect(try await archive.newest(limit: 1).first?.contentWarning == "ネタバレ")
        let plans = database.plans
        _ = try await plans.storePlan(day: PosterWorld.day, timeZone: PosterWorld.tokyo.identifier, minutes: [540], drawnAt: PosterWorld.dayStart)
        let clock = ManualBotClock(now: PosterWorld.dayStart.addingTimeInterval(9 * 3_600))
        let poster = Poster(
            clock: clock, plans: plans, planner: SchedulePlanner(archive: archive, maxPostsPerDay: 50),
            picker: PostPicker(archive: archive, repostAfterDays: 30, allowsMentions: false, logger: PosterWorld.quiet),
            network: network, logger: PosterWorld.quiet, seed: 1)
        try await poster.post(day: PosterWorld.day, minute: 540, seed: 1)
        return try await plans.slots(of: PosterWorld.day)?.first
    }

    @Test("On Mastodon the copy is posted behind the original's warning", arguments: StoreBackends.archives)
    func mastodon(_ backend: StoreBackends.ArchiveKind) async throws {
        let seed = FakeMastodonSeed(now: PosterWorld.dayStart, accounts: [.init(id: "200", username: "mirror", token: "bot-token", bot: true)])
        let server = FakeMastodonServer(seed: seed, logger: PosterWorld.quiet)
        try await server.withRunning { url in
            try await TestServers.withIsolatedDatabase(backend) { database async throws in
                let client = MastodonClient(
                    configuration: .init(accounts: [.bot: MastodonAccess(instance: url, token: "bot-token")]),
                    clock: ManualBotClock(now: PosterWorld.dayStart), logger: PosterWorld.quiet)
                let slot = try await Self.postAtNine(MastodonMirrorNetwork(client: client, copyingWarnings: true), database: database)
                #expect(slot?.state == .posted)
                let posted = await server.posted()
                #expect(posted.count == 1 && posted.first?.spoilerText == "ネタバレ" && posted.first?.content == "<p>最終回の結末</p>")
            }
        }
    }

    @Test("On X, which has no content warnings, it is not posted in the open: the slot is skipped with the reason", arguments: StoreBackends.archives)
    func x(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            try await world.archive.removeAll()
            let slot = try await Self.postAtNine(XMirrorNetwork(client: world.client), database: world.database)
            #expect(slot?.state == .skipped)
            #expect(await world.server.posted().isEmpty)
            #expect(await world.server.requestCounts()["POST /2/tweets"] == nil)
        }
    }
}
