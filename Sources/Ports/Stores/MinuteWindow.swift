/// The minutes of the day within ±`radius` of a minute, as at most two closed ranges of 0...1439: a window that
/// crosses midnight wraps around (23:50 ± 30 covers 23:20...23:59 and 0:00...0:20).
public struct MinuteWindow: Sendable, Equatable {
    /// Minutes in a day.
    public static let minutesPerDay = 1440

    /// The first range; the whole day when the window covers it.
    public var first: ClosedRange<Int>
    /// The part after wrapping around midnight, if any.
    public var second: ClosedRange<Int>?

    /// The window of `radius` minutes either side of `minute` (taken modulo a day).
    public init(around minute: Int, radius: Int) {
        let day = Self.minutesPerDay
        let center = ((minute % day) + day) % day
        let radius = max(0, radius)
        if radius * 2 + 1 >= day {
            first = 0...(day - 1)
            second = nil
        } else if center - radius < 0 {
            first = 0...(center + radius)
            second = (center - radius + day)...(day - 1)
        } else if center + radius >= day {
            first = (center - radius)...(day - 1)
            second = 0...(center + radius - day)
        } else {
            first = (center - radius)...(center + radius)
            second = nil
        }
    }

    /// Whether `minute` lies in the window.
    public func contains(_ minute: Int) -> Bool {
        first.contains(minute) || (second?.contains(minute) ?? false)
    }
}
