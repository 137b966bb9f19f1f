import BotClock
public import Foundation
public import Stores

/// Draws the day's posting plan from the archive: how many posts (a day's count of the human's, see
/// `DailyPostCounts`) and at which minutes (the human's minute distribution, without replacement).
///
/// Only the human's non-reply posts count: the schedule posts non-replies, while replies follow mentions.
public struct SchedulePlanner: Sendable {
    /// The human's posts.
    public let archive: any PostArchive
    /// Most posts in a day (`MAX_POSTS_PER_DAY`).
    public let maxPostsPerDay: Int

    /// A planner over `archive`.
    public init(archive: any PostArchive, maxPostsPerDay: Int) {
        self.archive = archive
        self.maxPostsPerDay = maxPostsPerDay
    }

    /// The plan for `date` (`YYYY-MM-DD` in the archive's zone), with choices from `generator`. Two SQL queries.
    public func plan(for date: String, using generator: inout some RandomNumberGenerator) async throws -> DayPlan {
        let distribution = MinuteDistribution(histogram: try await archive.minuteHistogram(includingReplies: false))
        let days = DailyPostCounts(days: try await archive.postsPerDay(includingReplies: false))
        let count = days.draw(cap: maxPostsPerDay, using: &generator)
        let minutes = distribution.drawWithoutReplacement(count: count, using: &generator)
        return DayPlan(date: date, timeZone: archive.timeZone.identifier, minutes: minutes)
    }

    /// Today's date (`YYYY-MM-DD`) in `timeZone` at `now`.
    public static func day(of now: Date, in timeZone: TimeZone) -> String {
        LocalTime(of: now, in: timeZone).day
    }
}
