import BotClock
import BotConfiguration
import BotCore
import Classifier
import Consent
import FakeX
import Foundation
import Logging
import Picking
import SQLiteStores
import Schedule
import ServiceLifecycle
import Stores
import Synchronization
import TestSupport
import Testing
import Tokenizer
import Training
import XAPI
import XNetwork

@testable import Daemon

/// A day of the poster on the fake X server and the real Postgres, with the manual clock.
struct PosterWorld {
    static let tokyo = TimeZone(identifier: "Asia/Tokyo")!
    static let day = "2024-06-10"
    static let dayStart = Date(timeIntervalSince1970: 1_717_945_200)  // 2024-06-10 00:00 in Tokyo
    static let bot = AccountCredentials(consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts")
    static let human = AccountCredentials(consumerKey: "hk", consumerSecret: "hs", accessToken: "100-t", accessTokenSecret: "hts")
    static var quiet: Logger { Logger(label: "poster", factory: { _ in SwiftLogNoOpLogHandler() }) }

    let server: FakeXServer
    let archive: any PostArchive
    let plans: any PlanStore
    /// Every store the archive and the plans are in.
    let database: any StoreSet
    let clock: ManualBotClock
    let client: XClient
    /// The posters made here, whose posts under way `drive` waits for.
    let posters = Posters()

    /// The posters of a world.
    final class Posters: Sendable {
        private let activities = Mutex<[Poster.PostsUnderWay]>([])
        func add(_ poster: Poster) -> Poster {
            activities.withLock { $0.append(poster.activity) }
            return poster
        }
        /// Returns once no poster has a post under way.
        func settled() async { for activity in activities.withLock({ $0 }) { await activity.settled() } }
    }

    /// The human's history: on each of the 5 days before, 10 tweets 08:00–08:18 and 5 tweets 21:00–21:08 (Tokyo).
    static func history() -> [ArchivedPost] {
        var tweets: [ArchivedPost] = []
        for daysAgo in 1...5 {
            let base = dayStart.addingTimeInterval(Double(-daysAgo * 86_400))
            for index in 0..<10 {
                tweets.append(
                    ArchivedPost(
                        postID: PostID(daysAgo * 100 + index), text: "朝の投稿 \(daysAgo)-\(index)",
                        createdAt: base.addingTimeInterval(Double(8 * 3_600 + index * 120))))
            }
            for index in 0..<5 {
                tweets.append(
                    ArchivedPost(
                        postID: PostID(daysAgo * 100 + 50 + index), text: "夜の投稿 \(daysAgo)-\(index)",
                        createdAt: base.addingTimeInterval(Double(21 * 3_600 + index * 120))))
            }
        }
        return tweets
    }

    func poster(seed: UInt64, settings: Poster.Settings = Poster.Settings(), logger: Logger = PosterWorld.quiet) -> Poster {
        posters.add(
            Poster(
                clock: clock, plans: plans, planner: SchedulePlanner(archive: archive, maxPostsPerDay: 50),
                picker: PostPicker(archive: archive, repostAfterDays: 30, allowsMentions: false, logger: Self.quiet),
                network: XMirrorNetwork(client: client), settings: settings, control: OwnerControl(state: database.state),
                logger: logger, seed: seed))
    }

    /// Waits until the posters sleep on the clock with no post under way (each slot's post runs beside the poster's loop).
    func quiet() async throws {
        try await clock.waitForSleepers()
        await posters.settled()
        try await clock.waitForSleepers()
    }

    /// Advances the clock from sleep to sleep until the poster sleeps past `until`; returns the deadlines passed
    /// and the number of posts on the fake after each.
    func drive(until end: Date) async throws -> [(deadline: Date, posts: Int)] {
        var steps: [(Date, Int)] = []
        while true {
            try await quiet()
            guard let next = clock.nextSleeperDeadline, next < end else { return steps }
            clock.advance(to: next)
            try await quiet()
            steps.append((next, await server.posted().count))
        }
    }

    static func with(_ backend: StoreBackends.ArchiveKind, _ body: (PosterWorld) async throws -> Void) async throws {
        let seed = FakeXSeed(
            now: dayStart, users: [.init(id: "100", username: "human"), .init(id: "200", username: "mirror_bot")],
            accounts: [
                .init(userID: "200", consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts"),
                .init(userID: "100", consumerKey: "hk", consumerSecret: "hs", accessToken: "100-t", accessTokenSecret: "hts"),
            ])
        let server = FakeXServer(seed: seed, logger: quiet)
        try await server.withRunning { url in
            try await TestServers.withIsolatedDatabase(backend) { database async throws in
                let archive = database.archive(timeZone: tokyo, rowLimit: 10_000)
                try await archive.prepare()
                try await archive.insert(history())
                let clock = ManualBotClock(now: dayStart.addingTimeInterval(30))
                let client = XClient(configuration: .init(baseURL: url, credentials: [.bot: bot, .human: human]), clock: clock, logger: quiet)
                try await body(PosterWorld(server: server, archive: archive, plans: database.plans, database: database, clock: clock, client: client))
            }
        }
    }
}

@Suite("The poster", .serialized)
struct PosterTests {
    @Test("A simulated day posts every stored slot at its minute, each from the human's tweets near that minute", arguments: StoreBackends.archives)
    func simulatedDay(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            let poster = world.poster(seed: 11)
            let task = Task { try await poster.run() }
            let steps = try await world.drive(until: PosterWorld.dayStart.addingTimeInterval(86_400))
            task.cancel()
            _ = try? await task.value

            let slots = try #require(try await world.plans.slots(of: PosterWorld.day))
            #expect(slots.count == 15)  // every past day had 15 non-reply tweets
            #expect(slots.allSatisfy { $0.state == .posted })
            // Each slot was posted when the clock reached its minute: after the k-th slot time, k posts exist.
            let slotTimes = slots.map { LocalTime.date(of: $0.minute, on: PosterWorld.day, in: PosterWorld.tokyo)! }
            #expect(steps.map(\.deadline) == slotTimes)
            #expect(steps.map(\.posts) == Array(1...15))
            #expect(zip(slots, slotTimes).allSatisfy { slot, time in slot.postedAt == time })  // stored on the bot's clock
            // Each post is a tweet of the human written within ±30 minutes of its slot's minute of the day.
            let history = Dictionary(uniqueKeysWithValues: PosterWorld.history().map { ($0.postID, $0) })
            let posted = await world.server.posted()
            for slot in slots {
                let sourceID = try #require(slot.sourcePostID)
                let source = try #require(history[sourceID])
                let minute = PostPicker.minuteOfDay(source.createdAt, in: PosterWorld.tokyo)
                #expect(abs(minute - slot.minute) <= 30, "slot \(slot.minute) posted a tweet from minute \(minute)")
                #expect(posted.contains { $0.id == slot.botPostID?.text && $0.text == source.text })
            }
            #expect(Set(slots.compactMap(\.sourcePostID)).count == 15)  // no tweet posted twice
        }
    }

    @Test("A restart the same day reuses the stored plan and posts no slot twice", arguments: StoreBackends.archives)
    func restartReusesPlan(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            let first = Task { try await world.poster(seed: 1).run() }
            let noon = PosterWorld.dayStart.addingTimeInterval(12 * 3_600)
            _ = try await world.drive(until: noon)  // the morning slots
            first.cancel()
            _ = try? await first.value
            let planBefore = try #require(try await world.plans.slots(of: PosterWorld.day))
            let morning = planBefore.filter { $0.state == .posted }.count
            #expect(morning > 0 && morning < planBefore.count)
            let drawnAt = try #require(try await world.plans.drawnAt(of: PosterWorld.day))
            #expect(drawnAt < noon)
            #expect(try await world.plans.drawnAt(of: "2024-06-11") == nil)

            // A different seed would draw a different plan: the stored one must be used.
            let second = Task { try await world.poster(seed: 999).run() }
            _ = try await world.drive(until: PosterWorld.dayStart.addingTimeInterval(86_400))
            second.cancel()
            _ = try? await second.value
            let planAfter = try #require(try await world.plans.slots(of: PosterWorld.day))
            #expect(planAfter.map(\.minute) == planBefore.map(\.minute))
            #expect(try await world.plans.drawnAt(of: PosterWorld.day) == drawnAt)  // not drawn again
            #expect(planAfter.allSatisfy { $0.state == .posted })
            let posted = await world.server.posted()
            #expect(posted.count == planBefore.count)
            #expect(Set(posted.map(\.text)).count == posted.count)
        }
    }

