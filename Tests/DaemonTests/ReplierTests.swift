import BotClock
import BotConfiguration
import BotCore
import Classifier
import Consent
import FakeX
import Foundation
import Logging
import Picking
import Schedule
import Stores
import TestSupport
import Testing
import Training
import XAPI
import XNetwork

@testable import Daemon

/// The bot (200) among the human (100), a friend (300), a stranger (400) and another bot (500).
struct ReplierWorld {
    static let start = Date(timeIntervalSince1970: 1_717_945_200)
    static let bot = AccountCredentials(consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts")
    static var quiet: Logger { Logger(label: "replier", factory: { _ in SwiftLogNoOpLogHandler() }) }

    let server: FakeXServer
    let mentions: any MentionLog
    let state: any BotState
    let archive: any PostArchive
    let clock: ManualBotClock
    let client: XClient
    /// Every store the world's parts come from.
    let database: any StoreSet

    func replier(_ settings: Replier.Settings = .init(delay: 0...0), fallback: ReplyPicker.Fallback = .none) -> Replier {
        Replier(
            clock: clock, mentions: mentions, state: state, picker: ReplyPicker(archive: archive, fallback: fallback),
            network: XMirrorNetwork(client: client), botUserID: "200",
            settings: settings, owner: OwnerCommands(humanUserID: "100", control: OwnerControl(state: state), forgetter: nil, timeZone: .gmt),
            logger: Self.quiet, seed: 7)
    }

    func mention(_ id: Int, by author: String, _ text: String, replyingTo parent: String? = nil, secondsAgo: Double = 10) -> FakeXSeed.Tweet {
        FakeXSeed.Tweet(
            id: String(id), authorID: author, text: text, createdAt: Self.start.addingTimeInterval(-secondsAgo),
            inReplyToTweetID: parent, inReplyToUserID: parent == nil ? nil : "200")
    }

    static func with(_ backend: StoreBackends.ArchiveKind, _ body: (ReplierWorld) async throws -> Void) async throws {
        let seed = FakeXSeed(
            now: start,
            users: [
                .init(id: "100", username: "human"), .init(id: "200", username: "mirror_bot"), .init(id: "300", username: "friend"),
                .init(id: "400", username: "stranger"), .init(id: "500", username: "otherbot"),
            ],
            accounts: [.init(userID: "200", consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts")],
            tweets: [.init(id: "5000", authorID: "200", text: "スレッドの始まり", createdAt: start.addingTimeInterval(-7_200))])
        let server = FakeXServer(seed: seed, logger: quiet)
        try await server.withRunning { url in
            try await TestServers.withIsolatedDatabase(backend) { database async throws in
                let archive = database.archive(timeZone: TimeZone(identifier: "UTC")!, rowLimit: 1000)
                try await archive.insert([
                    ArchivedPost(postID: 1, text: "@friend それな", replyUserID: 300, createdAt: start.addingTimeInterval(-90_000)),
                    ArchivedPost(postID: 2, text: "@friend @human いいね", replyUserID: 300, createdAt: start.addingTimeInterval(-80_000)),
                    ArchivedPost(postID: 3, text: "@otherbot おはよう", replyUserID: 500, createdAt: start.addingTimeInterval(-70_000)),
                    ArchivedPost(postID: 5, text: "@otherbot こんにちは", replyUserID: 500, createdAt: start.addingTimeInterval(-69_000)),
                    ArchivedPost(postID: 6, text: "@otherbot こんばんは", replyUserID: 500, createdAt: start.addingTimeInterval(-68_000)),
                    ArchivedPost(postID: 7, text: "@otherbot またね", replyUserID: 500, createdAt: start.addingTimeInterval(-67_000)),
                    ArchivedPost(postID: 8, text: "@otherbot ほんとに？", replyUserID: 500, createdAt: start.addingTimeInterval(-66_000)),
                    ArchivedPost(postID: 9, text: "@otherbot なるほど", replyUserID: 500, createdAt: start.addingTimeInterval(-65_000)),
                    ArchivedPost(postID: 10, text: "@otherbot すごい", replyUserID: 500, createdAt: start.addingTimeInterval(-64_000)),
                    ArchivedPost(postID: 11, text: "@otherbot たしかに", replyUserID: 500, createdAt: start.addingTimeInterval(-63_000)),
                    ArchivedPost(postID: 4, text: "ひとりごと", createdAt: start.addingTimeInterval(-60_000)),
                ])
                let clock = ManualBotClock(now: start)
                let client = XClient(configuration: .init(baseURL: url, credentials: [.bot: bot]), clock: clock, logger: quiet)
                try await body(
                    ReplierWorld(
                        server: server, mentions: database.mentions, state: database.state, archive: archive, clock: clock, client: client,
                        database: database))
            }
        }
    }
}

@Suite("The replier", .serialized)
struct ReplierTests {
    @Test(
        "An opt-out mention is not answered and stops every answer to its author for good, across a restart; others are answered",
        arguments: StoreBackends.archives)
    func optOut(_ backend: StoreBackends.ArchiveKind) async throws {
        try await ReplierWorld.with(backend) { world in
            try await world.state.setValue("0", of: Replier.sinceIDKey)
            await world.server.add(tweets: [world.mention(1001, by: "300", "@mirror_bot もうやめて")])
            var generator = SplitMix64(seed: 11)
            try await world.replier().pollOnce(using: &generator)
            #expect(await world.server.posted().isEmpty)
            #expect(
                try await world.mentions.outcome(of: 1001)?.reason == "asked the bot to stop (\"やめて\"): on the opt-out list now, and not answered")
            #expect(try await OptOutList(state: world.state).all().map(\.accountID) == ["300"])

            // A restart: a new replier over the same stores.
            await world.server.add(tweets: [world.mention(1002, by: "300", "@mirror_bot 元気？"), world.mention(1003, by: "500", "@mirror_bot おはよう")])
            try await world.replier().pollOnce(using: &generator)
            #expect(await world.server.posted().map(\.inReplyToTweetID) == ["1003"])
            #expect(try await world.mentions.outcome(of: 1002)?.reason?.hasPrefix("the account opted out on") == true)
        }
    }

    @Test(
        "The person's forget <link> (忘れて <link>): the post leaves the archive, the bot's copy is deleted on X, one reply says so; a stranger's forget does nothing",
        arguments: StoreBackends.archives)
    func personsForget(_ backend: StoreBackends.ArchiveKind) async throws {
        try await ReplierWorld.with(backend) { world in
            try await TestServers.withStores(StoreBackends(archive: .memory, counts: .sqlite)) { scratch, counts in
                try await world.state.setValue("0", of: Replier.sinceIDKey)
                let network = XMirrorNetwork(client: world.client)
                // The bot copied the person's tweet 4 ("ひとりごと") as its own tweet.
                let copy = try #require(try await world.client.send(CreateTweet(text: "ひとりごと"), as: .bot).data?.id)
                try await world.archive.recordBotPost(sourcePostID: 4, botPostID: PostID(copy), postedAt: ReplierWorld.start)
                let forgetter = Forgetter(
                    archive: world.archive, examples: scratch.examples,
                    classifier: FavoriteClassifier(store: counts, tokenizer: VirtualDay.tokenizer, threshold: 3), network: network)
                let replier = Replier(
                    clock: world.clock, mentions: world.mentions, state: world.state, picker: ReplyPicker(archive: world.archive, fallback: .none),
                    network: network, botUserID: "200", settings: .init(delay: 0...0),
                    owner: OwnerCommands(humanUserID: "100", control: OwnerControl(state: world.state), forgetter: forgetter, timeZone: .gmt),
                    logger: ReplierWorld.quiet, seed: 7)
                await world.server.add(tweets: [world.mention(1020, by: "400", "@mirror_bot forget https://x.com/human/status/4")])
                var generator = SplitMix64(seed: 13)
                try await replier.pollOnce(using: &generator)
                #expect(try await world.archive.count() == 11)  // a stranger forgets nothing

                await world.server.add(tweets: [world.mention(1021, by: "100", "@mirror_bot 忘れて https://x.com/human/status/4")])
                try await replier.pollOnce(using: &generator)
                #expect(try await world.archive.count() == 10)
                #expect(await world.server.deletedByAPI() == [copy])
                let posted = await world.server.posted()
                let confirmation = try #require(posted.last)
                #expect(confirmation.inReplyToTweetID == "1021" && confirmation.text.contains("4 を忘れました。コピー1件を削除しました。"), "\(confirmation.text)")
            }
        }
    }

    @Test(
        "The person's commands, by account id: pause posting, pause everything (no answers meanwhile), resume, each confirmed once; the same words from anyone else pause nothing",
        arguments: StoreBackends.archives)
    func personsCommands(_ backend: StoreBackends.ArchiveKind) async throws {
        try await ReplierWorld.with(backend) { world in
            try await world.state.setValue("0", of: Replier.sinceIDKey)
            let control = OwnerControl(state: world.state)
            var generator = SplitMix64(seed: 12)
            // A stranger's "pause" and "停止": nothing is paused (the second opts the stranger out, and only them).
            await world.server.add(tweets: [world.mention(1010, by: "400", "@mirror_bot pause"), world.mention(1011, by: "400", "@mirror_bot 停止")])
            try await world.replier().pollOnce(using: &generator)
            #expect(try await control.current() == nil)
            #expect(try await OptOutList(state: world.state).all().map(\.accountID) == ["400"])

            await world.server.add(tweets: [world.mention(1012, by: "100", "@mirror_bot 停止")])
            try await world.replier().pollOnce(using: &generator)
            #expect(try await control.current()?.pause == .posting)
            await world.server.add(tweets: [
                world.mention(1013, by: "100", "@mirror_bot Pause all."),
                world.mention(1014, by: "300", "@mirror_bot 元気？"),
            ])
            try await world.replier().pollOnce(using: &generator)
            #expect(try await control.current()?.pause == .everything)
            #expect(try await world.mentions.outcome(of: 1014)?.reason?.hasPrefix("the person paused everything") == true)
            await world.server.add(tweets: [world.mention(1015, by: "100", "@mirror_bot 再開"), world.mention(1016, by: "300", "@mirror_bot 元気？")])
            try await world.replier().pollOnce(using: &generator)
            #expect(try await control.current() == nil)

            let posted = await world.server.posted()
            #expect(posted.map(\.inReplyToTweetID) == ["1012", "1013", "1015", "1016"])
            #expect(posted[0].text.contains("投稿を停止しました"))
            #expect(posted[1].text == "Everything paused at 15:00:00: posts, replies and likes. Say \"resume\" to resume.")
            #expect(posted[2].text.contains("再開しました"))
            #expect(try await world.mentions.outcome(of: 1012)?.reason == "the person's command: pause posting")
            // Read again from the start (a lost since_id): no command is obeyed or confirmed twice.
            try await world.state.setValue("0", of: Replier.sinceIDKey)
            try await world.replier().pollOnce(using: &generator)
            #expect(await world.server.posted().count == 4)
            #expect(try await control.current() == nil)
        }
    }

    @Test(
        "First start answers nothing older; then a friend gets the human's past reply to them, a stranger gets none",
        arguments: StoreBackends.archives)
    func answersLikeTheHuman(_ backend: StoreBackends.ArchiveKind) async throws {
        try await ReplierWorld.with(backend) { world in
            await world.server.add(tweets: [world.mention(1000, by: "300", "@mirror_bot 昔の話", secondsAgo: 3_600)])
            var generator = SplitMix64(seed: 1)
            try await world.replier().pollOnce(using: &generator)
            #expect(try await world.state.value(of: Replier.sinceIDKey) == "1000")
            #expect(await world.server.posted().isEmpty)

            await world.server.add(tweets: [
                world.mention(1001, by: "300", "@mirror_bot 元気？", replyingTo: "5000"),
                world.mention(1002, by: "400", "@mirror_bot はじめまして"),
            ])
            let replier = world.replier(.init(delay: 5...60))
            let poll = Task {
                var generator = SplitMix64(seed: 2)
                try await replier.pollOnce(using: &generator)
            }
            try await world.clock.waitForSleepers()
            let pause = try #require(world.clock.sleepRequests.last)
            #expect(pause >= .seconds(5) && pause <= .seconds(60))  // a person does not answer instantly
            world.clock.advanceToNextSleeper()
            try await poll.value

            let posted = await world.server.posted()
            #expect(posted.count == 1)
            #expect(["それな", "いいね"].contains(posted.first?.text ?? ""))  // leading @names removed
            #expect(posted.first?.inReplyToTweetID == "1001")
            #expect(try await world.mentions.outcome(of: 1002)?.reason == "no past reply of the human to this user")
            #expect(try await world.state.value(of: Replier.sinceIDKey) == "1002")
        }
    }

    @Test(
        "A mention whose author the network does not name, its id no number, is recorded skipped saying why, once; never dropped",
        arguments: StoreBackends.archives)
    func mentionWithoutAuthorIsRecorded(_ backend: StoreBackends.ArchiveKind) async throws {
        try await ReplierWorld.with(backend) { world in
            let replier = world.replier()
            let mention = NetworkPost(id: "alrbmention00001", text: "@mirror_bot こんにちは", createdAt: ReplierWorld.start)
            try await replier.handle(mention, seed: 1)
            let outcome = try #require(try await world.mentions.outcome(of: "alrbmention00001"))
            #expect(outcome.state == .skipped && outcome.reason == "X did not say who wrote it, so it cannot be answered", "\(outcome)")
            // Read again, it is not taken up again.
            try await replier.handle(mention, seed: 2)
            #expect(try await world.mentions.handledMentions().map(\.mentionPostID) == ["alrbmention00001"])
            #expect(await world.server.posted().isEmpty)
        }
    }

    @Test("With REPLY_FALLBACK=any a stranger gets a past reply to someone else", arguments: StoreBackends.archives)
    func fallbackAny(_ backend: StoreBackends.ArchiveKind) async throws {
        try await ReplierWorld.with(backend) { world in
            try await world.state.setValue("0", of: Replier.sinceIDKey)
            await world.server.add(tweets: [world.mention(1002, by: "400", "@mirror_bot はじめまして")])
            var generator = SplitMix64(seed: 3)
            try await world.replier(fallback: .any).pollOnce(using: &generator)
            #expect(await world.server.posted().count == 1)
            #expect(try await world.mentions.outcome(of: 1002)?.state == .replied)
        }
    }

    @Test(
        "A bot that answers everything is answered at most the per-user limit an hour, and a thread at most its limit",
        arguments: StoreBackends.archives)
    func botLoopsEnd(_ backend: StoreBackends.ArchiveKind) async throws {
        try await ReplierWorld.with(backend) { world in
            try await world.state.setValue("0", of: Replier.sinceIDKey)
            await world.server.add(
                tweets: (0..<10).map { world.mention(2000 + $0, by: "500", "@mirror_bot おはよう \($0)", secondsAgo: Double(100 - $0)) })
            var generator = SplitMix64(seed: 4)
            try await world.replier(.init(limitPerUserPerHour: 3, maxThreadReplies: 100, delay: 0...0)).pollOnce(using: &generator)
            #expect(await world.server.posted().count == 3)
            #expect(try await world.mentions.outcome(of: 2009)?.reason == "already answered @otherbot 3 times in the last hour")

            // An hour later the same bot in one thread: the thread limit stops it even with a generous per-user limit.
            world.clock.advance(by: 3_700)
            await world.server.advanceClock(by: 3_700)
            await world.server.add(
                tweets: (0..<8).map {
                    FakeXSeed.Tweet(
                        id: String(3000 + $0), authorID: "500", text: "@mirror_bot まだ話そう \($0)",
                        createdAt: ReplierWorld.start.addingTimeInterval(3_600 + Double($0)), inReplyToTweetID: "5000", inReplyToUserID: "200")
                })
            try await world.replier(.init(limitPerUserPerHour: 100, maxThreadReplies: 5, delay: 0...0)).pollOnce(using: &generator)
            #expect(await world.server.posted().count == 3 + 5)
            #expect(try await world.mentions.outcome(of: 3007)?.reason == "already answered 5 times in this conversation")
        }
    }

    @Test(
        "A mention is never answered twice: not after a restart, not with a lost since_id, not after a crash mid-answer (read back: made, recorded; not made, pending)",
        arguments: StoreBackends.archives)
    func neverTwice(_ backend: StoreBackends.ArchiveKind) async throws {
        try await ReplierWorld.with(backend) { world in
            try await world.state.setValue("0", of: Replier.sinceIDKey)
            await world.server.add(tweets: [world.mention(1001, by: "300", "@mirror_bot 元気？")])
            var generator = SplitMix64(seed: 5)
            try await world.replier().pollOnce(using: &generator)
            #expect(await world.server.posted().count == 1)
            try await world.state.setValue("0", of: Replier.sinceIDKey)  // as if since_id had been lost
            try await world.replier().pollOnce(using: &generator)
            #expect(await world.server.posted().count == 1)

            // A process killed after recording "replying" to 1005 (its answer made: X has it) and to 1006 (not made).
            await world.server.add(tweets: [world.mention(1005, by: "300", "@mirror_bot 今日は？"), world.mention(1006, by: "300", "@mirror_bot 明日は？")])
            for mentionID: PostID in [1005, 1006] {
                #expect(try await world.mentions.begin(mentionID: mentionID, authorID: 300, conversationID: nil, at: ReplierWorld.start))
            }
            let made = try #require(try await world.client.send(CreateTweet(text: "@friend それな", inReplyToTweetID: "1005"), as: .bot).data?.id)
            let reads = await world.server.requestCounts()["GET /2/users/:id/tweets"] ?? 0
            // The next start reads back: 1005 is recorded as replied with its id, 1006 is left pending.
            try await world.replier().recoverInterrupted()
            #expect((await world.server.requestCounts()["GET /2/users/:id/tweets"] ?? 0) - reads == 2)
            let first = try await world.mentions.outcome(of: 1005)
            #expect(first?.state == .replied && first?.replyPostID == PostID(made))
            #expect(try await world.mentions.outcome(of: 1006)?.state == .pending)
            // Read again (fresh), 1006 is answered once; 1005 is not answered again.
            try await world.state.setValue("1001", of: Replier.sinceIDKey)
            try await world.replier().pollOnce(using: &generator)
            let answers = await world.server.posted().filter { $0.inReplyToTweetID == "1005" || $0.inReplyToTweetID == "1006" }
            #expect(answers.map(\.inReplyToTweetID) == ["1005", "1006"])
            #expect(try await world.mentions.outcome(of: 1006)?.state == .replied)
        }
    }

    @Test(
        "A reply whose answer was lost is read back: made → recorded as replied with its id, sent once; not made → sent once more",
        arguments: StoreBackends.archives)
    func lostAnswer(_ backend: StoreBackends.ArchiveKind) async throws {
        for (fault, posts) in [(FakeXFault.Kind.closeMidResponse, 1), (.closeBeforeHandling, 2)] {
            try await ReplierWorld.with(backend) { world in
                try await world.state.setValue("0", of: Replier.sinceIDKey)
                await world.server.add(fault: FakeXFault(kind: fault, endpoint: "POST /2/tweets"))
                await world.server.add(tweets: [world.mention(1001, by: "300", "@mirror_bot 元気？")])
                var generator = SplitMix64(seed: 5)
                try await world.replier().pollOnce(using: &generator)
                let posted = await world.server.posted()
                #expect(posted.count == 1 && posted.first?.inReplyToTweetID == "1001", "\(fault)")
                let outcome = try await world.mentions.outcome(of: 1001)
                #expect(
                    outcome?.state == .replied && outcome?.replyPostID.map(String.init) == posted.first?.id,
                    "\(fault): \(String(describing: outcome))")
                let requests = await world.server.requestCounts()
                #expect(requests["POST /2/tweets"] == posts && requests["GET /2/users/:id/tweets"] == 1, "\(fault): \(requests)")
            }
        }
    }

    @Test(
        "A stop during the pause sends nothing and leaves the mention pending; the next start answers it within 10 minutes, later skips it saying so",
        arguments: StoreBackends.archives)
    func stopDuringPause(_ backend: StoreBackends.ArchiveKind) async throws {
        for (restartAfter, answered) in [(240.0, true), (660.0, false)] {
            try await ReplierWorld.with(backend) { world in
                try await world.state.setValue("0", of: Replier.sinceIDKey)
                await world.server.add(tweets: [world.mention(1001, by: "300", "@mirror_bot 元気？", secondsAgo: 0)])
                let replier = world.replier(.init(delay: 5...60))
                let poll = Task {
                    var generator = SplitMix64(seed: 2)
                    try await replier.pollOnce(using: &generator)
                }
                try await world.clock.waitForSleepers()
                poll.cancel()  // what the service group's graceful shutdown does
                await #expect(throws: CancellationError.self) { try await poll.value }
                #expect(await world.server.posted().isEmpty)
                #expect(try await world.mentions.outcome(of: 1001)?.state == .pending)
                #expect(try await world.state.value(of: Replier.sinceIDKey) == "0")

                world.clock.advance(by: restartAfter)
                var generator = SplitMix64(seed: 3)
                try await world.replier().pollOnce(using: &generator)
                let outcome = try await world.mentions.outcome(of: 1001)
                #expect(await world.server.posted().count == (answered ? 1 : 0))
                if answered {
                    #expect(outcome?.state == .replied)
                } else {
                    #expect(
                        outcome?.state == .skipped && outcome?.reason?.contains("stopped during its pause") == true, "\(String(describing: outcome))")
                }
                #expect(try await world.state.value(of: Replier.sinceIDKey) == "1001")
            }
        }
    }

