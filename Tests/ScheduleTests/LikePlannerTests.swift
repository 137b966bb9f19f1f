import BotClock
import BotCore
import Foundation
import Schedule
import Stores
import TestSupport
import Testing

@Suite("Planning a day's likes")
struct LikePlannerTests {
    static let tokyo = TimeZone(identifier: "Asia/Tokyo")!
    static let base = Date(timeIntervalSince1970: 1_717_167_600)  // 2024-06-01 00:00 Tokyo
    static func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date {
        base.addingTimeInterval(Double(day * 86_400 + hour * 3_600 + minute * 60))
    }

    @Test(
        "The count is one of the person's days of liking, quiet days included; the minutes are those they like in", arguments: StoreBackends.archives)
    func fromTimedLikes(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend) { database async throws in
            let archive = database.archive(timeZone: Self.tokyo, rowLimit: 1000)
            try await archive.prepare()
            try await archive.insert([ArchivedPost(postID: 1, text: "a post at 03:00", createdAt: Self.at(0, 3, 0))])
            // Day 0: 24 likes at 21:00-21:23; day 1: none; day 2: one at 08:00. All with their own time.
            var likes = (0..<24).map { PersonLike(postID: PostID(100 + $0), likedAt: Self.at(0, 21, $0), isExact: true) }
            likes.append(PersonLike(postID: 200, likedAt: Self.at(2, 8, 0), isExact: true))
            try await database.likes.recordPersonLikes(likes)
            let planner = LikePlanner(likes: database.likes, archive: archive)
            var counts: [Int: Int] = [:]
            for index in 0..<300 {
                var generator = SplitMix64(seed: UInt64(index))
                let date = LocalTime(of: Self.at(0, 12, 0).addingTimeInterval(Double(index) * 86_400), in: Self.tokyo).day
                let (plan, basis) = try await planner.plan(for: date, using: &generator)
                #expect(plan.minutes.allSatisfy { (21 * 60..<21 * 60 + 24).contains($0) || $0 == 8 * 60 }, "\(plan.minutes)")
                #expect(Set(plan.minutes).count == plan.count)
                #expect(basis.minutesFromLikes && !basis.countsFromPosts && basis.days == 3 && basis.likes == 25)
                counts[plan.count, default: 0] += 1
            }
            #expect(Set(counts.keys) == [24, 0, 1], "\(counts)")
            // A third of the days each, near enough: the days are spread evenly over the person's.
            #expect(counts.values.allSatisfy { (95...105).contains($0) }, "\(counts)")
            var first = SplitMix64(seed: 7)
            var second = SplitMix64(seed: 7)
            #expect(try await planner.plan(for: "d", using: &first).plan == planner.plan(for: "d", using: &second).plan)
        }
    }

    @Test(
        "Likes without their time count days by the liked post's day, and the minutes are the person's posting minutes; with no like known, the posting days"
    )
    func fallbacks() async throws {
        try await TestServers.withIsolatedDatabase(.memory) { database async throws in
            let archive = database.archive(timeZone: Self.tokyo, rowLimit: 1000)
            try await archive.insert([
                ArchivedPost(postID: 1, text: "a", createdAt: Self.at(0, 7, 0)),
                ArchivedPost(postID: 2, text: "b", createdAt: Self.at(0, 7, 30)),
            ])
            let planner = LikePlanner(likes: database.likes, archive: archive)
            var generator = SplitMix64(seed: 1)
            let (fromPosts, postsBasis) = try await planner.plan(for: "d", using: &generator)
            #expect(postsBasis.countsFromPosts && fromPosts.minutes == [420, 450], "no like known: one posting day of two posts")
            #expect(postsBasis.summary.contains("train classifier"))
            try await database.likes.recordPersonLikes([
                PersonLike(postID: 5, likedAt: Self.at(0, 23, 0), isExact: false),
                PersonLike(postID: 6, likedAt: Self.at(0, 23, 30), isExact: false),
                PersonLike(postID: 7, likedAt: Self.at(0, 23, 50), isExact: false),
            ])
            for seed in 0..<20 as Range<UInt64> {
                var generator = SplitMix64(seed: seed)
                let (plan, basis) = try await planner.plan(for: "d", using: &generator)
                #expect(plan.count == 3 && !basis.minutesFromLikes && !basis.countsFromPosts)
                // Three minutes wanted, two seen: the third lies within half an hour of them.
                #expect(plan.minutes.allSatisfy { (390...480).contains($0) }, "\(plan.minutes)")
            }
        }
    }
}