    @Test(
        "While the person has paused posting every slot is skipped at its minute saying so; after resume the slots are posted again",
        arguments: StoreBackends.archives)
    func pausedByThePerson(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            let control = OwnerControl(state: world.database.state)
            let task = Task { try await world.poster(seed: 3).run() }
            let noon = PosterWorld.dayStart.addingTimeInterval(12 * 3_600)
            _ = try await world.drive(until: noon)
            let morning = await world.server.posted().count
            #expect(morning > 0)
            world.clock.advance(to: noon)
            try await control.pause(.posting, at: noon)
            _ = try await world.drive(until: PosterWorld.dayStart.addingTimeInterval(86_400))
            #expect(await world.server.posted().count == morning)
            let slots = try #require(try await world.plans.slots(of: PosterWorld.day))
            let evening = slots.filter { $0.minute >= 12 * 60 }
            #expect(!evening.isEmpty)
            for slot in evening {
                #expect(slot.state == .skipped)
                #expect(slot.reason?.hasPrefix("paused by the person (posting since 2024-06-10 12:00;") == true, "\(slot.reason ?? "")")
            }
            try await control.resume()
            _ = try await world.drive(until: PosterWorld.dayStart.addingTimeInterval(86_400 + 12 * 3_600))
            let nextMorning = try #require(try await world.plans.slots(of: "2024-06-11")).filter { $0.minute < 12 * 60 }
            #expect(!nextMorning.isEmpty && nextMorning.allSatisfy { $0.state == .posted })
            task.cancel()
            _ = try? await task.value
        }
    }

    @Test(
        "A slot missed while the bot was down is skipped, not posted late; one left mid-post is read back, recorded as what X shows, never re-posted",
        arguments: StoreBackends.archives)
    func missedAndInterruptedSlots(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            _ = try await world.plans.storePlan(
                day: PosterWorld.day, timeZone: "Asia/Tokyo", minutes: [480, 485, 486, 487, 1260],
                drawnAt: PosterWorld.dayStart)
            // A process died after claiming 08:05 (before picking), 08:06 (sending tweet 101, which X made) and 08:07
            // (sending tweet 102, which X did not make).
            for minute in [485, 486, 487] { #expect(try await world.plans.claim(day: PosterWorld.day, minute: minute)) }
            try await world.plans.noteSending(day: PosterWorld.day, minute: 486, sourcePostID: 101)
            try await world.plans.noteSending(day: PosterWorld.day, minute: 487, sourcePostID: 102)
            let made = try #require(try await world.client.send(CreateTweet(text: "朝の投稿 1-1"), as: .bot).data?.id)
            let reads = await world.server.requestCounts()[GetUserTweets.name] ?? 0
            world.clock.advance(to: PosterWorld.dayStart.addingTimeInterval(8 * 3_600 + 11 * 60))  // 08:11: 08:00 is 11 min late
            let task = Task { try await world.poster(seed: 3).run() }
            _ = try await world.drive(until: PosterWorld.dayStart.addingTimeInterval(86_400))
            task.cancel()
            _ = try? await task.value
            let slots = try #require(try await world.plans.slots(of: PosterWorld.day))
            #expect(slots.map(\.state) == [.skipped, .skipped, .posted, .skipped, .posted])
            #expect(slots[0].reason?.hasPrefix("missed: the bot was not running at 08:00") == true)
            #expect(slots[1].reason?.hasPrefix("interrupted before sending") == true)
            #expect(slots[2].botPostID == PostID(made) && slots[2].sourcePostID == 101)
            #expect(slots[2].reason?.contains("X shows it was made") == true)
            #expect(slots[3].reason?.contains("X shows it was not made") == true)
            // One read of the bot's posts per slot that was sending; the made one is not sent again; one post at 21:00.
            #expect((await world.server.requestCounts()[GetUserTweets.name] ?? 0) - reads == 2)
            #expect(await world.server.posted().count == 2)
            #expect(Set(await world.server.posted().map(\.text)).count == 2)
        }
    }

    @Test(
        "A slot left mid-post whose read-back X refuses for a while (a usage cap) is read back once the refusal is due its check, and recorded as made: never left on the network unrecorded, never posted again",
        arguments: StoreBackends.archives)
    func interruptedReadBackWaitsOutARefusal(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            _ = try await world.plans.storePlan(day: PosterWorld.day, timeZone: "Asia/Tokyo", minutes: [486], drawnAt: PosterWorld.dayStart)
            #expect(try await world.plans.claim(day: PosterWorld.day, minute: 486))
            try await world.plans.noteSending(day: PosterWorld.day, minute: 486, sourcePostID: 101)
            let made = try #require(try await world.client.send(CreateTweet(text: "朝の投稿 1-1"), as: .bot).data?.id)
            await world.server.add(fault: FakeXFault(kind: .usageCapped, count: 1, endpoint: GetUserTweets.name))
            let restartedAt = PosterWorld.dayStart.addingTimeInterval(8 * 3_600 + 7 * 60)
            world.clock.advance(to: restartedAt)
            let task = Task { try await world.poster(seed: 3).run() }
            _ = try await world.drive(until: PosterWorld.dayStart.addingTimeInterval(12 * 3_600))
            task.cancel()
            _ = try? await task.value
            let slot = try #require(try await world.plans.slots(of: PosterWorld.day)?.first)
            #expect(slot.state == .posted && slot.botPostID == PostID(made), "\(slot)")
            #expect(slot.reason?.contains("X shows it was made") == true, "\(slot.reason ?? "")")
            let postedAt = try #require(slot.postedAt)
            #expect(postedAt < restartedAt, "recorded at its minute")
            #expect(await world.server.posted().count == 1, "not posted again")
            #expect(await world.server.requestCounts()[GetUserTweets.name] == 2, "read back once refused, once after its check")
        }
    }

    @Test(
        "A slot due while an interrupted one is read back does not copy the tweet that one was sending (after a crash or a fleet's takeover)",
        arguments: StoreBackends.archives)
    func interruptedSourceNotPickedAgain(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            // Every morning tweet was copied lately but 08:10's of three days ago: the only one near 08:10 left to pick.
            let morning = PosterWorld.history().filter { $0.text.hasPrefix("朝") }
            let sending: PostID = 305
            for tweet in morning where tweet.postID != sending {
                try await world.archive.recordBotPost(
                    sourcePostID: tweet.postID, botPostID: nil, postedAt: PosterWorld.dayStart.addingTimeInterval(-3_600))
            }
            _ = try await world.plans.storePlan(day: PosterWorld.day, timeZone: "Asia/Tokyo", minutes: [489, 490], drawnAt: PosterWorld.dayStart)
            // A process died sending tweet 305 for 08:09, which X made; 08:10 comes due as the next process starts.
            #expect(try await world.plans.claim(day: PosterWorld.day, minute: 489))
            try await world.plans.noteSending(day: PosterWorld.day, minute: 489, sourcePostID: sending)
            let made = try #require(try await world.client.send(CreateTweet(text: "朝の投稿 3-5"), as: .bot).data?.id)
            // Reading back what 08:09 made takes a while (X answers 503 once; the retry waits on the bot's clock).
            await world.server.add(fault: FakeXFault(kind: .serviceUnavailable, count: 1, endpoint: GetUserTweets.name))
            world.clock.advance(to: PosterWorld.dayStart.addingTimeInterval(8 * 3_600 + 10 * 60))
            let creates = await world.server.requestCounts()[CreateTweet.name] ?? 0
            let task = Task { try await world.poster(seed: 3).run() }
            _ = try await world.drive(until: PosterWorld.dayStart.addingTimeInterval(12 * 3_600))
            task.cancel()
            _ = try? await task.value
            let slots = try #require(try await world.plans.slots(of: PosterWorld.day))
            #expect(slots[0].state == .posted && slots[0].sourcePostID == sending && slots[0].botPostID == PostID(made))
            #expect(slots[1].sourcePostID != sending, "08:10 copied the tweet 08:09 was sending")
            let texts = await world.server.posted().map(\.text)
            #expect(Set(texts).count == texts.count, "posted twice: \(texts)")
            // One post sent, 08:10's: never 08:09's tweet again (X refuses a duplicate; Mastodon, Misskey and Bluesky do not).
            #expect((await world.server.requestCounts()[CreateTweet.name] ?? 0) - creates == 1)
        }
    }

    @Test("A duplicate-content refusal makes the poster pick another tweet; only duplicates skip the slot", arguments: StoreBackends.archives)
    func duplicates(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            // The bot already posted every evening tweet but one; X refuses those as duplicates.
            let evening = PosterWorld.history().filter { $0.text.hasPrefix("夜") }
            let alreadyPosted = evening.dropLast().enumerated().map { index, tweet in
                FakeXSeed.Tweet(
                    id: String(900_000 + index), authorID: "200", text: tweet.text, createdAt: PosterWorld.dayStart.addingTimeInterval(-60))
            }
            await world.server.add(tweets: Array(alreadyPosted))
            _ = try await world.plans.storePlan(day: PosterWorld.day, timeZone: "Asia/Tokyo", minutes: [1262, 1264], drawnAt: PosterWorld.dayStart)
            let settings = Poster.Settings(picksPerSlot: 30)
            let task = Task { try await world.poster(seed: 5, settings: settings).run() }
            _ = try await world.drive(until: PosterWorld.dayStart.addingTimeInterval(86_400))
            task.cancel()
            _ = try? await task.value
            let slots = try #require(try await world.plans.slots(of: PosterWorld.day))
            #expect(slots[0].state == .posted)
            #expect(slots[0].sourcePostID == evening.last?.postID)  // the only evening tweet X accepts
            // The second slot finds only duplicates near 21:04 and nothing else in ±30 min... the window widens to
            // the morning tweets, which X accepts.
            #expect(slots[1].state == .posted)
            #expect(await world.server.posted().count == 2)
        }
    }

    @Test("The poster stops on its service group's graceful shutdown while waiting for its next slot", arguments: StoreBackends.archives)
    func gracefulShutdown(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            let group = ServiceGroup(configuration: .init(services: [world.poster(seed: 2)], logger: PosterWorld.quiet))
            let running = Task { try await group.run() }
            try await world.clock.waitForSleepers()
            await group.triggerGracefulShutdown()
            try await running.value
            #expect(try await world.plans.slots(of: PosterWorld.day)?.allSatisfy { $0.state == .planned } == true)
        }
    }

    @Test("Slot times follow the local clock, DST days included")
    func slotTimes() {
        let newYork = TimeZone(identifier: "America/New_York")!
        #expect(LocalTime.date(of: 90, on: "2024-03-10", in: newYork) == Date(timeIntervalSince1970: 1_710_052_200))  // 01:30 EST
        #expect(LocalTime.date(of: 210, on: "2024-03-10", in: newYork) == Date(timeIntervalSince1970: 1_710_055_800))  // 03:30 EDT
        #expect(
            Poster.startOfNextDay(after: Date(timeIntervalSince1970: 1_710_052_200), in: newYork)
                == Date(timeIntervalSince1970: 1_710_129_600))  // 2024-03-11 00:00 EDT, a 23-hour day later
    }
}

