public import Foundation

/// A moment's minute of the day and calendar day on the local clock of a zone (what Postgres's `AT TIME ZONE` gives):
/// how the archive files tweets in SQLite, the schedule names days and the picker finds the minute to post at.
public struct LocalTime: Sendable, Equatable {
    /// 0 is 00:00, 1439 is 23:59.
    public var minute: Int
    /// `YYYY-MM-DD`.
    public var day: String

    /// `date` on the clocks of `zone` (DST included).
    public init(of date: Date, in zone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        day = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
