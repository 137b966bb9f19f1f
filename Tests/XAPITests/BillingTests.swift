import BotClock
import BotConfiguration
import BotCore
import Foundation
import SocialNetwork
import TestSupport
import Testing

@testable import XAPI

@Suite("X's prices, its per-day de-duplication and the daily budget")
struct BillingTests {
    static let noon = Date(timeIntervalSince1970: 1_795_348_800)  // 2026-11-22 12:00 UTC

    @Test("The price list is X's pay-per-use list of April 2026, and a bill costs the sum of its parts")
    func priceList() {
        let prices = XPriceList.current
        #expect(prices == .april2026)
        #expect(prices.ownedPostRead == 0.001 && prices.postRead == 0.005 && prices.userRead == 0.010)
        #expect(prices.postCreate == 0.015 && prices.postCreateWithURL == 0.200)
        #expect(prices.source.contains("April 2026") && prices.source.contains("docs.x.com"))
        let bill = XBill(
            ownedPostReads: 12, postReads: 3, userReads: 2, postsCreated: 16, postsCreatedWithURL: 1, interactionsCreated: 1,
            interactionsDeleted: 1)
        #expect(abs(prices.cost(of: bill) - (0.012 + 0.015 + 0.020 + 0.240 + 0.200 + 0.015 + 0.010)) < 1e-12)
        #expect(
            bill.description
                == "12 own posts read, 3 other posts read, 2 users read, 16 posts made, 1 posts with a URL made, 1 likes, 1 deletions (unlikes, posts deleted)"
        )
        #expect(XBill().description == "nothing billable")
        #expect(bill - bill == XBill() && (bill + bill) - bill == bill)
    }

    @Test("A post with a URL is billed at the URL rate, by X's linking rule")
    func postsWithLinks() {
        #expect(CreateTweet(text: "今日はラーメン").billing.worstCase == XBill(postsCreated: 1))
        #expect(CreateTweet(text: "記事 https://example.com").billing.worstCase == XBill(postsCreatedWithURL: 1))
        #expect(CreateTweet(text: "example.jp を見て").billing.worstCase == XBill(postsCreatedWithURL: 1))
    }

    @Test("Each post and user is billed once per UTC day and app, as X de-duplicates; writes every time")
    func deduplication() {
        let meter = UsageMeter()
        let read = XBilledResources(ownedPosts: ["1", "2"], posts: ["9"], users: ["u1"])
        #expect(
            meter.recordSuccess(endpoint: "a", account: .human, app: "human-app", resources: read, write: nil, postsRead: 3, at: Self.noon)
                == XBill(ownedPostReads: 2, postReads: 1, userReads: 1))
        // The same resources the same UTC day by the same app: nothing more.
        #expect(
            meter.recordSuccess(
                endpoint: "a", account: .human, app: "human-app", resources: read, write: nil, postsRead: 3,
                at: Self.noon.addingTimeInterval(11 * 3_600)
            ).isEmpty)
        // Another app pays for its own reads.
        #expect(
            meter.recordSuccess(
                endpoint: "b", account: .bot, app: "bot-app", resources: XBilledResources(users: ["u1"]), write: nil,
                postsRead: 0, at: Self.noon) == XBill(userReads: 1))
        // Writes are billed per request.
        for _ in 0..<2 {
            #expect(
                meter.recordSuccess(
                    endpoint: "c", account: .bot, app: "bot-app", resources: .init(), write: .post(withURL: false),
                    postsRead: 0, at: Self.noon) == XBill(postsCreated: 1))
        }
        #expect(abs(meter.spent(onBillingDay: "2026-11-22") - (0.002 + 0.005 + 0.010 + 0.010 + 0.030)) < 1e-12)
        // After midnight UTC the same post is billed again, on the new day.
        let nextDay = Self.noon.addingTimeInterval(12 * 3_600 + 1)
        #expect(
            meter.recordSuccess(
                endpoint: "a", account: .human, app: "human-app", resources: XBilledResources(ownedPosts: ["1"]), write: nil,
                postsRead: 1, at: nextDay) == XBill(ownedPostReads: 1))
        #expect(meter.billingDays == ["2026-11-22", "2026-11-23"])
        #expect(meter.bill(onBillingDay: "2026-11-23") == XBill(ownedPostReads: 1))
        // What other runs spent that day counts too.
        meter.setSpentElsewhere(0.25, onBillingDay: "2026-11-23")
        #expect(abs(meter.spent(onBillingDay: "2026-11-23") - 0.251) < 1e-12)
        #expect(abs(meter.ownSpend(onBillingDay: "2026-11-23") - 0.001) < 1e-12)
        #expect(meter.snapshot[.init(endpoint: "c", account: .bot)]?.postsCreated == 2)
    }

    /// Spends `dollars` more on `meter` on the day of `date`, in own-post reads of $0.001 (fresh ids).
    static func spend(_ dollars: Double, on meter: UsageMeter, at date: Date, from first: inout Int) {
        let count = Int((dollars / 0.001).rounded())
        let ids = (first..<(first + count)).map(String.init)
        first += count
        meter.recordSuccess(
            endpoint: "spend", account: .human, app: "app", resources: XBilledResources(ownedPosts: ids), write: nil,
            postsRead: count, at: date)
    }

    @Test("Work is shed in order as the day's spend nears the budget: learning at 50%, liking at 70%, replies at 90%, posts at 100%")
    func sheddingOrder() {
        let meter = UsageMeter()
        let budget = DailyBudget(limit: 1.0, meter: meter, logger: LogRecorder().logger())
        var next = 0
        func working() -> [Work] { Work.allCases.filter { budget.headroom(for: $0, at: Self.noon) > 1e-9 } }
        #expect(working() == [.learning, .liking, .replies, .posts])
        Self.spend(0.499, on: meter, at: Self.noon, from: &next)
        #expect(working() == [.learning, .liking, .replies, .posts])
        Self.spend(0.001, on: meter, at: Self.noon, from: &next)
        #expect(working() == [.liking, .replies, .posts])
        Self.spend(0.200, on: meter, at: Self.noon, from: &next)
        #expect(working() == [.replies, .posts])
        Self.spend(0.200, on: meter, at: Self.noon, from: &next)
        #expect(working() == [.posts])
        Self.spend(0.100, on: meter, at: Self.noon, from: &next)
        #expect(working().isEmpty)
        #expect(Work.allCases.sorted() == [.learning, .liking, .replies, .posts])
    }

    @Test("The posts still planned today are kept aside from every other work's share, not from the posts'")
    func postsReserve() {
        let meter = UsageMeter()
        let budget = DailyBudget(limit: 1.0, meter: meter, logger: LogRecorder().logger())
        var next = 0
        Self.spend(0.3, on: meter, at: Self.noon, from: &next)
        // 16 posts still planned this UTC day (16 × $0.015 = $0.24), and 4 after midnight UTC.
        let today = (1...16).map { Self.noon.addingTimeInterval(Double($0) * 1_800) }
        let tomorrow = (1...4).map { Self.noon.addingTimeInterval(12 * 3_600 + Double($0) * 600) }
        budget.reservePosts(at: today + tomorrow)
        #expect(abs(budget.headroom(for: .learning, at: Self.noon) - (0.5 - 0.24 - 0.3)) < 1e-9)
        #expect(abs(budget.headroom(for: .replies, at: Self.noon) - (0.9 - 0.24 - 0.3)) < 1e-9)
        #expect(abs(budget.headroom(for: .posts, at: Self.noon) - 0.7) < 1e-9)
        // Each post is kept aside on its own UTC day: tomorrow's four from tomorrow's shares.
        let afterMidnight = Self.noon.addingTimeInterval(12 * 3_600 + 1)
        #expect(abs(budget.headroom(for: .learning, at: afterMidnight) - (0.5 - 4 * 0.015)) < 1e-9)
        budget.reservePosts(at: [])
        #expect(abs(budget.headroom(for: .learning, at: afterMidnight) - 0.5) < 1e-9)
    }

    @Test("Each shed is logged once a UTC day with the figures; the next UTC day resumes it, and says so once")
    func shedLoggedOnceAndResumed() {
        let meter = UsageMeter()
        let recorder = LogRecorder()
        let budget = DailyBudget(limit: 1.0, meter: meter, logger: recorder.logger())
        var next = 0
        Self.spend(0.75, on: meter, at: Self.noon, from: &next)
        for _ in 0..<3 { _ = budget.shed(.liking, endpoint: "GET timeline", needed: 0.5, at: Self.noon) }
        let error = budget.shed(.learning, endpoint: "GET tweets", needed: 0.1, at: Self.noon)
        #expect(error == .overBudget(endpoint: "GET tweets", work: "learning from the person", spent: 0.75, limit: 1.0))
        let sheds = recorder.lines(containing: "budget: ")
        #expect(sheds.count == 2, "\(sheds)")
        #expect(sheds.first?.contains("liking stopped for the rest of the UTC day 2026-11-22: $0.750 of X_DAILY_BUDGET $1.00 spent") == true)
        #expect(sheds.first?.contains("below 70%") == true)
        #expect(budget.shedWorks(at: Self.noon) == [.learning, .liking])

        let tomorrow = Self.noon.addingTimeInterval(86_400)
        #expect(budget.headroom(for: .liking, at: tomorrow) > 0.69)
        _ = budget.headroom(for: .replies, at: tomorrow)
        #expect(recorder.lines(containing: "a new UTC day").count == 1)
        #expect(recorder.lines(containing: "resuming learning from the person, liking").count == 1)
        #expect(budget.shedWorks(at: tomorrow).isEmpty)
    }

    @Test(
        "The likes still planned keep their room: reads for likes leave their cost aside (a day no longer reads all it may and then has no room for its likes), the likes themselves do not"
    )
    func likesKeepTheirRoom() async throws {
        let meter = UsageMeter()
        let budget = DailyBudget(limit: 1.0, meter: meter, logger: LogRecorder().logger())
        // Two likes planned today: $0.030 kept aside from liking's $0.70 for reads, none from the likes themselves.
        budget.reserveLikes(at: [Self.noon.addingTimeInterval(3_600), Self.noon.addingTimeInterval(7_200)])
        #expect(abs(budget.headroom(for: .liking, at: Self.noon, reading: true) - 0.67) < 1e-9)
        #expect(abs(budget.headroom(for: .liking, at: Self.noon) - 0.70) < 1e-9)
        #expect(abs(budget.headroom(for: .learning, at: Self.noon, reading: true) - 0.47) < 1e-9)
        // Replies and posts are not liking's: nothing kept aside from them.
        #expect(abs(budget.headroom(for: .replies, at: Self.noon, reading: true) - 0.90) < 1e-9)
        // Reads for likes spend what they may ($0.67): both likes still fit, and a further read does not.
        meter.recordSuccess(
            endpoint: "GET home", account: .bot, app: "bot-app", resources: XBilledResources(posts: (0..<134).map(String.init)),
            write: nil, postsRead: 134, at: Self.noon)
        #expect(budget.headroom(for: .liking, at: Self.noon, reading: true) < 0.005)
        for _ in 0..<2 {
            #expect(budget.headroom(for: .liking, at: Self.noon) >= XPriceList.current.interactionCreate - 1e-9)
            meter.recordSuccess(
                endpoint: "POST like", account: .bot, app: "bot-app", resources: XBilledResources(), write: .interactionCreate,
                postsRead: 0, at: Self.noon)
        }
        // Liked: nothing kept aside any more.
        budget.reserveLikes(at: [])
        #expect(abs(budget.headroom(for: .liking, at: Self.noon, reading: true) - (0.70 - 0.67 - 0.03)) < 1e-9)
    }

    @Test("The client asks a paged read for fewer posts to fit the day's budget, and sends nothing that cannot fit")
    func clientHoldsTheBudget() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 80)) { server, url async throws in
            let clock = ManualBotClock(now: Fixture.start)
            let meter = UsageMeter()
            let log = LogRecorder()
            let budget = DailyBudget(limit: 0.10, meter: meter, logger: log.logger())
            let client = XClient(
                configuration: .init(baseURL: url, credentials: [.human: Fixture.human, .bot: Fixture.bot]), clock: clock,
                usage: meter, budget: budget, logger: Fixture.logger)
            for index in 0..<4 { _ = try await client.send(CreateTweet(text: "post \(index)"), as: .bot, for: .posts) }  // $0.060
            // Learning stops at half the budget ($0.050): not sent at all.
            await #expect(throws: XAPIError.self) { try await client.send(GetUserTweets(userID: Fixture.humanID), as: .human, for: .learning) }
            #expect(await server.requestCounts()[GetUserTweets.name] == nil)
            // The line says what the least of the read would cost (one post), not the page of 100 it would not ask for.
            #expect(
                log.lines(containing: "stopped for the rest of the UTC day").count == 1
                    && log.lines(containing: "would need at least $0.00").count == 1, "\(log.lines)")
            // Replies go on to 90% ($0.090): $0.030 left buys 30 own posts, so the page asks for 30 instead of 100.
            let page = try await client.send(GetUserTweets(userID: Fixture.humanID, maxResults: 100), as: .human, for: .replies)
            #expect(page.tweets.count == 30)
            #expect(abs(meter.spent(onBillingDay: UsageMeter.billingDay(of: Fixture.start)) - 0.090) < 1e-9)
            // Nothing is left for replies; the scheduled posts still have $0.010 of the budget, less than a post.
            await #expect(throws: XAPIError.self) { try await client.send(GetUserTweets(userID: Fixture.humanID), as: .human, for: .replies) }
            await #expect(throws: XAPIError.self) { try await client.send(CreateTweet(text: "one more"), as: .bot, for: .posts) }
            let counts = await server.requestCounts()
            #expect(counts[GetUserTweets.name] == 1 && counts[CreateTweet.name] == 4)
            // What fake X billed is what the client counted.
            let billed = await server.billing().reduce(0.0) { $0 + XPriceList.current.cost(of: $1.bill) }
            #expect(abs(billed - meter.totalCost) < 1e-9)
        }
    }
}