/// The wall clock jumping (NTP stepping it, a laptop resuming): forward past the grace skips with the reason, back
/// posts nothing twice.
@Suite("The poster through clock jumps", .serialized)
struct PosterClockJumpTests {
    @Test(
        "A jump forward past MISSED_SLOT_GRACE skips the slots it jumped over, saying so; a jump back posts nothing twice",
        arguments: StoreBackends.archives)
    func jumps(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            let log = LogRecorder()
            let poster = world.poster(seed: 3, settings: .init(missedSlotGrace: 600), logger: log.logger())
            let task = Task { try await poster.run() }
            defer { task.cancel() }
            // The morning's first slots come as they should.
            try await world.quiet()
            let plan = try #require(try await world.plans.slots(of: PosterWorld.day))
            let morning = plan.filter { $0.minute < 12 * 60 }
            try #require(morning.count >= 3)
            _ = world.clock.advanceToNextSleeper()
            try await world.quiet()
            #expect(await world.server.posted().count == 1)
            // Then the clock jumps forward to noon: the morning slots left are skipped with the jump's reason.
            world.clock.jump(to: PosterWorld.dayStart.addingTimeInterval(12 * 3_600 + 60))
            try await world.quiet()
            let afterJump = try #require(try await world.plans.slots(of: PosterWorld.day))
            let jumped = afterJump.filter { $0.minute < 12 * 60 && $0.state == .skipped }
            #expect(jumped.count == morning.count - 1, "\(afterJump.map { ($0.minute, $0.state) })")
            #expect(jumped.allSatisfy { $0.reason?.contains("the clock jumped forward") == true })
            #expect(log.lines(containing: "the clock jumped forward").count == morning.count - 1)
            let postsBefore = await world.server.posted().count

            // And back to the morning: nothing posted or skipped before is posted again.
            world.clock.jump(to: PosterWorld.dayStart.addingTimeInterval(7 * 3_600))
            _ = try await world.drive(until: PosterWorld.dayStart.addingTimeInterval(86_400))
            let slots = try #require(try await world.plans.slots(of: PosterWorld.day))
            let posted = await world.server.posted()
            #expect(posted.count == slots.filter { $0.state == .posted }.count)
            #expect(posted.count >= postsBefore)
            #expect(Set(posted.map(\.text)).count == posted.count)
            #expect(!slots.contains { $0.state == .planned || $0.state == .posting })
        }
    }
}

