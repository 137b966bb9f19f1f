import BotCore
import FakeX
import Foundation
import Logging
import Testing
import XAPI

@Suite("The fake's running clock, auto-repliers and generated persona")
struct FakeXPersonaAndClockTests {
    static let quiet = Logger(label: "persona", factory: { _ in SwiftLogNoOpLogHandler() })
    static let dayStart = Date(timeIntervalSince1970: 1_795_273_200)  // 2026-11-22 00:00 in Tokyo

    static func credentials(_ account: FakeXSeed.Account) -> AccountCredentials {
        AccountCredentials(
            consumerKey: account.consumerKey, consumerSecret: account.consumerSecret,
            accessToken: account.accessToken, accessTokenSecret: account.accessTokenSecret)
    }

    @Test("The same options give the same persona; its human posts with a rhythm, replies to friends, and likes some topics")
    func personaIsReproducible() throws {
        let options = FakeXPersona.Options(randomSeed: 3, dayStart: Self.dayStart, historyDays: 20)
        let first = FakeXPersona(options)
        let second = FakeXPersona(options)
        #expect(first.seed.tweets.map(\.text) == second.seed.tweets.map(\.text))
        #expect(first.seed.tweets.map(\.id) == second.seed.tweets.map(\.id))
        let ids = first.seed.tweets.compactMap { UInt64($0.id) }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count)

        let human = first.seed.tweets.filter { $0.authorID == first.human.id && $0.createdAt < Self.dayStart }
        #expect(human.count > 20 * 20)
        // The rhythm: far more posts between 07:00 and 09:00 or 21:00 and 24:00 than between 03:00 and 05:00.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Tokyo")!
        let hours = human.map { calendar.component(.hour, from: $0.createdAt) }
        #expect(hours.filter { (7..<9).contains($0) || $0 >= 21 }.count > 20 * hours.filter { (3..<5).contains($0) }.count)
        let replies = human.filter { $0.inReplyToUserID != nil }
        #expect(Set(replies.compactMap(\.inReplyToUserID)) == Set(first.friends.map(\.id)))
        #expect(replies.allSatisfy { reply in first.friends.contains { reply.text.hasPrefix("@" + $0.username + " ") } })
        // Likes lean on the liked topics: a liked post is far more often on one of them than the timeline is.
        let liked = Set(first.seed.likes[first.human.id] ?? [])
        let timeline = first.seed.tweets.filter { tweet in first.authors.contains { $0.id == tweet.authorID } && tweet.createdAt < Self.dayStart }
        func onLikedTopic(_ tweet: FakeXSeed.Tweet) -> Bool { first.likedTopics.contains { tweet.text.contains($0) } }
        let likedTimeline = timeline.filter { liked.contains($0.id) }
        let share = Double(likedTimeline.count) / Double(timeline.count)
        #expect(share > 0.15 && share < 0.45, "like share \(share)")
        #expect(Double(likedTimeline.filter(onLikedTopic).count) / Double(likedTimeline.count) > 0.8)
        #expect(first.seed.autoRepliers == [first.echoBot.id])
    }

    @Test("A running clock moves on its own; an armed clock starts at the next API request")
    func runningClock() async throws {
        let persona = FakeXPersona(.init(dayStart: Self.dayStart, historyDays: 2, followedAccounts: 2))
        let server = FakeXServer(seed: persona.seed, logger: Self.quiet)
        try await server.withRunning { base in
            #expect(await server.now() == Self.dayStart)  // no speed: the clock stands still
            await server.armClock(Self.dayStart.addingTimeInterval(10 * 3_600), speed: 1_000_000)
            #expect(await server.now() == Self.dayStart)  // armed, not started
            let mentions = try await FakeXContractTests.request(
                "GET", base, "/2/users/\(persona.bot.id)/mentions?max_results=100", as: Self.credentials(persona.botAccount))
            #expect(mentions.status == 200)
            let now = await server.now()
            #expect(now > Self.dayStart.addingTimeInterval(10 * 3_600))  // started, and running
            let later = await server.now()
            #expect(later > now)
        }
    }

    @Test("An auto-replier answers a post mentioning it 30 seconds later, and the count of posts served is kept")
    func autoReplier() async throws {
        let persona = FakeXPersona(.init(dayStart: Self.dayStart, historyDays: 2, followedAccounts: 2))
        let server = FakeXServer(seed: persona.seed, logger: Self.quiet)
        try await server.withRunning { base in
            let bot = Self.credentials(persona.botAccount)
            let created = try await FakeXContractTests.request("POST", base, "/2/tweets", as: bot, body: ["text": "@echo_bot こんにちは"])
            #expect(created.status == 201)
            let postID = try #require(((created.json as? [String: Any])?["data"] as? [String: Any])?["id"] as? String)
            func echoes() async throws -> [[String: Any]] {
                let page = try await FakeXContractTests.request(
                    "GET", base, "/2/users/\(persona.bot.id)/mentions?max_results=100&since_id=\(postID)&tweet.fields=in_reply_to_user_id",
                    as: bot)
                return ((page.json as? [String: Any])?["data"] as? [[String: Any]]) ?? []
            }
            #expect(try await echoes().isEmpty)  // not yet: 30 seconds on the server's clock
            await server.advanceClock(by: 30)
            let answers = try await echoes()
            #expect(answers.count == 1)
            #expect((answers.first?["text"] as? String)?.hasPrefix("@hanako_mirror ") == true)
            #expect(await server.posted().count == 1)  // the echo is the fake's, not a client's post
            #expect(await server.servedCounts()["GET /2/users/:id/mentions"] == 1)
        }
    }
}
