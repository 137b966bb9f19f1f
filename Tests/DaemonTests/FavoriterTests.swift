import BotClock
import BotConfiguration
import Classifier
import Consent
import FakeX
import Foundation
import Logging
import RedisClient
import RedisWordCounts
import Stores
import TestSupport
import Testing
import Tokenizer
import WordCounts
import XAPI
import XNetwork

@testable import Daemon

@Suite("The favoriter", .serialized)
struct FavoriterTests {
    static let start = Date(timeIntervalSince1970: 1_717_945_200)
    static let bot = AccountCredentials(consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts")
    static let tokenizer: PostTokenizer = try! PostTokenizer()
    static var quiet: Logger { Logger(label: "favoriter", factory: { _ in SwiftLogNoOpLogHandler() }) }

    func tweet(_ id: Int, by author: String, _ text: String, retweetOf: String? = nil, at: Date? = nil) -> FakeXSeed.Tweet {
        FakeXSeed.Tweet(
            id: String(id), authorID: author, text: text, createdAt: at ?? Self.start.addingTimeInterval(Double(id % 1000 - 1000)),
            retweetOf: retweetOf)
    }

    /// Runs `body` with a favoriter of `LIKES=on` over a trained filter, against a fake X whose apps have `access`; with
    /// `settings` (by default a slot with nothing to like is skipped at once: waiting for a post is tested on its own).
    func withFavoriter(
        _ backends: StoreBackends, trainNormal: Bool = true, access: FakeXSeed.Access = .enterprise,
        settings: Favoriter.Settings = .init(waitForPost: 0), budget: DailyBudget? = nil,
        _ body: (Favoriter, FakeXServer, FavoriterStores, ManualBotClock) async throws -> Void
    ) async throws {
        let seed = FakeXSeed(
            now: Self.start,
            users: [
                .init(id: "100", username: "human"), .init(id: "200", username: "mirror_bot"), .init(id: "300", username: "friend"),
                .init(id: "600", username: "alice"),
            ],
            accounts: [.init(userID: "200", consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts")],
            tweets: [tweet(5001, by: "300", "古い猫の写真")], follows: ["200": ["100", "300", "600"]], access: access)
        let server = FakeXServer(seed: seed, logger: Self.quiet)
        try await TestServers.withStores(backends) { database, store async throws in
            let classifier = FavoriteClassifier(store: store, tokenizer: Self.tokenizer, threshold: 3)
            try await classifier.learn((0..<20).map { _ in .init(text: "猫の写真", authorUsername: "friend") }, as: .favorite)
            if trainNormal { try await classifier.learn((0..<40).map { _ in .init(text: "会議の資料", authorUsername: "alice") }, as: .normal) }
            try await server.withRunning { url in
                let clock = ManualBotClock(now: Self.start)
                let log = FavoriterStores(likes: database.likes, state: database.state)
                let client = XClient(
                    configuration: .init(baseURL: url, credentials: [.bot: Self.bot]), clock: clock,
                    usage: budget?.meter ?? UsageMeter(), budget: budget, refusalStore: StoredRefusals(state: log.state), logger: Self.quiet)
                let archive = database.archive(timeZone: .gmt, rowLimit: 100)
                try await archive.insert([ArchivedPost(postID: 4242, text: "人間のつぶやき", createdAt: Self.start.addingTimeInterval(-86_400))])
                let favoriter = Favoriter(
                    clock: clock, likes: log.likes, state: log.state, archive: archive,
                    policy: LikingPolicy(setting: .on, network: XMirrorNetwork(client: client)),
                    classifier: classifier, network: XMirrorNetwork(client: client), botUserID: "200", humanUserID: "100",
                    settings: settings, logger: Self.quiet)
                try await body(favoriter, server, log, clock)
            }
        }
    }

    /// Uses a like slot now: the clock's day gets a plan with a slot every minute of the next hour (the first time),
    /// the clock moves to the next minute, and that minute's slot is used. Returns the slot as stored.
    @discardableResult
    func useSlotNow(_ favoriter: Favoriter, _ clock: ManualBotClock) async throws -> LikeSlot {
        clock.advance(by: 60)
        let now = LocalTime(of: clock.now(), in: .gmt)
        if try await favoriter.likes.likeSlots(of: now.day) == nil {
            _ = try await favoriter.likes.storeLikePlan(day: now.day, minutes: Array(now.minute..<min(1_440, now.minute + 60)), drawnAt: clock.now())
        }
        try await favoriter.useSlot(day: now.day, minute: now.minute)
        return try #require(try await favoriter.likes.likeSlots(of: now.day)?.first { $0.minute == now.minute })
    }

    @Test(
        "Keeps the new posts the filter calls favorite (never the bot's, the human's, reposts, or one liked before) and likes one at each slot",
        arguments: StoreBackends.all)
    func likesWhatTheHumanWould(_ backend: StoreBackends) async throws {
        try await withFavoriter(backend) { favoriter, server, log, clock in
            try await favoriter.pollOnce()  // first start: the old cat photo is not liked
            await server.add(tweets: [
                tweet(6001, by: "300", "猫の写真を撮った"),
                tweet(6002, by: "600", "会議の資料を送ります"),
                tweet(6003, by: "100", "猫の写真"),  // the human's own
                tweet(6004, by: "200", "猫の写真"),  // the bot's own
                tweet(6005, by: "300", "RT @x: 猫の写真", retweetOf: "5001"),
            ])
            try await favoriter.pollOnce()
            #expect(await server.liked().isEmpty, "a poll likes nothing: it keeps the post for a slot")
            #expect(try await log.likes.candidates(postedSince: .distantPast).map(\.postID) == [6001])
            let slot = try await useSlotNow(favoriter, clock)
            #expect(await server.liked().map(\.postID) == ["6001"])
            #expect(slot.state == .liked && slot.postID == 6001 && (slot.logRatio ?? 0) > log3)
            #expect(try await log.likes.count() == 1)
            // With a lost since_id the whole timeline is read again: 6001 is not kept or liked twice; only the old
            // photo, never liked before (the first start skipped it), is.
            try await log.state.setValue("0", of: Favoriter.sinceIDKey)
            let likeCalls = await server.requestCounts()[LikeTweet.name] ?? 0
            try await favoriter.pollOnce()
            try await useSlotNow(favoriter, clock)
            #expect(await server.requestCounts()[LikeTweet.name] == likeCalls + 1)
            #expect(await server.liked().map(\.postID) == ["6001", "5001"])
            // Nothing left: the slot is skipped saying so, with no call.
            let empty = try await useSlotNow(favoriter, clock)
            #expect(empty.state == .skipped && empty.reason?.contains("no post") == true, "\(empty)")
            #expect(await server.requestCounts()[LikeTweet.name] == likeCalls + 1)
        }
    }

    private var log3: Double { Foundation.log(3.0) }

    @Test(
        "On X, the likes still planned keep their room in the day's budget while the liker waits for them: reads for likes may spend only what their cost leaves, and the room is let go when the liker stops (issue 43)"
    )
    func likesKeepTheirRoomInTheBudget() async throws {
        let budget = DailyBudget(limit: 1.0, meter: UsageMeter(), logger: Self.quiet)
        try await withFavoriter(StoreBackends(archive: .memory, counts: .memory), budget: budget) { favoriter, _, log, clock in
            let now = LocalTime(of: clock.now(), in: .gmt)
            _ = try await log.likes.storeLikePlan(day: now.day, minutes: [now.minute + 60, now.minute + 120], drawnAt: clock.now())
            let readsForLikes = { budget.headroom(for: .liking, at: clock.now(), reading: true) }
            #expect(abs(readsForLikes() - 0.70) < 1e-9, "liking's share at $1.00, nothing kept aside yet")
            let liker = Task { try await favoriter.likeDays() }
            try await clock.waitForSleepers()
            let kept = 0.70 - 2 * XPriceList.current.interactionCreate
            #expect(abs(readsForLikes() - kept) < 1e-9, "the two likes' cost kept aside from the reads: \(readsForLikes()) left, not \(kept)")
            liker.cancel()
            _ = try? await liker.value
            #expect(abs(readsForLikes() - 0.70) < 1e-9, "let go when the liker stops")
        }
    }

    @Test(
        "A slot with nothing kept waits for a post, looking again after each poll: liked once one is kept; skipped after two hours, saying it waited",
        arguments: StoreBackends.archives)
    func slotWaitsForAPost(_ backend: StoreBackends.ArchiveKind) async throws {
        try await withFavoriter(StoreBackends(archive: backend, counts: .sqlite), settings: .init()) { favoriter, server, log, clock in
            try await favoriter.pollOnce()  // first start
            // 15:00 UTC now: slots at 15:10, 15:30 and 23:50.
            let day = LocalTime(of: clock.now(), in: .gmt).day
            _ = try await log.likes.storeLikePlan(day: day, minutes: [910, 930, 1_430], drawnAt: clock.now())
            let liker = Task { try await favoriter.likeDays() }
            defer { liker.cancel() }
            func slot(_ minute: Int) async throws -> LikeSlot? { try await log.likes.likeSlots(of: day)?.first { $0.minute == minute } }
            try await clock.waitForSleepers()
            clock.advanceToNextSleeper()  // 15:10: nothing kept
            try await clock.waitForSleepers()
            #expect(try await slot(910)?.state == .planned, "it waits")
            #expect(clock.sleepRequests.last == .seconds(300), "it looks again a poll later: \(clock.sleepRequests)")
            // A post the person would like, kept by the poll at 15:12; the slot likes it when it looks again at 15:15.
            clock.advance(by: 120)
            await server.add(tweets: [tweet(6201, by: "300", "猫の写真", at: Self.start.addingTimeInterval(-60))])
            try await favoriter.pollOnce()
            clock.advanceToNextSleeper()
            try await clock.waitForSleepers()
            let liked = try #require(try await slot(910))
            #expect(liked.state == .liked && liked.postID == 6201, "\(liked)")
            #expect(liked.doneAt == Self.start.addingTimeInterval(15 * 60))
            #expect(await server.liked().map(\.postID) == ["6201"])
            /// Moves the clock from wake to wake while the slot `minute` is planned, `limit` times at most; returns how many.
            func looks(at minute: Int, limit: Int) async throws -> Int {
                var looks = 0
                while try await slot(minute)?.state == .planned && looks < limit {
                    clock.advanceToNextSleeper()
                    try await clock.waitForSleepers()
                    looks += 1
                }
                return looks
            }
            // 15:30: nothing more; it looks every poll until 17:30, then skips the slot, saying it waited.
            #expect(try await looks(at: 930, limit: 40) == 25, "15:30, then every 5 minutes to 17:30")
            let skipped = try #require(try await slot(930))
            #expect(skipped.state == .skipped && skipped.reason?.contains("waited for one until 17:30") == true, "\(skipped)")
            #expect(await server.liked().count == 1)
            // 23:50: nothing kept; it waits until midnight only, and the next day's plan is drawn then, not a day later.
            #expect(try await looks(at: 1_430, limit: 10) == 3, "23:50, 23:55 and midnight")
            let lastSlot = try #require(try await slot(1_430))
            #expect(lastSlot.state == .skipped && lastSlot.reason?.contains("waited for one until 00:00") == true, "\(lastSlot)")
            let nextDay = LocalTime(of: Self.start.addingTimeInterval(86_400), in: .gmt).day
            #expect(LocalTime(of: clock.now(), in: .gmt).day == nextDay)
            #expect(try await log.likes.likeSlots(of: nextDay) != nil, "the next day's like plan is drawn at its start")
        }
    }

    @Test(
        "A like whose answer is still on its way when the favoriter is stopped is finished and recorded: the slot says liked, as the network does",
        arguments: StoreBackends.archives)
    func likeInFlightAtStop(_ backend: StoreBackends.ArchiveKind) async throws {
        try await withFavoriter(StoreBackends(archive: backend, counts: .sqlite)) { favoriter, server, log, clock in
            try await favoriter.pollOnce()  // first start
            await server.add(tweets: [tweet(6301, by: "300", "猫の写真", at: clock.now().addingTimeInterval(-300))])
            try await favoriter.pollOnce()
            // The network carries the like out and holds its answer back for 2 s of real time; the stop comes meanwhile.
            await server.add(fault: .init(kind: .hangAfterHandling, count: 1, endpoint: "POST /2/users/:id/likes", holdSeconds: 2))
            clock.advance(by: 60)
            let now = LocalTime(of: clock.now(), in: .gmt)
            _ = try await log.likes.storeLikePlan(day: now.day, minutes: [now.minute], drawnAt: clock.now())
            let using = Task { try await favoriter.useSlot(day: now.day, minute: now.minute) }
            let deadline = ContinuousClock.now + .seconds(30)
            while await server.liked().isEmpty {
                guard ContinuousClock.now < deadline else {
                    using.cancel()
                    Issue.record("waited 30 s for the like to reach the network")
                    return
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            using.cancel()
            #expect(try await using.value == .liked)
            let slot = try #require(try await log.likes.likeSlots(of: now.day)?.first { $0.minute == now.minute })
            #expect(slot.state == .liked && slot.postID == 6301, "\(slot)")
            #expect(await server.liked().map(\.postID) == ["6301"])
        }
    }

    @Test("Each slot likes the best post kept (highest score, then newest), never one older than a day", arguments: StoreBackends.archives)
    func bestOfTheDay(_ backend: StoreBackends.ArchiveKind) async throws {
        try await withFavoriter(StoreBackends(archive: backend, counts: .sqlite)) { favoriter, server, log, clock in
            try await favoriter.pollOnce()  // first start
            let now = clock.now()
            await server.add(tweets: [
                tweet(6101, by: "300", "猫の写真と天気と電車と駅", at: now.addingTimeInterval(-600)),  // a weaker favorite
                tweet(6102, by: "300", "猫の写真", at: now.addingTimeInterval(-500)),  // the strongest
                tweet(6103, by: "300", "猫の写真", at: now.addingTimeInterval(-400)),  // as strong, newer
            ])
            try await favoriter.pollOnce()
            let kept = try await log.likes.candidates(postedSince: .distantPast)
            #expect(kept.map(\.postID) == [6103, 6102, 6101], "best first: \(kept.map { ($0.postID, $0.logRatio) })")
            #expect(try await useSlotNow(favoriter, clock).postID == 6103)
            #expect(try await useSlotNow(favoriter, clock).postID == 6102)
            // A day later the weak one is too old: the slot is skipped and nothing more is liked.
            clock.advance(by: 86_400)
            let late = try await useSlotNow(favoriter, clock)
            #expect(late.state == .skipped, "\(late)")
            #expect(await server.liked().map(\.postID) == ["6103", "6102"])
            #expect(try await log.likes.candidates(postedSince: .distantPast).isEmpty, "the old one is forgotten")
        }
    }

    @Test(
        "A post under the threshold but above the keeping bar is kept, liked only by a slot with nothing better, and says so",
        arguments: StoreBackends.archives)
    func keepingBar(_ backend: StoreBackends.ArchiveKind) async throws {
        try await withFavoriter(StoreBackends(archive: backend, counts: .sqlite)) { favoriter, server, log, clock in
            try await favoriter.pollOnce()  // first start
            let now = clock.now()
            let texts: [(Int, String, String)] = [(6201, "300", "猫の写真"), (6202, "600", "猫の写真と会議"), (6203, "600", "会議の資料")]
            let scores = try await favoriter.classifier.classify(texts.map { .init(text: $0.2, authorUsername: $0.1 == "300" ? "friend" : "alice") })
                .map(\.score.logRatio)
            #expect(scores[0] > log3 && scores[1] < log3 && scores[1] > scores[2], "\(scores)")
            // The calibration's bar: between the second and the third.
            favoriter.classifier.decide(with: .original, threshold: 3, keepingThreshold: Foundation.exp((scores[1] + scores[2]) / 2))
            await server.add(tweets: texts.map { tweet($0.0, by: $0.1, $0.2, at: now.addingTimeInterval(-300)) })
            try await favoriter.pollOnce()
            let kept = try await log.likes.candidates(postedSince: .distantPast)
            #expect(kept.map(\.postID) == [6201, 6202], "\(kept.map { ($0.postID, $0.logRatio) })")
            #expect(kept.last?.reason.contains("the bar for keeping") == true, "\(kept.last?.reason ?? "")")
            #expect(try await useSlotNow(favoriter, clock).postID == 6201)
            let second = try await useSlotNow(favoriter, clock)
            #expect(second.state == .liked && second.postID == 6202, "\(second)")
            #expect(try await useSlotNow(favoriter, clock).state == .skipped, "the third is under the bar")
            #expect(await server.liked().map(\.postID) == ["6201", "6202"])
        }
    }

    @Test(
        "At its minute a slot likes the best kept even under the threshold (the person's time), and waits only when nothing is kept",
        arguments: StoreBackends.archives)
    func keepingBarAtTheMinute(_ backend: StoreBackends.ArchiveKind) async throws {
        try await withFavoriter(StoreBackends(archive: backend, counts: .sqlite), settings: .init(waitForPost: 7_200)) {
            favoriter, server, log, clock in
            try await favoriter.pollOnce()  // first start
            let weak = try await favoriter.classifier.classify([.init(text: "猫の写真と会議", authorUsername: "alice")])[0].score.logRatio
            #expect(weak < log3)
            favoriter.classifier.decide(with: .original, threshold: 3, keepingThreshold: Foundation.exp(weak - 1))
            await server.add(tweets: [tweet(6301, by: "600", "猫の写真と会議", at: clock.now().addingTimeInterval(-60))])
            try await favoriter.pollOnce()
            let day = LocalTime(of: clock.now(), in: .gmt).day
            let first = LocalTime(of: clock.now(), in: .gmt).minute + 1
            _ = try await favoriter.likes.storeLikePlan(day: day, minutes: [first, first + 1], drawnAt: clock.now())
            clock.advance(by: 60)
            #expect(try await favoriter.useSlot(day: day, minute: first) == .liked)
            // Nothing is left: the next slot waits for a post.
            clock.advance(by: 60)
            #expect(try await favoriter.useSlot(day: day, minute: first + 1) == .waiting)
            let slots = try #require(try await log.likes.likeSlots(of: day))
            #expect(slots.map(\.postID) == [6301, nil] && slots.map(\.state) == [.liked, .planned])
            #expect(slots[0].reason?.contains("the bar for keeping") == true, "\(slots[0])")
            #expect(await server.liked().map(\.postID) == ["6301"])
        }
    }

    @Test(
        "Never likes an account that opted out (even after its post was kept), one in BLOCKED_ACCOUNTS, or anything while the person paused everything",
        arguments: StoreBackends.archives)
    func consent(_ backend: StoreBackends.ArchiveKind) async throws {
        try await withFavoriter(StoreBackends(archive: backend, counts: .sqlite)) { favoriter, server, log, clock in
            try await favoriter.pollOnce()  // first start
            try await OptOutList(state: log.state).add(OptOut(accountID: "300", handle: nil, reason: "asked", at: Self.start))
            await server.add(tweets: [tweet(6001, by: "300", "猫の写真を撮った"), tweet(6002, by: "600", "猫の写真だよ")])
            try await favoriter.pollOnce()
            try await useSlotNow(favoriter, clock)
            #expect(try await useSlotNow(favoriter, clock).state == .skipped)
            #expect(await server.liked().map(\.postID) == ["6002"])  // alice did not opt out

            let blocking = Favoriter(
                clock: favoriter.clock, likes: log.likes, state: log.state, archive: favoriter.archive, policy: favoriter.policy,
                classifier: favoriter.classifier, network: favoriter.network, botUserID: "200", humanUserID: "100",
                contact: ContactRules(state: log.state, blocked: AccountSet(["@Alice"])), logger: Self.quiet)
            await server.add(tweets: [tweet(6003, by: "600", "猫の写真をもう一枚")])
            try await blocking.pollOnce()
            try await useSlotNow(blocking, clock)
            #expect(await server.liked().map(\.postID) == ["6002"])  // alice by handle (X's timeline gives it)

            try await OwnerControl(state: log.state).pause(.everything, at: Self.start)
            await server.add(tweets: [tweet(6004, by: "600", "猫の写真、三枚目")])
            try await favoriter.pollOnce()
            let paused = try await useSlotNow(favoriter, clock)
            #expect(paused.state == .skipped && paused.reason?.contains("paused") == true, "\(paused)")
            #expect(await server.liked().map(\.postID) == ["6002"])
            try await OwnerControl(state: log.state).pause(.posting, at: Self.start)  // a pause of posting only: likes go on
            await server.add(tweets: [tweet(6005, by: "600", "猫の写真、四枚目")])
            try await favoriter.pollOnce()
            try await useSlotNow(favoriter, clock)
            #expect(await server.liked().map(\.postID) == ["6002", "6005"])

            // Kept, then its author asks the bot to stop: not liked at the slot.
            await server.add(tweets: [tweet(6006, by: "600", "猫の写真、五枚目")])
            try await favoriter.pollOnce()
            try await OptOutList(state: log.state).add(OptOut(accountID: "600", handle: nil, reason: "asked", at: clock.now()))
            #expect(try await useSlotNow(favoriter, clock).state == .skipped)
            #expect(await server.liked().map(\.postID) == ["6002", "6005"])
        }
    }

    @Test(
        "LIKES=on on today's X: one like call is refused (403 client-forbidden) and stored; the timeline is no longer read; once a day one call that reads nothing checks again, and when X accepts it liking starts afresh",
        arguments: StoreBackends.archives)
    func refusedLikes(_ backend: StoreBackends.ArchiveKind) async throws {
        try await withFavoriter(StoreBackends(archive: backend, counts: .sqlite), access: .payPerUse) { favoriter, server, log, clock in
            #expect(try await favoriter.round() == nil)  // first start: marks where the timeline stands
            await server.add(tweets: [tweet(6001, by: "300", "猫の写真を撮った"), tweet(6007, by: "300", "猫の写真をもう一枚")])
            #expect(try await favoriter.round() == nil)  // both kept
            let refused = try await useSlotNow(favoriter, clock)
            #expect(refused.state == .skipped && refused.reason?.contains("refused") == true, "\(refused)")
            let wait = try #require(try await favoriter.round())
            #expect(wait >= .seconds(86_000) && wait <= .seconds(86_401))  // until the daily check
            var requests = await server.requestCounts()
            #expect(requests[LikeTweet.name] == 1, "one like call, not one per favorite: \(requests)")
            let timelineReads = try #require(requests[GetHomeTimeline.name])
            #expect(try await log.state.value(of: UsageRecording.refusalsKey)?.contains("notEnrolled") == true)
            // The next slots are skipped without asking X.
            let next = try await useSlotNow(favoriter, clock)
            #expect(next.state == .skipped && next.reason?.contains("refuses liking") == true, "\(next)")

            // Within the day: nothing is asked of X at all.
            clock.advance(by: 3 * 3_600)
            _ = try await favoriter.round()
            requests = await server.requestCounts()
            #expect(requests[GetHomeTimeline.name] == timelineReads && requests[LikeTweet.name] == 1 && requests[UnlikeTweet.name] == nil)

            // A day later: one check, still refused: another day.
            clock.advance(by: 21 * 3_600 + 1)
            _ = try await favoriter.round()
            requests = await server.requestCounts()
            #expect(requests[UnlikeTweet.name] == 1 && requests[GetHomeTimeline.name] == timelineReads)

            // The app is enrolled now: the next daily check passes, and the favoriter starts afresh from the newest post.
            await server.setAccess(.enterprise)
            clock.advance(by: 24 * 3_600 + 1)
            #expect(try await favoriter.round() == nil)
            requests = await server.requestCounts()
            #expect(requests[UnlikeTweet.name] == 2 && requests[GetHomeTimeline.name] == timelineReads + 1)
            #expect(try await log.state.value(of: UsageRecording.refusalsKey) == "[]")
            await server.setClock(clock.now())
            await server.add(tweets: [tweet(6010, by: "300", "猫の写真、三枚目", at: clock.now())])
            _ = try await favoriter.round()
            let liked = try await useSlotNow(favoriter, clock)
            #expect(await server.liked().map(\.postID) == ["6010"], "\(liked)")
        }
    }

    @Test("Nothing is kept or liked while the filter has learned only liked tweets", arguments: StoreBackends.all)
    func untrainedFilterLikesNothing(_ backend: StoreBackends) async throws {
        try await withFavoriter(backend, trainNormal: false) { favoriter, server, log, clock in
            try await favoriter.pollOnce()
            await server.add(tweets: [tweet(6001, by: "300", "猫の写真を撮った"), tweet(6002, by: "600", "会議")])
            try await favoriter.pollOnce()
            #expect(try await log.likes.candidates(postedSince: .distantPast).isEmpty)
            #expect(try await useSlotNow(favoriter, clock).state == .skipped)
            #expect(await server.liked().isEmpty)
        }
    }
}

@Suite("Services when a store is down", .serialized)
struct StoreDownTests {
    @Test("With Redis unreachable the favoriter logs, backs off and keeps running; it never crashes")
    func redisDown() async throws {
        let seed = FakeXSeed(
            now: FavoriterTests.start, users: [.init(id: "200", username: "mirror_bot")],
            accounts: [.init(userID: "200", consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts")],
            follows: ["200": ["300"]])
        let server = FakeXServer(seed: seed, logger: FavoriterTests.quiet)
        let dead = RedisWordCounts(connection: RedisConnection(url: RedisURL(host: "127.0.0.1", port: 1)))
        let classifier = FavoriteClassifier(store: dead, tokenizer: FavoriterTests.tokenizer, threshold: 3)
        try await server.withRunning { url in
            try await TestServers.withIsolatedDatabase { database async throws in
                let clock = ManualBotClock(now: FavoriterTests.start)
                let client = XClient(
                    configuration: .init(baseURL: url, credentials: [.bot: FavoriterTests.bot]), clock: clock, logger: FavoriterTests.quiet)
                let log = FavoriterStores(likes: database.likes, state: database.state)
                try await log.state.setValue("0", of: Favoriter.sinceIDKey)
                await server.add(tweets: [FakeXSeed.Tweet(id: "7001", authorID: "300", text: "猫の写真", createdAt: FavoriterTests.start)])
                await server.add(users: [.init(id: "300", username: "friend")])
                let favoriter = Favoriter(
                    clock: clock, likes: log.likes, state: log.state, archive: database.archive(timeZone: .gmt, rowLimit: 10),
                    policy: LikingPolicy(setting: .on, network: XMirrorNetwork(client: client)),
                    classifier: classifier, network: XMirrorNetwork(client: client), botUserID: "200", humanUserID: "100",
                    logger: FavoriterTests.quiet)
                let running = Task { try await favoriter.run() }
                for _ in 0..<3 {
                    try await clock.waitForSleepers(count: 2)
                    clock.advanceToNextSleeper()
                }
                try await clock.waitForSleepers(count: 2)
                // Backoffs of 2, 4 and 8 seconds, not the 300-second poll: it keeps trying, and has not died.
                // (The like slots' loop, with no like planned, waits for the next day meanwhile: two sleepers.)
                #expect(
                    clock.sleepRequests.filter { $0 < .seconds(3_600) }.prefix(4) == [.seconds(2), .seconds(4), .seconds(8), .seconds(16)],
                    "\(clock.sleepRequests)")
                #expect(await server.liked().isEmpty)
                running.cancel()
                _ = try? await running.value
            }
        }
    }
}

/// What the favoriter stores: its likes and its state (the timeline's `since_id`, X's refusals).
struct FavoriterStores {
    let likes: any LikeLog
    let state: any BotState
}
