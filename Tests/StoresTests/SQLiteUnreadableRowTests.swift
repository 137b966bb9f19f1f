import BotClock
import BotCore
import Foundation
import GRDB
import SQLiteStores
import SeededRandom
import Stores
import TestSupport
import Testing

/// A value in an SQLite store that does not convert to what is read (a date past 9999 stored by an older version, a
/// value written by hand) is reported and its row skipped; it never ends the process (GRDB's subscripts trap on it).
@Suite("SQLite rows that cannot be read")
struct SQLiteUnreadableRowTests {
    static let postedAt = Date(timeIntervalSince1970: 1_795_302_000)

    @Test(
        "A slot whose posted_at is no date (year 99999, or text) is skipped and logged by uncheckedPosts and slots(of:); the good rows are read (issue 43)",
        arguments: ["99999-01-01 00:00:00.000", "not a date"])
    func badPostedAtSkipped(_ stored: String) async throws {
        try await TestServers.withTemporaryFolder { folder async throws in
            let path = folder.appending(path: "mirror_bot.sqlite").path
            let log = LogRecorder()
            let database = try SQLiteStoreSet(path: path, logger: log.logger())
            try await database.migrations.migrate()
            let plans = database.plans
            _ = try await plans.storePlan(day: "2026-11-22", timeZone: "UTC", minutes: [480, 600, 720], drawnAt: Self.postedAt)
            for (minute, source) in [(480, Int64(101)), (600, 102)] {
                try await plans.markPosted(
                    day: "2026-11-22", minute: minute, sourcePostID: PostID(source), botPostID: PostID(source + 9_000),
                    postedAt: Self.postedAt.addingTimeInterval(Double(minute) * 60), reason: "copied", unchecked: true)
            }
            // As `start --start-time 99999-01-01T00:00:00Z` left it: written around the store, by SQL.
            let writer = try DatabaseQueue(path: path)
            try await writer.write { db in
                try db.execute(sql: "UPDATE plan_slots SET posted_at = ? WHERE day = '2026-11-22' AND minute = 600", arguments: [stored])
            }
            try writer.close()

            let unchecked = try await plans.uncheckedPosts()
            #expect(unchecked.map(\.minute) == [480])
            #expect(unchecked.first?.sourcePostID == 101)
            let slots = try #require(try await plans.slots(of: "2026-11-22"))
            #expect(slots.map(\.minute) == [480, 720])
            #expect(!log.lines(containing: "Skipped a row of the posts whose original was not checked").isEmpty, "\(log.lines)")
            #expect(!log.lines(containing: "Skipped a row of the plan of 2026-11-22").isEmpty, "\(log.lines)")
        }
    }

    @Test("A post kept to like whose posted_at is no date (year 99999) is skipped and logged; the others are read, and liking goes on (issue 43)")
    func badCandidateSkipped() async throws {
        try await TestServers.withTemporaryFolder { folder async throws in
            let path = folder.appending(path: "mirror_bot.sqlite").path
            let log = LogRecorder()
            let database = try SQLiteStoreSet(path: path, logger: log.logger())
            try await database.migrations.migrate()
            try await database.likes.keepCandidates(
                [1, 2].map {
                    LikeCandidate(postID: PostID($0), authorID: nil, authorHandle: nil, logRatio: Double($0), reason: "kept", postedAt: Self.postedAt)
                })
            let writer = try DatabaseQueue(path: path)
            try await writer.write { db in
                try db.execute(sql: "UPDATE like_candidates SET posted_at = '99999-01-01 00:00:00.000' WHERE post_id = 2")
            }
            try writer.close()
            let kept = try await database.likes.candidates(postedSince: Self.postedAt.addingTimeInterval(-3_600))
            #expect(kept.map(\.postID) == [1])
            #expect(!log.lines(containing: "Skipped a row of the posts kept to like").isEmpty, "\(log.lines)")
        }
    }

