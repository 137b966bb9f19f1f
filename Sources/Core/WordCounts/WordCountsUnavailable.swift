/// The word counts' store could not be reached or written (Redis down, the SQLite file locked or unreadable), in
/// words that do not depend on which store it is: services pause on it and try again.
public struct WordCountsUnavailable: Error, CustomStringConvertible {
    /// Which store, without secrets ("Redis at redis://host:6379/0", "the SQLite file bot.sqlite").
    public var store: String
    /// What went wrong.
    public var reason: String

    /// An error from its parts.
    public init(store: String, reason: String) {
        self.store = store
        self.reason = reason
    }

    /// One readable line.
    public var description: String { "The word counts in \(store) cannot be used: \(reason)" }
}
