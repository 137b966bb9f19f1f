import BotCore
import DemoReport
import FakeX
import Foundation
import FoundationXML
import Stores
import Testing

@Suite("The demo's report")
struct DemoReportTests {
    static let dayStart = Date(timeIntervalSince1970: 1_795_273_200)  // 2026-11-22 00:00 in Tokyo
    static let tokyo = TimeZone(identifier: "Asia/Tokyo")!

    static func record(_ json: String) throws -> DemoReport.FakeRecord { try DemoReport.FakeRecord.decode(Data(json.utf8)) }

    @Test("Figures come from fake X's record (not the bot's database); reasons come from the database")
    func figuresFromTheFake() throws {
        let persona = FakeXPersona(.init(dayStart: Self.dayStart, historyDays: 10, followedAccounts: 4))
        let mention = try #require(persona.seed.tweets.first { $0.authorID == "1003" && $0.createdAt > Self.dayStart })
        let liked = try #require(persona.seed.tweets.first { $0.authorID.hasPrefix("11") && $0.createdAt > Self.dayStart })
        let before = try Self.record(
            #"""
            {"posted": [], "liked": [], "requests": {"GET /2/users/me": 2}, "served": {},
             "billing": [{"day": "2026-11-21", "app": "demo-bot-app", "owned_post_reads": 0, "post_reads": 0, "user_reads": 1,
                          "posts_created": 0, "posts_created_with_url": 0, "interactions_created": 0, "interactions_deleted": 0, "cost": 0.01}]}
            """#)
        let after = try Self.record(
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
            """)
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
            RecordedLike(postID: 1, authorID: nil, logRatio: 3, reason: "log ratio 3.00 > 0.69 (猫)", likedAt: Self.dayStart),
        ]
        let state = ["likes.status": "likes: on (LIKES=on)", "budget.shed.2026-11-22": "liking"]
        let report = DemoReport(
            seed: persona.seed, record: after.since(before), humanID: "1001", botID: "1002", timeZone: Self.tokyo,
            mentions: mentions, likes: likes, botState: state, postLinks: false)
        #expect(report.posts.count == 2 && report.replies.count == 1 && report.botLikes.count == 1)
        #expect(report.botPostsPerHour[7] == 2)  // 22:30 and 22:50 UTC are 07:30 and 07:50 in Tokyo
        let text = report.text()
        #expect(text.contains("2 posts today"))
        #expect(text.contains("Replies (1):"))
        #expect(text.contains("to @taro \"\(mention.text)\" -> \"いいね！ラーメン行こう\" (the human's past reply 55)"))
        #expect(text.contains("Refused (1):") && text.contains("no past reply of the human to this user"))
        #expect(text.contains("Likes (1):"))
        #expect(text.contains("GET /2/users/me: 2 calls"))  // the calls before the run are left out
        #expect(text.contains("GET /2/users/:id/mentions: 100 calls, 7 posts read"))
        // X's bill of the run, as the fake made it: what was billed after the "before" record (7 own posts read, 3 posts
        // and 1 like), not the user read billed before the run.
        #expect(report.record.billing.map(\.day) == ["2026-11-21", "2026-11-22"])
        #expect(abs(report.estimatedCost - (7 * 0.001 + 3 * 0.015 + 0.015)) < 1e-9)
        #expect(text.contains("2026-11-21 (UTC) demo-bot-app: 7 own posts read, 2 posts made: $0.037"), "\(text)")
        #expect(text.contains("estimated cost: $0.07 (X's pricing page"))
        // What it did not do, and why: from the bot's state, the fake's record and the seed.
        #expect(text.contains("Not done, and why:"))
        #expect(text.contains("likes: on (LIKES=on) (0 like calls)"))
        #expect(text.contains("the home timeline: not read (0 calls): only liking needs it"))
        #expect(
            text.contains("links: \(report.humanPostsWithLinks) of @hanako's tweets and replies share a link; the bot posted 0 posts with a URL"))
        #expect(report.humanPostsWithLinks > 0)
        #expect(text.contains("budget: on the UTC day 2026-11-22 it stopped liking to stay within X_DAILY_BUDGET"))
        // The human's average day: the hours of the persona's rhythm dominate the night.
        let perHour = report.humanPostsPerHour
        #expect(perHour[22] > 5 * perHour[4])

        let svg = report.svg()
        #expect(XMLParser(data: Data(svg.utf8)).parse())
        #expect(svg.components(separatedBy: "<circle").count - 1 == 2)
        #expect(svg.components(separatedBy: "<rect").count - 1 == 25)  // the background and 24 hours
    }
}