    @Test(
        "Archived posts whose created_at is no date (year 99999) are skipped and logged by every read that draws or lists them; the good ones are read (issue 43)"
    )
    func badArchivedPostSkipped() async throws {
        try await TestServers.withTemporaryFolder { folder async throws in
            let path = folder.appending(path: "mirror_bot.sqlite").path
            let log = LogRecorder()
            let database = try SQLiteStoreSet(path: path, logger: log.logger())
            try await database.migrations.migrate()
            let archive = database.archive(timeZone: TimeZone(identifier: "UTC")!, rowLimit: 1_000)
            // Two posts at 08:00 and two replies to user 7, one of each made unreadable around the store.
            let posts = [
                ArchivedPost(postID: 1, text: "good morning", createdAt: Self.postedAt),
                ArchivedPost(postID: 2, text: "bad morning", createdAt: Self.postedAt.addingTimeInterval(1)),
                ArchivedPost(postID: 3, text: "good reply", replyUserID: 7, createdAt: Self.postedAt.addingTimeInterval(2)),
                ArchivedPost(postID: 4, text: "bad reply", replyUserID: 7, createdAt: Self.postedAt.addingTimeInterval(3)),
            ]
            #expect(try await archive.insert(posts) == 4)
            let writer = try DatabaseQueue(path: path)
            try await writer.write { db in
                try db.execute(sql: "UPDATE tweets SET created_at = '99999-01-01 00:00:00.000' WHERE tweet_id IN (2, 4)")
            }
            try writer.close()

            #expect(try await archive.newest(limit: 10).map(\.postID).sorted() == [1, 3])
            let minute = LocalTime(of: Self.postedAt, in: TimeZone(identifier: "UTC")!).minute
            var random = SplitMix64(seed: 1)
            let sample = PostSample(
                minute: minute, window: MinuteWindow(around: minute, radius: 5), excluded: [], allowingMentions: true,
                allowingLinks: true, postedSince: Self.postedAt.addingTimeInterval(-86_400))
            #expect(try await archive.randomPosts(sample, count: 5, using: &random).map(\.postID) == [1])
            let replies = ReplySample(userID: 7, excluded: [], allowingLinks: true)
            for _ in 0..<5 { #expect(try await archive.randomReply(replies, using: &random)?.postID == 3) }
            #expect(!log.lines(containing: "Skipped a row of the archive (newest posts)").isEmpty, "\(log.lines)")
            #expect(!log.lines(containing: "Skipped a row of the archive (posts to copy)").isEmpty, "\(log.lines)")
            #expect(!log.lines(containing: "Skipped a row of the archive (replies)").isEmpty, "\(log.lines)")

            // Opened in another time zone, the minutes are computed again: the unreadable rows are left without one.
            let elsewhere = database.archive(timeZone: TimeZone(identifier: "Asia/Tokyo")!, rowLimit: 1_000)
            try await elsewhere.prepare()
            #expect(try await elsewhere.minuteHistogram(includingReplies: true).reduce(0, +) == 2)
            #expect(!log.lines(containing: "Skipped a row of the archive (a post's time)").isEmpty, "\(log.lines)")
        }
    }

    @Test("A handled mention whose handled_at is no date is skipped and logged by handledMentions; the others are read (issue 43)")
    func badHandledMentionSkipped() async throws {
        try await TestServers.withTemporaryFolder { folder async throws in
            let path = folder.appending(path: "mirror_bot.sqlite").path
            let log = LogRecorder()
            let database = try SQLiteStoreSet(path: path, logger: log.logger())
            try await database.migrations.migrate()
            for mention in [Int64(11), 12] {
                #expect(try await database.mentions.begin(mentionID: PostID(mention), authorID: 7, conversationID: nil, at: Self.postedAt))
                try await database.mentions.finish(
                    mentionID: PostID(mention), state: .replied, replyPostID: PostID(mention + 100), reason: "answered")
            }
            let writer = try DatabaseQueue(path: path)
            try await writer.write { db in
                try db.execute(sql: "UPDATE mention_replies SET handled_at = 'not a date' WHERE mention_tweet_id = 12")
            }
            try writer.close()
            #expect(try await database.mentions.handledMentions().map(\.mentionPostID) == [11])
            #expect(!log.lines(containing: "Skipped a row of the handled mentions").isEmpty, "\(log.lines)")
        }
    }
}
