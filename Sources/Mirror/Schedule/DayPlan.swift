/// The minutes of one day at which the bot posts, in the human's time zone.
public struct DayPlan: Sendable, Equatable, Codable {
    /// The day, `YYYY-MM-DD`.
    public var date: String
    /// The IANA zone the minutes are in.
    public var timeZone: String
    /// How many posts.
    public var count: Int
    /// Minutes of the day (0–1439), ascending, distinct.
    public var minutes: [Int]

    /// A plan from its parts.
    public init(date: String, timeZone: String, minutes: [Int]) {
        self.date = date
        self.timeZone = timeZone
        self.count = minutes.count
        self.minutes = minutes
    }

    enum CodingKeys: String, CodingKey {
        case date, count, minutes
        case timeZone = "time_zone"
    }
}
