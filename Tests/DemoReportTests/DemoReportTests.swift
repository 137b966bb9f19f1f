import BotCore
import DemoReport
import FakeKit
import FakeMastodon
import FakeX
import Foundation
import FoundationXML
import Stores
import Testing

@Suite("The demo's report")
struct DemoReportTests {
    static let dayStart = Date(timeIntervalSince1970: 1_795_273_200)  // 2026-11-22 00:00 in Tokyo
    static let tokyo = TimeZone(identifier: "Asia/Tokyo")!

    @Test("Figures come from fake X's record (not the bot's database); reasons come from the database; X's bill is the run's")
    func figuresFromTheFake() throws {
        let persona = FakePersona(.init(dayStart: Self.dayStart, historyDays: 10, followedAccounts: 4))
        let mention = try #require(persona.posts.first { $0.authorID == "1003" && $0.createdAt > Self.dayStart })
        let liked = try #require(persona.posts.first { $0.authorID.hasPrefix("11") && $0.createdAt > Self.dayStart })
        let before = Data(
            #"""
            {"posted": [], "liked": [], "requests": {"GET /2/users/me": 2}, "served": {},
             "billing": [{"day": "2026-11-21", "app": "demo-bot-app", "owned_post_reads": 0, "post_reads": 0, "user_reads": 1,
                          "posts_created": 0, "posts_created_with_url": 0, "interactions_created": 0, "interactions_deleted": 0, "cost": 0.01}]}
            """#.utf8)
        let after = Data(
            """
            {"now": "2026-11-22T15:00:00Z", "speed": 1440,
             "posted": [
               {"id": "900", "author_id": "1002", "text": "おはよう", "created_at": "2026-11-21T22:30:00.000Z", "in_reply_to_tweet_id": null},
               {"id": "901", "author_id": "1002", "text": "今日は猫の日", "created_at": "2026-11-21T22:50:00.000Z", "in_reply_to_tweet_id": null},
               {"id": "902", "author_id": "1002", "text": "いいね！ラーメン行こう", "created_at": "2026-11-22T01:10:00.000Z",
                "in_reply_to_tweet_id": "\(mention.id)", "in_reply_to_user_id": "1003"}],
             "liked": [{"user_id": "1002", "tweet_id": "\(liked.id)"}],
             "requests": {"GET /2/users/me": 4, "GET /2/users/:id/mentions": 100, "POST /2/tweets": 3},
             "served": {"GET /2/users/:id/mentions": 7},
             "billing": [{"day": "2026-11-21", "app": "demo-bot-app", "owned_post_reads": 7, "post_reads": 0, "user_reads": 1,
                          "posts_created": 2, "posts_created_with_url": 0, "interactions_created": 0, "interactions_deleted": 0, "cost": 0.047},
                         {"day": "2026-11-22", "app": "demo-bot-app", "owned_post_reads": 0, "post_reads": 0, "user_reads": 0,
                          "posts_created": 1, "posts_created_with_url": 0, "interactions_created": 1, "interactions_deleted": 0, "cost": 0.03}]}
            """.utf8)
        // The database claims more than happened; the report must not repeat it.
        let mentions = [
            HandledMention(
                mentionPostID: PostID(mention.id), authorID: 1003, state: .replied, replyPostID: 902, sourcePostID: 55,
                reason: "a past reply of the human to @taro", handledAt: Self.dayStart.addingTimeInterval(36_000)),
            HandledMention(
                mentionPostID: 77, authorID: 1007, state: .skipped, replyPostID: nil, sourcePostID: nil,
                reason: "no past reply of the human to this user", handledAt: Self.dayStart.addingTimeInterval(48_000)),
        ]
        let likes = [
            RecordedLike(
                postID: PostID(liked.id), authorID: nil, logRatio: 2, reason: "log ratio 2.00 > 0.69 (ラーメン, 新宿)",
                likedAt: Self.dayStart),
            RecordedLike(
                postID: 1, authorID: nil, logRatio: 3, reason: "log ratio 3.00 > 0.69 (猫, 新宿) (best of the day's posts at 16:10)",
                likedAt: Self.dayStart),
        ]
        let state = ["likes.status": "likes: on (LIKES=on)", "budget.shed.2026-11-22": "liking"]
        let withLinks = DemoReport.humanPostsWithLinks(in: persona, humanID: "1001")
        let fake = FakeXNetwork()
        let run = try fake.run(
            after: after, before: before, context: .init(botState: state, postLinks: false, humanPostsWithLinks: withLinks, human: "@hanako"))
        let report = DemoReport(
            persona: persona, run: run, networkName: fake.name, humanID: "1001", botID: "1002", timeZone: Self.tokyo,
            mentions: mentions, likes: likes)
        #expect(report.posts.count == 2 && report.replies.count == 1 && report.botLikes.count == 1)
        #expect(report.botPostsPerHour[7] == 2)  // 22:30 and 22:50 UTC are 07:30 and 07:50 in Tokyo
        let text = report.text()
        #expect(text.contains("2 posts today"))
        #expect(text.contains("Replies (1):"))
        #expect(text.contains("to @taro \"\(mention.text)\" -> \"いいね！ラーメン行こう\" (the human's past reply 55)"))
        #expect(text.contains("Refused (1):") && text.contains("no past reply of the human to this user"))
        #expect(text.contains("Likes (1):"))
        // The reasons' words, counted over the bot's likes; a like's note in brackets after them is no word.
        #expect(text.contains("top reasons: 新宿 ×2, ラーメン ×1, 猫 ×1"), "\(text)")
        #expect(text.contains("GET /2/users/me: 2 calls"))  // the calls before the run are left out
        #expect(text.contains("GET /2/users/:id/mentions: 100 calls, 7 posts read"))
        // X's bill of the run, as the fake made it: what was billed after the "before" record (7 own posts read, 3 posts
        // and 1 like), not the user read billed before the run.
        #expect(run.bill?.lines.map { String($0.prefix(10)) } == ["2026-11-21", "2026-11-22"])
        #expect(abs((run.bill?.estimatedCost ?? 0) - (7 * 0.001 + 3 * 0.015 + 0.015)) < 1e-9)
        #expect(text.contains("2026-11-21 (UTC) demo-bot-app: 7 own posts read, 2 posts made: $0.037"), "\(text)")
        #expect(text.contains("estimated cost: $0.07 (X's pricing page"))
        // What it did not do, and why: from the bot's state, the fake's record and the seed.
        #expect(text.contains("Not done, and why:"))
        #expect(text.contains("likes: on (LIKES=on) (0 like calls)"))
        #expect(text.contains("the home timeline: not read (0 calls): only liking needs it"))
        #expect(
            text.contains("links: \(withLinks) of @hanako's tweets and replies share a link; the bot posted 0 posts with a URL"))
        #expect(withLinks > 0)
        #expect(text.contains("budget: on the UTC day 2026-11-22 it stopped liking to stay within X_DAILY_BUDGET"))
        // The human's average day: the hours of the persona's rhythm dominate the night.
        let perHour = report.humanPostsPerHour
        #expect(perHour[22] > 5 * perHour[4])

        let svg = report.svg()
        #expect(XMLParser(data: Data(svg.utf8)).parse())
        #expect(svg.components(separatedBy: "<circle").count - 1 == 2)
        #expect(svg.components(separatedBy: "<rect").count - 1 == 25)  // the background and 24 hours
    }

    @Test("On a network whose API is free: its fake's own record (the persona's ids through its aliases), no bill, what its module never copies")
    func aFreeNetwork() throws {
        let persona = FakePersona(.init(dayStart: Self.dayStart, historyDays: 10, followedAccounts: 4))
        let mention = try #require(persona.posts.first { $0.authorID == "1003" && $0.createdAt > Self.dayStart })
        let after = Data(
            """
            {"network": "mastodon", "posted": [
               {"id": "9001", "author_id": "1002", "text": "今日は猫の日", "created_at": "2026-11-21T22:50:00Z", "in_reply_to_post_id": null},
               {"id": "9002", "author_id": "1002", "text": "@taro いいね！", "created_at": "2026-11-22T01:10:00Z",
                "in_reply_to_post_id": "\(mention.id)", "in_reply_to_account_id": "1003"}],
             "liked": [{"account_id": "1002", "post_id": "77001"}],
             "requests": {"GET /api/v1/notifications": 40}, "served": {}, "aliases": {"77001": "\(mention.id)"}}
            """.utf8)
        let fake = FakeMastodonNetwork()
        let run = try fake.run(
            after: after, before: nil, context: .init(botState: [:], postLinks: true, humanPostsWithLinks: 3, human: "@hanako"))
        #expect(run.bill == nil)
        #expect(run.notDone == ["nothing held back but statuses that were followers-only or direct, or carried a content warning: never copied"])
        let report = DemoReport(
            persona: persona, run: run, networkName: fake.name, humanID: "1001", botID: "1002", timeZone: Self.tokyo, mentions: [], likes: [])
        #expect(report.posts.count == 1 && report.replies.count == 1 && report.botLikes.count == 1)
        let text = report.text()
        #expect(text.contains("as fake Mastodon recorded it"))
        #expect(text.contains("to @taro \"\(mention.text)\" -> \"@taro いいね！\""), "\(text)")
        // The like names the network's id of the post; the report finds the persona's post through the alias.
        #expect(text.contains("@taro \"\(mention.text)\": ?"), "\(text)")
        #expect(text.contains("GET /api/v1/notifications: 40 calls"))
        #expect(text.contains("Cost: none (Mastodon's API is free; nothing was billed)"))
        #expect(report.svg().contains("on Mastodon, free"))
    }
}
