import BotClock
import BotCore
import Consent
import FakeMastodon
import Foundation
import MastodonAPI
import MastodonNetwork
import Picking
import Stores
import TestSupport
import Testing

@testable import Daemon

/// The replier where the network pushes mentions (Mastodon's streaming): answers without polling, polls to catch up
/// when the stream drops, and goes back to the stream.
@Suite("The replier on a mention stream", .serialized)
struct ReplierStreamingTests {
    static let start = Date(timeIntervalSince1970: 1_717_945_200)
    static let botID = "200", friendID = "300"

    struct World {
        let server: FakeMastodonServer
        let clock: ManualBotClock
        let log: LogRecorder
        let replier: Replier

        /// A mention of the bot by the friend, made now on the instance's clock (its id far from those the instance gives the bot's replies).
        func mention(_ number: Int, _ text: String) async {
            await server.add(statuses: [
                .init(
                    id: String(900_000_000_000_000_000 + UInt64(number) * 1_000), accountID: ReplierStreamingTests.friendID,
                    content: "<p>@mirror \(text)</p>", createdAt: await server.now(), mentionIDs: [ReplierStreamingTests.botID])
            ])
        }

        /// The answers made so far, once there are `count` of them (the stream is read in real time by the other task).
        func answers(count: Int) async throws -> [FakeMastodonSeed.Status] {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                let replies = await server.posted().filter { $0.inReplyToID != nil }
                if replies.count >= count { return replies }
                try await Task.sleep(for: .milliseconds(10))
            }
            return await server.posted().filter { $0.inReplyToID != nil }
        }

        /// Waits until the replier sleeps (its round is over), then moves the bot's clock `seconds` on.
        func advanceAfterRound(by seconds: TimeInterval) async throws {
            try await clock.waitForSleepers()
            clock.advance(by: seconds)
        }

