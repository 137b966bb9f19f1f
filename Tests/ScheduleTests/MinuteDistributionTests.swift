import BotClock
import Foundation
import Schedule
import Testing

@Suite("Drawing the day's minutes")
struct MinuteDistributionTests {
    func histogram(_ entries: [Int: Int]) -> [Int] {
        var histogram = [Int](repeating: 0, count: 1440)
        for (minute, count) in entries { histogram[minute] = count }
        return histogram
    }

    @Test("Bisection finds the minute whose cumulative range holds a point")
    func bisection() {
        let distribution = MinuteDistribution(histogram: histogram([0: 2, 10: 3, 1439: 1]))
        #expect(distribution.total == 6)
        #expect([0, 1, 2, 3, 4, 5].map(distribution.minute(at:)) == [0, 0, 10, 10, 10, 1439])
        #expect(distribution.probability(of: 10) == 0.5)
    }

    @Test("Minutes are distinct, ascending, as many as asked, and at most as many as have weight")
    func distinctAndCapped() {
        let distribution = MinuteDistribution(histogram: histogram([5: 1, 6: 1, 700: 10, 1439: 2]))
        for seed in 0..<200 as Range<UInt64> {
            var generator = SplitMix64(seed: seed)
            let minutes = distribution.drawWithoutReplacement(count: 3, using: &generator)
            #expect(minutes.count == 3)
            #expect(Set(minutes).count == 3)
            #expect(minutes == minutes.sorted())
        }
        var generator = SplitMix64(seed: 1)
        #expect(distribution.drawWithoutReplacement(count: 50, using: &generator) == [5, 6, 700, 1439])
        #expect(MinuteDistribution(histogram: []).drawWithoutReplacement(count: 5, using: &generator) == [])
    }

    @Test("Minute 1439 is reachable, and removing a drawn minute shifts nothing (the original's two bugs)")
    func originalBugsAreGone() {
        // Almost all weight on 23:59: the original never drew it.
        let late = MinuteDistribution(histogram: histogram([1439: 99, 0: 1]))
        var drawnLate = 0
        for seed in 0..<100 as Range<UInt64> {
            var generator = SplitMix64(seed: seed)
            if late.drawWithoutReplacement(count: 1, using: &generator) == [1439] { drawnLate += 1 }
        }
        #expect(drawnLate > 90)
        // Two minutes with weight: drawing both always gives exactly them, never a neighbour of a removed index.
        let pair = MinuteDistribution(histogram: histogram([100: 1000, 200: 1]))
        for seed in 0..<100 as Range<UInt64> {
            var generator = SplitMix64(seed: seed)
            #expect(pair.drawWithoutReplacement(count: 2, using: &generator) == [100, 200])
        }
    }

    @Test("Single draws follow the human's distribution")
    func followsDistribution() {
        let distribution = MinuteDistribution(histogram: histogram([60: 6, 720: 3, 1380: 1]))
        var tally: [Int: Int] = [:]
        var generator = SplitMix64(seed: 2024)
        let draws = 20_000
        for _ in 0..<draws { tally[distribution.drawWithoutReplacement(count: 1, using: &generator)[0], default: 0] += 1 }
        for (minute, share) in [(60, 0.6), (720, 0.3), (1380, 0.1)] {
            #expect(abs(Double(tally[minute] ?? 0) / Double(draws) - share) < 0.015, "minute \(minute)")
        }
        #expect(tally.count == 3)
    }

    @Test("Daily counts fill quiet days with zeros; draws come from them, capped")
    func dailyCounts() {
        let days = DailyPostCounts(days: [.init(day: "2024-02-28", count: 4), .init(day: "2024-03-02", count: 2)])
        #expect(days.counts == [4, 0, 0, 2])  // 2024 is a leap year: Feb 29 and Mar 1 are quiet
        #expect(days.mean == 1.5)
        var tally: [Int: Int] = [:]
        var generator = SplitMix64(seed: 9)
        for _ in 0..<5_000 { tally[days.draw(cap: 3, using: &generator), default: 0] += 1 }
        #expect(Set(tally.keys) == [0, 2, 3])
        #expect(abs(Double(tally[0] ?? 0) / 5_000 - 0.5) < 0.03)
        #expect(DailyPostCounts(days: []).draw(cap: 50, using: &generator) == 0)
    }

    @Test("Evenly spread counts: each one of the person's, any 30 days in a row averaging within 12% of their mean (independent draws: up to 49%)")
    func evenlySpreadCounts() {
        #expect(DailyPostCounts.dayNumber(of: "1970-01-01") == 0)
        #expect(DailyPostCounts.dayNumber(of: "1969-12-31") == -1)
        #expect(DailyPostCounts.dayNumber(of: "2000-03-01") == 11_017)
        #expect(DailyPostCounts.dayNumber(of: "2026-11-22") == 20_779)
        #expect(DailyPostCounts.dayNumber(of: "2026-13-01") == nil && DailyPostCounts.dayNumber(of: "yesterday") == nil)
        // A person of 180 days: a sixth quiet, the others 1 to 9.
        var generator = SplitMix64(seed: 3)
        let counts = (0..<180).map { _ in Int.random(in: 0..<6, using: &generator) == 0 ? 0 : Int.random(in: 1...9, using: &generator) }
        let person = DailyPostCounts(counts: counts)
        let days = (0..<400).map { LocalTime(of: Date(timeIntervalSince1970: 1_767_225_600 + Double($0) * 86_400), in: .gmt).day }
        let drawn = days.map { person.evenlySpreadCount(on: $0, cap: 1_440) ?? -1 }
        #expect(drawn.allSatisfy { counts.contains($0) })
        #expect(drawn.contains(0) && drawn.contains(9), "quiet days and the busiest come up")
        var worst = 0.0
        for start in 0...(drawn.count - 30) {
            let mean = Double(drawn[start..<start + 30].reduce(0, +)) / 30
            worst = max(worst, abs(mean / person.mean - 1))
        }
        #expect(worst < 0.12, "the worst 30 days' mean is \(worst * 100)% off")
        #expect(person.evenlySpreadCount(on: "2026-11-22", cap: 2)! <= 2)
        #expect(DailyPostCounts(counts: []).evenlySpreadCount(on: "2026-11-22", cap: 5) == 0)
        #expect(person.evenlySpreadCount(on: "not a day", cap: 5) == nil)
    }

    @Test("Plans print as clock times and encode as the documented JSON")
    func planJSON() throws {
        let plan = DayPlan(date: "2026-11-22", timeZone: "Asia/Tokyo", minutes: [7, 1439])
        #expect(LocalTime.clockTime(7) == "00:07")
        #expect(LocalTime.clockTime(1439) == "23:59")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(
            String(decoding: try encoder.encode(plan), as: UTF8.self)
                == #"{"count":2,"date":"2026-11-22","minutes":[7,1439],"time_zone":"Asia\/Tokyo"}"#)
    }
}