/// A post whose answer was lost is read back, not guessed: made → recorded with its id; not made → sent once more.
@Suite("The poster when a post's answer is lost", .serialized)
struct PosterLostAnswerTests {
    /// Posts the 08:00 slot with `fault` on `POST /2/tweets`; returns the slot as stored.
    static func post(with faults: [FakeXFault], _ world: PosterWorld) async throws -> PlanSlot? {
        for fault in faults { await world.server.add(fault: fault) }
        _ = try await world.plans.storePlan(
            day: PosterWorld.day, timeZone: PosterWorld.tokyo.identifier, minutes: [480], drawnAt: PosterWorld.dayStart)
        world.clock.advance(to: PosterWorld.dayStart.addingTimeInterval(8 * 3_600))
        try await world.poster(seed: 5).post(day: PosterWorld.day, minute: 480, seed: 5)
        return try await world.plans.slots(of: PosterWorld.day)?.first
    }

    @Test("Made, answer lost: the bot's newest posts show it; recorded as posted with its id, not sent again", arguments: StoreBackends.archives)
    func madeAndLost(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            let slot = try await Self.post(with: [FakeXFault(kind: .closeMidResponse, endpoint: "POST /2/tweets")], world)
            let posted = await world.server.posted()
            #expect(posted.count == 1)
            #expect(slot?.state == .posted && slot?.botPostID.map(String.init) == posted.first?.id, "\(String(describing: slot))")
            let requests = await world.server.requestCounts()
            #expect(requests["POST /2/tweets"] == 1 && requests["GET /2/users/:id/tweets"] == 1)
        }
    }

    @Test(
        "Not made, answer lost: not among the bot's posts, so sent once more and recorded; lost twice and not made, skipped saying so",
        arguments: StoreBackends.archives)
    func notMade(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            let slot = try await Self.post(with: [FakeXFault(kind: .closeBeforeHandling, endpoint: "POST /2/tweets")], world)
            let posted = await world.server.posted()
            #expect(posted.count == 1)
            #expect(slot?.state == .posted && slot?.botPostID.map(String.init) == posted.first?.id)
            #expect(await world.server.requestCounts()["POST /2/tweets"] == 2)
        }
        try await PosterWorld.with(backend) { world in
            let slot = try await Self.post(with: [FakeXFault(kind: .closeBeforeHandling, count: 2, endpoint: "POST /2/tweets")], world)
            #expect(await world.server.posted().isEmpty)
            #expect(slot?.state == .skipped && slot?.reason?.contains("the answer was lost twice") == true, "\(String(describing: slot))")
            let requests = await world.server.requestCounts()
            #expect(requests["POST /2/tweets"] == 2 && requests["GET /2/users/:id/tweets"] == 2)
        }
    }
}

