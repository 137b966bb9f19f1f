public import Foundation

/// How long the word counts remember which posts they learned as `normal` (the bot's timeline, thousands a day at
/// 200 followed accounts): weeks, in buckets of a week (days since 1970 / 7). A post is read again only when a
/// timeline's cursor is lost, so weeks are plenty; markers of likes are few and kept for good.
public enum LearnedMarkers {
    /// Weeks of `normal` markers kept: the current week's and the four before.
    public static let normalWeeks = 5

    /// The week of `date`: whole weeks since 1970-01-01.
    public static func week(of date: Date) -> Int { Int((date.timeIntervalSince1970 / 86_400 / 7).rounded(.down)) }
}
