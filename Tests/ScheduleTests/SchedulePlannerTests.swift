import Foundation
import Schedule
import Stores
import TestSupport
import Testing

@Suite("Planning a day from the archive")
struct SchedulePlannerTests {
    @Test("The plan's count comes from the human's days and its minutes from their non-reply posting minutes")
    func planFromArchive() async throws {
        try await TestServers.withIsolatedDatabase { database async throws in
            let tokyo = TimeZone(identifier: "Asia/Tokyo")!
            let archive = database.archive(timeZone: tokyo, rowLimit: 1000)
            try await archive.prepare()
            // Day 1: 3 posts at 07:00, 07:30, 22:00 Tokyo; day 2: none; day 3: 1 post at 12:00; replies at 03:00.
            let base = Date(timeIntervalSince1970: 1_717_167_600)  // 2024-06-01 00:00 Tokyo
            func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date { base.addingTimeInterval(Double(day * 86_400 + hour * 3_600 + minute * 60)) }
            try await archive.insert([
                ArchivedPost(postID: 1, text: "a", createdAt: at(0, 7, 0)),
                ArchivedPost(postID: 2, text: "b", createdAt: at(0, 7, 30)),
                ArchivedPost(postID: 3, text: "c", createdAt: at(0, 22, 0)),
                ArchivedPost(postID: 4, text: "d", createdAt: at(2, 12, 0)),
                ArchivedPost(postID: 5, text: "@x e", replyUserID: 9, createdAt: at(0, 3, 0)),
                ArchivedPost(postID: 6, text: "@x f", replyUserID: 9, createdAt: at(1, 3, 0)),
            ])
            let planner = SchedulePlanner(archive: archive, maxPostsPerDay: 50)
            var counts: [Int: Int] = [:]
            for seed in 0..<300 as Range<UInt64> {
                var generator = SplitMix64(seed: seed)
                let plan = try await planner.plan(for: "2026-11-22", using: &generator)
                #expect(Set(plan.minutes).isSubset(of: [420, 450, 1320, 720]))
                #expect(plan.minutes.count == plan.count)
                #expect(plan.timeZone == "Asia/Tokyo")
                counts[plan.count, default: 0] += 1
            }
            #expect(Set(counts.keys) == [3, 0, 1])  // the quiet day counts as 0; replies never count
            var first = SplitMix64(seed: 77)
            var second = SplitMix64(seed: 77)
            #expect(try await planner.plan(for: "d", using: &first) == planner.plan(for: "d", using: &second))
            let capped = SchedulePlanner(archive: archive, maxPostsPerDay: 2)
            for seed in 0..<50 as Range<UInt64> {
                var generator = SplitMix64(seed: seed)
                #expect(try await capped.plan(for: "d", using: &generator).count <= 2)
            }
        }
    }

    @Test("The day of a moment is counted in the human's zone")
    func dayInZone() {
        let moment = Date(timeIntervalSince1970: 1_717_174_800)  // 2024-05-31 17:00 UTC = 2024-06-01 02:00 Tokyo
        #expect(SchedulePlanner.day(of: moment, in: TimeZone(identifier: "Asia/Tokyo")!) == "2024-06-01")
        #expect(SchedulePlanner.day(of: moment, in: TimeZone(identifier: "UTC")!) == "2024-05-31")
    }
}