/// The person's deletions honoured before posting: the original is looked up, a deleted one leaves the archive.
@Suite("The poster and the person's deletions", .serialized)
struct PosterDeletedOriginalTests {
    @Test(
        "With CHECK_ORIGINALS each original is looked up five minutes before its slot, and the post still goes out at the minute",
        arguments: StoreBackends.archives)
    func lookedUpAhead(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            // Every morning tweet but 102 is still on X; the evening ones are too.
            await world.server.add(
                tweets: PosterWorld.history().filter { $0.postID != 102 }.map {
                    FakeXSeed.Tweet(id: $0.postID.text, authorID: "100", text: $0.text, createdAt: $0.createdAt)
                })
            let poster = world.poster(seed: 11, settings: .init(checksOriginals: true))
            let task = Task { try await poster.run() }
            // At each deadline where a post went out: how many lookups were done before the clock reached it.
            var postings: [(lookupsBefore: Int, postsAfter: Int)] = []
            let end = PosterWorld.dayStart.addingTimeInterval(86_400)
            while true {
                try await world.quiet()
                guard let next = world.clock.nextSleeperDeadline, next < end else { break }
                let lookupsBefore = await world.server.requestCounts()["GET /2/tweets/:id"] ?? 0
                let postsBefore = await world.server.posted().count
                world.clock.advance(to: next)
                try await world.quiet()
                let postsAfter = await world.server.posted().count
                if postsAfter > postsBefore { postings.append((lookupsBefore, postsAfter)) }
            }
            task.cancel()
            _ = try? await task.value

            let slots = try #require(try await world.plans.slots(of: PosterWorld.day))
            #expect(slots.count == 15 && slots.allSatisfy { $0.state == .posted })
            #expect(
                zip(slots, slots.map { LocalTime.date(of: $0.minute, on: PosterWorld.day, in: PosterWorld.tokyo)! })
                    .allSatisfy { slot, time in slot.postedAt == time })
            // Each post's original was looked up before the clock reached its minute (five minutes ahead).
            #expect(postings.count == 15 && postings.allSatisfy { $0.lookupsBefore >= $0.postsAfter }, "\(postings)")
            #expect(!slots.contains { $0.sourcePostID == 102 })
            let lookups = await world.server.requestCounts()["GET /2/tweets/:id"] ?? 0
            #expect(lookups >= 15 && lookups <= 16, "\(lookups) lookups")  // one per post, and 102 if it was picked
        }
    }

    @Test(
        "A tweet the person deleted is never posted: it leaves the archive and another is picked; one lookup per try",
        arguments: StoreBackends.archives)
    func deletedOriginals(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            // On X only the morning tweet 301 of the archive's 50 still exists: the person deleted the others.
            let kept = PosterWorld.history().first { $0.postID == 301 }!
            await world.server.add(tweets: [FakeXSeed.Tweet(id: "301", authorID: "100", text: kept.text, createdAt: kept.createdAt)])
            _ = try await world.plans.storePlan(
                day: PosterWorld.day, timeZone: PosterWorld.tokyo.identifier, minutes: [480], drawnAt: PosterWorld.dayStart)
            // Five minutes ahead the pick is made and its original looked up; at the minute it is posted.
            let at = PosterWorld.dayStart.addingTimeInterval(8 * 3_600)
            world.clock.advance(to: at.addingTimeInterval(-300))
            let poster = world.poster(seed: 3, settings: .init(picksPerSlot: 60, checksOriginals: true))
            let prepared = try #require(try await poster.prepare(at: at, clockTime: "08:00", seed: 3))
            #expect(prepared.pick.post.postID == 301 && prepared.whyUnchecked == nil)
            world.clock.advance(to: at)
            try await poster.post(day: PosterWorld.day, minute: 480, seed: 3, prepared: prepared)
            #expect(try await world.plans.slots(of: PosterWorld.day)?.first?.postedUnchecked == false)

            #expect(await world.server.posted().map(\.text) == [kept.text])
            let lookups = await world.server.requestCounts()["GET /2/tweets/:id"] ?? 0
            let remaining = Set(try await world.archive.newest(limit: 1_000).map(\.postID))
            let morning = Set(PosterWorld.history().map(\.postID).filter { Int64($0.text)! % 100 < 50 })
            // Every lookup but the last found a deleted tweet, which left the archive; the rest stay.
            #expect(lookups >= 1 && morning.subtracting(remaining).count == lookups - 1, "\(lookups) lookups")
            #expect(remaining.contains(301) && remaining.count == PosterWorld.history().count - (lookups - 1))
        }
    }
}