        /// Waits (in real time, for the replier's task, at most 20 s) until `condition` holds; false if it never did.
        func eventually(_ condition: () async -> Bool) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                if await condition() { return true }
                try await Task.sleep(for: .milliseconds(10))
            }
            return await condition()
        }

        var notificationReads: Int { get async { await server.requestCounts()[GetMentionNotifications.name] ?? 0 } }
    }

    static func with(streaming: Bool, _ body: (World) async throws -> Void) async throws {
        let seed = FakeMastodonSeed(
            now: start,
            accounts: [
                .init(id: "100", username: "person", token: "person-token", scopes: ["read"]),
                .init(id: botID, username: "mirror", token: "bot-token", scopes: ["read", "write"], bot: true),
                .init(id: friendID, username: "friend"),
                .init(
                    id: "600", username: "quiet",
                    note: "<p>Please, no bots. <a href=\"https://mastodon.example/tags/nobot\">#<span>nobot</span></a></p>"),
                .init(id: "700", username: "carol"),
            ])
        let server = FakeMastodonServer(seed: seed, logger: ReplierWorld.quiet)
        await server.setStreamingAvailable(streaming)
        try await server.withRunning { url in
            try await TestServers.withIsolatedDatabase(.sqlite) { database async throws in
                let archive = database.archive(timeZone: TimeZone(identifier: "UTC")!, rowLimit: 1_000)
                let plain: [ArchivedPost] = ["それな", "わかる", "なるほど", "たしかに"].enumerated().map { index, text in
                    ArchivedPost(
                        postID: PostID(index + 1), text: "@friend " + text, replyUserID: 300,
                        createdAt: start.addingTimeInterval(Double(-90_000 + index * 60)))
                }
                // Replies naming a third party, most of the pool: never sent (carol would be notified, or added to a direct
                // conversation).
                var naming: [ArchivedPost] = [
                    ArchivedPost(
                        postID: 10, text: "@friend @carol@mastodon.example 聞いた？", replyUserID: 300, createdAt: start.addingTimeInterval(-80_000)),
                    ArchivedPost(postID: 11, text: "@friend carolにも @carol 言っといて", replyUserID: 300, createdAt: start.addingTimeInterval(-79_000)),
                ]
                for number in 20..<32 {
                    let at: Date = start.addingTimeInterval(Double(-70_000 + number))
                    naming.append(ArchivedPost(postID: PostID(number), text: "@friend RT@carol \(number)", replyUserID: 300, createdAt: at))
                }
                let quiet = ArchivedPost(postID: 12, text: "@quiet こんにちは", replyUserID: 600, createdAt: start.addingTimeInterval(-78_000))
                try await archive.insert(plain + naming + [quiet])
                let clock = ManualBotClock(now: start)
                let client = MastodonClient(
                    configuration: .init(accounts: [
                        .human: MastodonAccess(instance: url, token: "person-token"),
                        .bot: MastodonAccess(instance: url, token: "bot-token"),
                    ]),
                    clock: clock, logger: ReplierWorld.quiet)
                let log = LogRecorder()
                let replier = Replier(
                    clock: clock, mentions: database.mentions, state: database.state,
                    picker: ReplyPicker(archive: archive, fallback: .none), network: MastodonMirrorNetwork(client: client),
                    botUserID: botID, settings: .init(pollInterval: 60, delay: 0...0),
                    owner: OwnerCommands(
                        humanUserID: "100", control: OwnerControl(state: database.state), forgetter: nil,
                        timeZone: .gmt),
                    logger: log.logger(), seed: 5)
                let running = Task { try await replier.run() }
                defer { running.cancel() }
                try await body(World(server: server, clock: clock, log: log, replier: replier))
                running.cancel()
                _ = try? await running.value
            }
        }
    }

    @Test(
        "On Mastodon: #nobot in a profile and an opt-out mention each put their author on the list, unanswered; the person's 停止 pauses, confirmed once; answers never name a third party"
    )
    func consentOnMastodon() async throws {
        try await Self.with(streaming: false) { world in
            let state = world.replier.state
            // The first start's round over (one read, where mentions stand): the mentions below come after it.
            try await world.clock.waitForSleepers()
            try #require(await world.notificationReads == 1)
            func mention(_ number: Int, by account: String, _ text: String) async {
                await world.server.add(statuses: [
                    .init(
                        id: String(900_000_000_000_000_000 + UInt64(number) * 1_000), accountID: account,
                        content: "<p>@mirror \(text)</p>", createdAt: await world.server.now(), mentionIDs: [ReplierStreamingTests.botID])
                ])
            }
            for number in 1...6 { await mention(number, by: ReplierStreamingTests.friendID, "元気？ \(number)") }
            await mention(7, by: "600", "こんにちは")
            // Each check is made once the round that read the mentions is over (the replier asleep again on the bot's
            // clock), not against a deadline in real time: under load a round may take long, never a different course.
            try await world.advanceAfterRound(by: 60)
            try await world.clock.waitForSleepers()
            #expect(try await OptOutList(state: state).all().map(\.accountID) == ["600"])
            await mention(8, by: ReplierStreamingTests.friendID, "もう、やめて！")
            await mention(9, by: "100", "停止")
            try await world.advanceAfterRound(by: 60)
            try await world.clock.waitForSleepers()
            #expect(try await OwnerControl(state: state).current()?.pause == .posting)
            #expect(try await OptOutList(state: state).all().count == 2)
            let replies = await world.server.posted().filter { $0.inReplyToID != nil }
            // Three answers to the friend within the hour (REPLY_LIMIT_PER_USER), none naming carol; none to the #nobot
            // account or to the opt-out; one confirmation to the person.
            let toFriend = replies.filter { $0.content.contains("@friend") }
            #expect(toFriend.count == 3, "\(replies.map(\.content))")
            #expect(!replies.contains { $0.content.contains("carol") })
            #expect(!replies.contains { $0.content.contains("@quiet") })
            let confirmations = replies.filter { $0.content.contains("投稿を停止しました") }
            #expect(confirmations.count == 1 && confirmations.first?.content.contains("@person") == true, "\(replies.map(\.content))")
        }
    }

    @Test(
        "A pushed mention is answered with no poll; when the stream drops, a poll catches up, polling goes on while it is down, and the stream comes back"
    )
    func streamDropsAndReturns() async throws {
        try await Self.with(streaming: true) { world in
            // The first round opens the stream, then reads once where mentions stand (the first start).
            try #require(
                try await world.eventually {
                    await world.notificationReads >= 1 && !world.log.lines(containing: "mentions: streaming from Mastodon").isEmpty
                })
            await world.mention(1, "元気？")
            let first = try await world.answers(count: 1)
            #expect(first.count == 1, "\(world.log.lines)")
            // One of the person's replies to the friend, addressed to them (Mastodon notifies only whom a status mentions).
            #expect(["それな", "わかる", "なるほど", "たしかに"].map { "<p>@friend \($0)</p>" }.contains(first.first?.content ?? ""), "\(first)")
            #expect(await world.notificationReads == 1, "answered from the stream, with no poll")

            // The stream drops (and the instance's streaming stays down): the next round polls at once to catch up.
            await world.server.setStreamingAvailable(false)
            await world.server.cutStreams()
            try await world.clock.waitForSleepers()
            #expect(world.log.lines(containing: "mentions: the stream dropped").count == 1)
            let readsAfterDrop = await world.notificationReads
            #expect(readsAfterDrop == 2)

            // While it is down, a mention is answered by the polling that took over; the stream fails to open, said once.
            await world.mention(2, "どこ？")
            world.clock.advance(by: 60)
            #expect(try await world.answers(count: 2).count == 2, "\(world.log.lines)")
            #expect(await world.notificationReads > readsAfterDrop)
            try await world.clock.waitForSleepers()
            #expect(world.log.lines(containing: "stream could not be opened").count == 1)

            // The instance streams again: at the next attempt the replier is back on the stream, and answers from it.
            await world.server.setStreamingAvailable(true)
            var rounds = 0
            while world.log.lines(containing: "mentions: streaming again").isEmpty, rounds < 20 {
                // Each round ends asleep (polling) or on the stream (streaming again): advance only a sleeping one.
                try #require(
                    try await world.eventually { world.clock.sleeperCount > 0 || !world.log.lines(containing: "mentions: streaming again").isEmpty })
                if world.clock.sleeperCount > 0 && world.log.lines(containing: "mentions: streaming again").isEmpty { world.clock.advance(by: 60) }
                rounds += 1
                _ = try await world.eventually { world.clock.sleeperCount > 0 || !world.log.lines(containing: "mentions: streaming again").isEmpty }
            }
            #expect(!world.log.lines(containing: "mentions: streaming again").isEmpty)
            // The round that streams again reads once to catch up, then waits on the stream.
            let readsOnStream = await world.notificationReads
            try #require(try await world.eventually { await world.server.streamsOpened() == 2 })
            await world.mention(3, "おーい")
            #expect(try await world.answers(count: 3).count == 3)
            #expect(await world.notificationReads == readsOnStream)
            #expect(await world.server.streamsOpened() == 2)
            // Each mention answered once.
            #expect(Set(await world.server.posted().compactMap(\.inReplyToID)).count == 3)
        }
    }

    @Test("An instance without streaming: mentions are polled every interval, and the stream is tried again with backoff")
    func noStreaming() async throws {
        try await Self.with(streaming: false) { world async throws in
            try await world.clock.waitForSleepers()
            #expect(world.log.lines(containing: "stream could not be opened").count == 1)
            await world.mention(1, "元気？")
            for _ in 0..<6 { try await world.advanceAfterRound(by: 60) }
            try await world.clock.waitForSleepers()
            #expect(try await world.answers(count: 1).count == 1)
            // Seven rounds, seven polls; the stream tried at 0, 60 and 180 s (next at 420): less often each time, logged once.
            #expect(await world.notificationReads == 7)
            #expect(await world.server.requestCounts()[StreamMentionNotifications.name] == 3)
            #expect(world.log.lines(containing: "stream could not be opened").count == 1)
        }
    }
}
