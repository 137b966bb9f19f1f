public import Stores
import Foundation
import BotClock

/// How many posts the human makes per calendar day, from which the bot's count for a day is drawn.
///
/// Days without a post count, from the archive's first day to its last: a human who posts every other day gets a
/// bot that posts every other day. (The original grouped stored tweets by date, so quiet days never came up and
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
                  let date = calendar.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day)) else { return nil }
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

    /// The mean posts per day.
    public var mean: Double { counts.isEmpty ? 0 : Double(counts.reduce(0, +)) / Double(counts.count) }
}