/// The person's deletions noticed without being asked: the daily look-up of the originals of recent copies.
@Suite("The deletion watcher", .serialized)
struct DeletionWatcherTests {
    @Test(
        "A copied tweet the person deleted is forgotten and the bot's copy deleted; the rest stays; older copies are not looked up",
        arguments: StoreBackends.archives)
    func noticesDeletions(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            let history = PosterWorld.history()
            let kept = history.first { $0.postID == 101 }!
            let deleted = history.first { $0.postID == 102 }!
            let old = history.first { $0.postID == 103 }!
            // On X: the person's 101 (102 was deleted by them, 103 is long copied), and the bot's copies of each.
            await world.server.add(tweets: [
                Self.original(kept), Self.original(old), Self.copy(9101, of: kept, at: -3_600), Self.copy(9102, of: deleted, at: -3_000),
                Self.copy(9103, of: old, at: -20 * 86_400),
            ])
            try await Self.posted(
                world,
                [
                    ("2024-06-09", 1_380, 101, 9101, -3_600, false), ("2024-06-09", 1_390, 102, 9102, -3_000, false),
                    ("2024-05-20", 600, 103, 9103, -20 * 86_400, false),
                ])
            let watcher = try Self.watcher(world, client: world.client)

            #expect(try await watcher.checkOnce() == [102])
            #expect(await world.server.deletedByAPI() == ["9102"])
            let remaining = Set(try await world.archive.newest(limit: 1_000).map(\.postID))
            #expect(!remaining.contains(102) && remaining.contains(101) && remaining.contains(103))
            #expect(await world.server.requestCounts()["GET /2/tweets/:id"] == 2)  // 101 and 102; 103 was copied 20 days ago

            // The next day: only 101 is looked up again; nothing more is deleted.
            world.clock.advance(by: 86_400)
            #expect(try await watcher.checkOnce().isEmpty)
            #expect(await world.server.requestCounts()["GET /2/tweets/:id"] == 3)
            #expect(await world.server.deletedByAPI() == ["9102"])
        }
    }
}

