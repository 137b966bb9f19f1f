public import Foundation

/// A moment on the local clock of a zone: its minute of the day and its calendar day (what Postgres's `AT TIME ZONE`
/// gives). The one place the bot's time-of-day and day strings are written: how the archive files posts in SQLite,
/// the schedule names days and slots, the picker finds the minute to post at, and X's billing day is named.
public struct LocalTime: Sendable, Equatable {
    /// 0 is 00:00, 1439 is 23:59.
    public var minute: Int
    /// `YYYY-MM-DD`.
    public var day: String

    /// `date` on the clocks of `zone` (DST included).
    public init(of date: Date, in zone: TimeZone) {
        let parts = Self.calendar(in: zone).dateComponents([.year, .month, .day, .hour, .minute], from: date)
        minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        day = Self.dayString(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0)
    }

    /// `HH:MM` of the moment.
    public var clockTime: String { Self.clockTime(minute) }

    /// `HH:MM` of a minute of the day (0 → `00:00`, 1439 → `23:59`).
    public static func clockTime(_ minute: Int) -> String {
        String(format: "%02d:%02d", minute / 60, minute % 60)
    }

    /// The UTC day (`YYYY-MM-DD`) of `date`: X bills by it.
    public static func utcDay(of date: Date) -> String { LocalTime(of: date, in: .gmt).day }

    /// Year, month and day of a `YYYY-MM-DD` day (ASCII digits, a day the calendar has); nil when it is not one.
    public static func parts(ofDay day: String) -> (year: Int, month: Int, day: Int)? {
        let fields = day.split(separator: "-", omittingEmptySubsequences: false)
        // ASCII digits only, no sign: `Int` reads "+1", and other scripts' digits are no day's.
        guard fields.map(\.utf8.count) == [4, 2, 2], fields.allSatisfy({ $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }) else { return nil }
        let parts = fields.compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]), (1...daysIn(month: parts[1], of: parts[0])).contains(parts[2]) else { return nil }
        return (parts[0], parts[1], parts[2])
    }

    /// The days of `month` (1–12) of `year` in the Gregorian calendar.
    static func daysIn(month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The moment of `minute` of `day` (`YYYY-MM-DD`) in `zone`; a minute that does not exist on a DST day (spring
    /// forward) is the next one that does. Nil when `day` is not a day.
    public static func date(of minute: Int, on day: String, in zone: TimeZone) -> Date? {
        guard let parts = parts(ofDay: day) else { return nil }
        return calendar(in: zone).date(
            from: DateComponents(
                year: parts.year, month: parts.month, day: parts.day, hour: minute / 60,
                minute: minute % 60))
    }

    /// `YYYY-MM-DD`.
    static func dayString(year: Int, month: Int, day: Int) -> String { String(format: "%04d-%02d-%02d", year, month, day) }

    /// The Gregorian calendar in `zone`.
    static func calendar(in zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
