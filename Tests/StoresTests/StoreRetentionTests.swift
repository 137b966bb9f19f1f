import BotClock
import Foundation
import Stores
import TestSupport
import Testing

/// What the bot records is kept for a time, then removed, so that the stores stay within small plans.
@Suite("Keeping records for a time", .serialized)
struct StoreRetentionTests {
    static let now = Date(timeIntervalSince1970: 1_795_273_200)

    @Test(
        "Records older than the policy's days go (posts only past REPOST_AFTER_DAYS), newer ones stay; only the newest training examples are kept",
        arguments: StoreBackends.archives)
    func prunes(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let old = Self.now.addingTimeInterval(-100 * 86_400)
            let recent = Self.now.addingTimeInterval(-10 * 86_400)
            let mentions = database.mentions
            let likes = database.likes
            let plans = database.plans
            let archive = database.archive(timeZone: TimeZone(identifier: "UTC")!, rowLimit: 100)
            _ = try await mentions.begin(mentionID: 1, authorID: 9, conversationID: nil, at: old)
            try await mentions.finish(mentionID: 1, state: .replied, reason: "old")
            _ = try await mentions.begin(mentionID: 2, authorID: 9, conversationID: nil, at: recent)
            try await mentions.finish(mentionID: 2, state: .replied, reason: "recent")
            _ = try await likes.recordLike(postID: 10, authorID: nil, logRatio: 1, reason: "old", at: old)
            _ = try await likes.recordLike(postID: 11, authorID: nil, logRatio: 1, reason: "recent", at: recent)
            _ = try await plans.storePlan(day: LocalTime.utcDay(of: old), timeZone: "UTC", minutes: [60, 120], drawnAt: old)
            _ = try await plans.storePlan(day: LocalTime.utcDay(of: recent), timeZone: "UTC", minutes: [60], drawnAt: recent)
            _ = try await likes.storeLikePlan(day: LocalTime.utcDay(of: old), minutes: [90], drawnAt: old)
            _ = try await likes.storeLikePlan(day: LocalTime.utcDay(of: recent), minutes: [90], drawnAt: recent)
            try await likes.keepCandidates([
                LikeCandidate(postID: 20, authorID: nil, authorHandle: nil, logRatio: 1, reason: "old", postedAt: old),
                LikeCandidate(postID: 21, authorID: nil, authorHandle: nil, logRatio: 1, reason: "recent", postedAt: recent),
            ])
            try await archive.recordBotPost(sourcePostID: 1, botPostID: 2, postedAt: old)
            try await archive.recordBotPost(sourcePostID: 3, botPostID: 4, postedAt: recent)
            let examples = database.examples
            try await examples.record(
                (0..<12).map { TrainingExample(postID: "\($0)", text: "t\($0)", author: nil, label: "normal", source: "timeline", learnedAt: old) })

            let removed = try await database.retention.prune(at: Self.now, policy: .init(logDays: 90, repostAfterDays: 30, trainingExamples: 5))
            #expect(removed == RemovedRecords(mentions: 1, likes: 1, plans: 2, posts: 1, trainingExamples: 7))  // a day plan and a like plan
            #expect(try await mentions.outcome(of: 1) == nil)
            #expect(try await mentions.outcome(of: 2) != nil)
            #expect(try await likes.likedAmong([10, 11]) == [11])
            #expect(try await plans.slots(of: LocalTime.utcDay(of: old)) == nil)
            #expect(try await plans.slots(of: LocalTime.utcDay(of: recent))?.count == 1)
            #expect(try await likes.likeSlots(of: LocalTime.utcDay(of: old)) == nil)
            #expect(try await likes.likeSlots(of: LocalTime.utcDay(of: recent))?.count == 1)
            #expect(try await likes.candidates(postedSince: .distantPast).map(\.postID) == [21])
            #expect(try await examples.all().map(\.postID) == ["7", "8", "9", "10", "11"])
            #expect(removed.description == "1 mention records, 1 like records, 2 day plans, 1 records of posts, 7 training examples")
            // Again: nothing more.
            #expect(try await database.retention.prune(at: Self.now, policy: .init(logDays: 90, trainingExamples: 5)).total == 0)

            // A long REPOST_AFTER_DAYS keeps the record of posts that long.
            try await archive.recordBotPost(sourcePostID: 5, botPostID: 6, postedAt: old)
            #expect(try await database.retention.prune(at: Self.now, policy: .init(logDays: 90, repostAfterDays: 120)).posts == 0)
        }
    }
}
