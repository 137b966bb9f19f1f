import BotClock
import Foundation
public import Stores

/// How many posts the human makes per calendar day, from which the bot's count for a day is drawn.
///
/// Days without a post count, from the archive's first day to its last: a human who posts every other day gets a
/// bot that posts every other day. (The original grouped stored posts by date, so quiet days never came up and
/// its bot posted more often than its human.) Days outside the archive's span are unknown and not counted.
public struct DailyPostCounts: Sendable, Equatable {
    /// Posts per day, one entry per calendar day of the span, quiet days as 0.
    public let counts: [Int]

    /// The counts of days that have posts (`YYYY-MM-DD`, any order), with the days between them filled with zeros.
    public init(days: [DayCount]) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parsed: [(Date, Int)] = days.compactMap { day in
            guard let parts = LocalTime.parts(ofDay: day.day),
                let date = calendar.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day))
            else { return nil }
            return (date, day.count)
        }
        guard let first = parsed.map(\.0).min(), let last = parsed.map(\.0).max() else {
            counts = []
            return
        }
        let span = (calendar.dateComponents([.day], from: first, to: last).day ?? 0) + 1
        var counts = [Int](repeating: 0, count: span)
        for (date, count) in parsed {
            counts[calendar.dateComponents([.day], from: first, to: date).day ?? 0] += count
        }
        self.counts = counts
    }

    /// Counts as they are (for tests).
    public init(counts: [Int]) { self.counts = counts }

    /// The count of a uniformly chosen day, at most `cap`; 0 when nothing is known.
    public func draw(cap: Int, using generator: inout some RandomNumberGenerator) -> Int {
        guard let count = counts.randomElement(using: &generator) else { return 0 }
        return min(count, max(0, cap))
    }

    /// The count of the day at quantile `position` (0 ..< 1) of the days sorted by count (quiet days first, the
    /// busiest last), at most `cap`; 0 when nothing is known.
    public func count(atQuantile position: Double, cap: Int) -> Int {
        let sorted = counts.sorted()
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, max(0, Int(position * Double(sorted.count))))
        return min(sorted[index], max(0, cap))
    }

    /// The count for `day` (`YYYY-MM-DD`), one of the known days' as `draw` gives, but spread evenly over a run of
    /// days: day number n (since 1970-01-01) takes the quantile n × (√5 − 1) / 2, modulo 1 (a golden-ratio sequence,
    /// whose successive values fill 0 ..< 1 about as evenly as a sequence can). 30 days in a row then average within
    /// 3% of the mean at the median, 6% one time in ten and never much past 10% (independent draws: 9%, 22% and 49%,
    /// for people of 180 days, a sixth quiet); the days still come in no visible order, quiet ones included. nil when
    /// `day` is not a day.
    public func evenlySpreadCount(on day: String, cap: Int) -> Int? {
        guard let number = Self.dayNumber(of: day) else { return nil }
        let golden = (5.0.squareRoot() - 1) / 2
        let position = (Double(number) * golden).truncatingRemainder(dividingBy: 1)
        return count(atQuantile: position < 0 ? position + 1 : position, cap: cap)
    }

    /// Days from 1970-01-01 to `day` (`YYYY-MM-DD`), in the proleptic Gregorian calendar; nil when it is not a day.
    public static func dayNumber(of day: String) -> Int? {
        guard let parts = LocalTime.parts(ofDay: day), (1...12).contains(parts.month), (1...31).contains(parts.day) else { return nil }
        // Days from civil (Howard Hinnant's algorithm): exact for every Gregorian date, with no calendar object.
        let year = parts.month <= 2 ? parts.year - 1 : parts.year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (parts.month + (parts.month > 2 ? -3 : 9)) + 2) / 5 + parts.day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The mean posts per day.
    public var mean: Double { counts.isEmpty ? 0 : Double(counts.reduce(0, +)) / Double(counts.count) }
}
