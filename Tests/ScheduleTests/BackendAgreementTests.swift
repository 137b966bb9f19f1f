import BotCore
import Foundation
import Schedule
import Stores
import TestSupport
import Testing

/// The same archive gives the same answers on Postgres and on the SQLite file: the same histogram and days (DST
/// included), the same plan for a seed, and the same posts sampled for a seed.
@Suite("Postgres and SQLite archives agree")
struct BackendAgreementTests {
    /// A year of a human in New York (two DST changes): ~3,000 posts at random times, a fifth of them replies,
    /// some with @-mentions.
    static func history() -> [ArchivedPost] {
        var generator = SeededGenerator(seed: 2026)
        let start = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01 UTC
        return (0..<3_000).map { index in
            let date = start.addingTimeInterval(Double.random(in: 0..<366 * 86_400, using: &generator).rounded())
            let reply: AccountID? = index % 5 == 0 ? AccountID(300 + index % 4) : nil
            let text = index % 7 == 0 ? "@friend\(index % 3) post \(index)" : "tweet \(index)"
            return ArchivedPost(postID: PostID(10_000 + index), text: text, replyUserID: reply, createdAt: date)
        }
    }

    struct Answers: Equatable {
        var histogram: [Int]
        var withoutReplies: [Int]
        var days: [DayCount]
        var plans: [DayPlan]
        var samples: [PostID?]
        var replies: [PostID?]
    }

    static func answers(from database: any StoreSet) async throws -> Answers {
        let archive = database.archive(timeZone: TimeZone(identifier: "America/New_York")!, rowLimit: 10_000)
        try await archive.prepare()
        try await archive.insert(history())
        let planner = SchedulePlanner(archive: archive, maxPostsPerDay: 30)
        var plans: [DayPlan] = []
        for (day, seed) in [("2024-03-10", 1), ("2024-11-03", 2), ("2026-11-22", 3)] as [(String, UInt64)] {
            var generator = SplitMix64(seed: seed)
            plans.append(try await planner.plan(for: day, using: &generator))
        }
        var generator = SplitMix64(seed: 9)
        var samples: [PostID?] = []
        for minute in stride(from: 0, to: 1_440, by: 45) {
            samples.append(
                try await archive.randomPost(
                    nearMinute: minute, radius: 20, excluding: [10_005, 10_010],
                    allowingMentions: minute % 2 == 0, using: &generator)?.postID)
        }
        var replies: [PostID?] = []
        for user in [300, 301, 302, 303, 999] as [AccountID] {
            replies.append(try await archive.randomReply(toUser: user, using: &generator)?.postID)
        }
        return Answers(
            histogram: try await archive.minuteHistogram(), withoutReplies: try await archive.minuteHistogram(includingReplies: false),
            days: try await archive.postsPerDay(), plans: plans, samples: samples, replies: replies)
    }

    @Test("Histograms, days, seeded plans and seeded samples are identical on both backends")
    func sameAnswers() async throws {
        let postgres = try await TestServers.withIsolatedDatabase(.postgres) { try await Self.answers(from: $0) }
        let sqlite = try await TestServers.withIsolatedDatabase(.sqlite) { try await Self.answers(from: $0) }
        #expect(postgres.histogram.reduce(0, +) == 3_000)
        #expect(postgres.days.count > 300)
        #expect(postgres.samples.contains { $0 != nil } && postgres.replies.prefix(4).allSatisfy { $0 != nil })
        #expect(postgres.histogram == sqlite.histogram)
        #expect(postgres.withoutReplies == sqlite.withoutReplies)
        #expect(postgres.days == sqlite.days)
        #expect(postgres.plans == sqlite.plans)
        #expect(postgres.samples == sqlite.samples)
        #expect(postgres.replies == sqlite.replies)
    }
}