extension DeletionWatcherTests {
    /// The person's `tweet` on X.
    static func original(_ tweet: ArchivedPost) -> FakeXSeed.Tweet {
        FakeXSeed.Tweet(id: tweet.postID.text, authorID: "100", text: tweet.text, createdAt: tweet.createdAt)
    }

    /// The bot's copy `id` of `tweet` on X, made `at` seconds from the day's start.
    static func copy(_ id: Int64, of tweet: ArchivedPost, at offset: TimeInterval) -> FakeXSeed.Tweet {
        FakeXSeed.Tweet(id: String(id), authorID: "200", text: tweet.text, createdAt: PosterWorld.dayStart.addingTimeInterval(offset))
    }

    /// The slots of `posts` stored as posted (each day's plan made of its posts' minutes): the copy of `source` made
    /// `at` seconds from the day's start, checked or not.
    static func posted(_ world: PosterWorld, _ posts: [(day: String, minute: Int, source: PostID, copy: PostID, at: TimeInterval, unchecked: Bool)])
        async throws
    {
        for (day, posts) in Dictionary(grouping: posts, by: \.day) {
            _ = try await world.plans.storePlan(
                day: day, timeZone: PosterWorld.tokyo.identifier, minutes: posts.map(\.minute).sorted(),
                drawnAt: PosterWorld.dayStart.addingTimeInterval(posts.map(\.at).min()! - 3_600))
        }
        for post in posts {
            #expect(try await world.plans.claim(day: post.day, minute: post.minute))
            try await world.plans.markPosted(
                day: post.day, minute: post.minute, sourcePostID: post.source, botPostID: post.copy,
                postedAt: PosterWorld.dayStart.addingTimeInterval(post.at), reason: "test", unchecked: post.unchecked)
        }
    }

    /// A deletion watcher over the last 7 days of `world`, asking X through `client`, its forgetter on word counts of its own.
    static func watcher(_ world: PosterWorld, client: XClient) throws -> DeletionWatcher {
        let store = try SQLiteWordCounts(path: FileManager.default.temporaryDirectory.appending(path: "watcher-\(UUID().uuidString).sqlite").path)
        let classifier = FavoriteClassifier(store: store, tokenizer: try PostTokenizer(), threshold: 3)
        let forgetter = Forgetter(
            archive: world.archive, examples: world.database.examples, classifier: classifier, network: XMirrorNetwork(client: client))
        return DeletionWatcher(
            clock: world.clock, archive: world.archive, plans: world.plans, forgetter: forgetter, days: 7, logger: PosterWorld.quiet)
    }

