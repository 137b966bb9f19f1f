import BotClock
import Foundation
public import Stores

/// Draws the day's like plan as `SchedulePlanner` draws its posts: how many likes (the count of one of the person's
/// own days of liking, quiet days included, chosen so that a run of days averages theirs) and at which minutes (the
/// minutes the person likes in, where the network said when they liked; else the minutes they post in).
public struct LikePlanner: Sendable {
    /// Fewest likes with their own time before their minutes are the plan's; below it, the posting minutes are.
    public static let fewestTimedLikes = 20

    /// The person's likes.
    public let likes: any LikeLog
    /// The person's posts (their zone, and their minutes where like times are not known).
    public let archive: any PostArchive

    /// A planner over the person's `likes` and `archive`.
    public init(likes: any LikeLog, archive: any PostArchive) {
        self.likes = likes
        self.archive = archive
    }

    /// What a plan was drawn from, for the log and the status page.
    public struct Basis: Sendable, Equatable {
        /// The person's likes it counted.
        public var likes: Int
        /// Of them, those with their own time (the others are dated by the liked post).
        public var timedLikes: Int
        /// Days counted, quiet ones included.
        public var days: Int
        /// The person's mean likes a day over those days.
        public var meanPerDay: Double
        /// Whether the minutes are the person's liking minutes (false: their posting minutes).
        public var minutesFromLikes: Bool
        /// Whether the counts are the person's posting days, no like being known.
        public var countsFromPosts: Bool

        /// One line for the log.
        public var summary: String {
            if countsFromPosts {
                return
                    "no like of the person's is stored (run `mirror_bot train classifier --force` to learn them): counts and minutes are their posting days'"
            }
            return String(format: "from %d likes of the person's over %d days (%.1f a day), ", likes, days, meanPerDay)
                + (minutesFromLikes
                    ? "at the minutes they like in (\(timedLikes) with their time)"
                    : "at the minutes they post in (\(timedLikes) likes with their time, fewer than \(LikePlanner.fewestTimedLikes))")
        }
    }

    /// The like plan for `date` (`YYYY-MM-DD` in the archive's zone), with choices from `generator`, and what it was
    /// drawn from.
    public func plan(for date: String, using generator: inout some RandomNumberGenerator) async throws -> (plan: DayPlan, basis: Basis) {
        let zone = archive.timeZone
        let known = try await likes.personLikes()
        let days: DailyPostCounts
        var basis = Basis(
            likes: known.count, timedLikes: known.filter(\.isExact).count, days: 0, meanPerDay: 0, minutesFromLikes: false,
            countsFromPosts: known.isEmpty)
        if known.isEmpty {
            days = DailyPostCounts(days: try await archive.postsPerDay(includingReplies: true))
        } else {
            let perDay = Dictionary(grouping: known) { LocalTime(of: $0.likedAt, in: zone).day }
            days = DailyPostCounts(days: perDay.map { DayCount(day: $0.key, count: $0.value.count) })
        }
        basis.days = days.counts.count
        basis.meanPerDay = days.mean
        let distribution: MinuteDistribution
        if basis.timedLikes >= Self.fewestTimedLikes {
            var histogram = [Int](repeating: 0, count: MinuteDistribution.minutesPerDay)
            for like in known where like.isExact { histogram[LocalTime(of: like.likedAt, in: zone).minute] += 1 }
            distribution = MinuteDistribution(histogram: histogram)
            basis.minutesFromLikes = true
        } else {
            distribution = MinuteDistribution(histogram: try await archive.minuteHistogram(includingReplies: true))
        }
        // Spread evenly over the days (see `evenlySpreadCount`): a month of likes averages the person's month, where
        // independent draws left it up to a fifth short.
        let count =
            days.evenlySpreadCount(on: date, cap: MinuteDistribution.minutesPerDay)
            ?? days.draw(cap: MinuteDistribution.minutesPerDay, using: &generator)
        let minutes = Self.minutes(count, from: distribution, using: &generator)
        return (DayPlan(date: date, timeZone: zone.identifier, minutes: minutes), basis)
    }

    /// `count` distinct minutes following `distribution`: drawn without replacement from the minutes it has seen, and
    /// when a day holds more likes than it has minutes (a small history), the rest near those minutes.
    static func minutes(_ count: Int, from distribution: MinuteDistribution, using generator: inout some RandomNumberGenerator) -> [Int] {
        var minutes = Set(distribution.drawWithoutReplacement(count: count, using: &generator))
        guard distribution.total > 0 else { return [] }
        var attempts = 0
        while minutes.count < count && attempts < 100 * count {
            attempts += 1
            let near =
                distribution.minute(at: Int.random(in: 0..<distribution.total, using: &generator)) + Int.random(in: -30...30, using: &generator)
            minutes.insert((near + MinuteDistribution.minutesPerDay) % MinuteDistribution.minutesPerDay)
        }
        return minutes.sorted()
    }
}