    @Test(
        "On X, a past reply already sent within the day is never asked for again: the next answer is another, and with none left the mention is skipped saying why",
        arguments: StoreBackends.archives)
    func noRepeatWithinTheDay(_ backend: StoreBackends.ArchiveKind) async throws {
        try await ReplierWorld.with(backend) { world in
            try await world.state.setValue("0", of: Replier.sinceIDKey)
            // The friend has two past replies (それな, いいね); three mentions within the day.
            for (index, id) in [1001, 1002, 1003].enumerated() {
                let elapsed = world.clock.now().timeIntervalSince(ReplierWorld.start)
                await world.server.add(tweets: [world.mention(id, by: "300", "@mirror_bot \(index)", secondsAgo: 5 - elapsed)])
                var generator = SplitMix64(seed: UInt64(index))
                try await world.replier().pollOnce(using: &generator)
                world.clock.advance(by: 600)
                await world.server.advanceClock(by: 600)
            }
            let posted = await world.server.posted().map(\.text)
            #expect(Set(posted) == ["それな", "いいね"] && posted.count == 2, "\(posted)")
            // Never asked: two creates, none refused.
            #expect(await world.server.requestCounts()["POST /2/tweets"] == 2)
            let third = try await world.mentions.outcome(of: 1003)
            #expect(third?.state == .skipped && third?.reason?.contains("already sent within the day") == true, "\(String(describing: third))")
            // What the day holds: the two replies' sources; a day later, none (the window has passed).
            #expect(try await world.mentions.answerSources(since: world.clock.now().addingTimeInterval(-86_400)) == [1, 2])
            world.clock.advance(by: 86_400)
            #expect(try await world.mentions.answerSources(since: world.clock.now().addingTimeInterval(-86_400)).isEmpty)
        }
    }

    @Test("A duplicate refusal makes the replier answer with another past reply", arguments: StoreBackends.archives)
    func duplicateReplies(_ backend: StoreBackends.ArchiveKind) async throws {
        try await ReplierWorld.with(backend) { world in
            try await world.state.setValue("0", of: Replier.sinceIDKey)
            // The bot recently posted "それな": X refuses it again, so "いいね" is sent.
            await world.server.add(tweets: [
                FakeXSeed.Tweet(id: "4000", authorID: "200", text: "それな", createdAt: ReplierWorld.start.addingTimeInterval(-600))
            ])
            await world.server.add(tweets: [world.mention(1001, by: "300", "@mirror_bot 元気？")])
            for seed in 0..<4 as Range<UInt64> {
                var generator = SplitMix64(seed: seed)
                try await world.replier().pollOnce(using: &generator)
            }
            #expect(await world.server.posted().map(\.text) == ["いいね"])
        }
    }
}