    @Test(
        "Posts sent unchecked, on every store: an original found deleted has the bot's copy deleted, one found is noted checked, and a look-up that fails skips its post (tried again next round), not the round",
        arguments: StoreBackends.archives)
    func uncheckedPostsChecked(_ backend: StoreBackends.ArchiveKind) async throws {
        try await PosterWorld.with(backend) { world in
            let history = PosterWorld.history()
            let failing = history.first { $0.postID == 101 }!
            let deleted = history.first { $0.postID == 102 }!
            let found = history.first { $0.postID == 103 }!
            // On X: the person's 101 and 103 (102 was deleted by them), and the bot's three copies.
            await world.server.add(tweets: [
                Self.original(failing), Self.original(found), Self.copy(9101, of: failing, at: -3_600),
                Self.copy(9102, of: deleted, at: -3_000), Self.copy(9103, of: found, at: -2_400),
            ])
            let day = "2024-06-09"
            // Three posted unchecked, oldest first: 101 (its look-up will fail once), 102 (deleted), 103 (there); one checked.
            try await Self.posted(
                world,
                [
                    (day, 1_380, 101, 9101, -3_600, true), (day, 1_390, 102, 9102, -3_000, true), (day, 1_400, 103, 9103, -2_400, true),
                    (day, 1_410, 101, 9104, -1_800, false),
                ])
            #expect(try await world.plans.uncheckedPosts().map(\.sourcePostID) == [101, 102, 103])
            // One try per look-up (no retry on the clock), so that a fault is a look-up that fails.
            let client = XClient(
                configuration: .init(
                    baseURL: world.client.configuration.baseURL, credentials: world.client.configuration.credentials,
                    retry: .init(maxAttempts: 1)), clock: world.clock, logger: PosterWorld.quiet)
            let watcher = try Self.watcher(world, client: client)

            // The first look-up (101's) gets an unreadable answer: 101 is skipped, 102 and 103 are still looked up.
            await world.server.add(fault: FakeXFault(kind: .truncatedJSON, count: 1, endpoint: GetTweet.name))
            #expect(try await watcher.checkUncheckedOnce() == [102])
            #expect(await world.server.deletedByAPI() == ["9102"])
            let remaining = Set(try await world.archive.newest(limit: 1_000).map(\.postID))
            #expect(!remaining.contains(102) && remaining.contains(101) && remaining.contains(103))
            #expect(try await world.plans.uncheckedPosts().map(\.sourcePostID) == [101])
            let slots = try #require(try await world.plans.slots(of: day))
            #expect(slots.first { $0.minute == 1_390 }?.originalCheckedAt == world.clock.now())
            #expect(slots.first { $0.minute == 1_400 }?.originalCheckedAt == world.clock.now())
            #expect(slots.first { $0.minute == 1_380 }?.originalCheckedAt == nil)

            // The next round: 101 is there; nothing more is deleted and nothing is left unchecked.
            world.clock.advance(by: 600)
            #expect(try await watcher.checkUncheckedOnce().isEmpty)
            #expect(try await world.plans.uncheckedPosts().isEmpty)
            #expect(try #require(try await world.plans.slots(of: day)).first { $0.minute == 1_380 }?.originalCheckedAt == world.clock.now())
            #expect(await world.server.deletedByAPI() == ["9102"])
        }
    }
}

@Suite("Starting the daemon")
struct DaemonStartTests {
    @Test("Who the accounts are is asked again with backoff when X's answer is unreadable or lost, so a start survives it")
    func whoAmIIsAskedAgain() async throws {
        try await PosterWorld.with(.sqlite) { world in
            let network = XMirrorNetwork(client: world.client)
            let expected = try await network.whoAmI(.human)
            await world.server.add(fault: FakeXFault(kind: .truncatedJSON, count: 2, endpoint: GetAuthenticatedUser.name))
            let before = world.clock.now()
            let ask = Task { try await DaemonRunner.whoAmI(.human, on: network, clock: world.clock, logger: PosterWorld.quiet) }
            for _ in 0..<2 {
                try await world.clock.waitForSleepers()
                world.clock.advanceToNextSleeper()
            }
            #expect(try await ask.value == expected)
            // Two unreadable answers: waited 5 s, then 10 s.
            #expect(world.clock.now().timeIntervalSince(before) == 15)
        }
    }
}

@Suite("The daemon's metrics")
struct DaemonMetricsTests {
    @Test("Skip and refusal reasons, as the services write them, fall into a few stable categories")
    func categories() {
        #expect(DaemonMetrics.skipCategory("missed: the bot was not running at 08:00 (11 minutes ago)") == "missed")
        #expect(DaemonMetrics.skipCategory(PlanSlot.interruptedReason) == "interrupted")
        #expect(DaemonMetrics.skipCategory("X refused 3 picks (duplicates, or too long)") == "refused")
        #expect(DaemonMetrics.skipCategory("deleted by the human (removed from the archive)") == "deleted")
        #expect(DaemonMetrics.skipCategory("nothing to post: the archive has no postable tweet") == "nothing_to_post")
        #expect(DaemonMetrics.skipCategory("X API POST /2/tweets answered 503 4 times") == "network")
        #expect(DaemonMetrics.refusalCategory("already answered 5 times in this conversation") == "limit")
        #expect(DaemonMetrics.refusalCategory("dry run: would have answered with a past reply") == "dry_run")
        #expect(DaemonMetrics.refusalCategory("something new") == "other")
    }
}
