public import Foundation

/// Something a network may refuse an app as a whole.
public enum NetworkCapability: String, Sendable, CaseIterable {
    /// Liking and taking back likes.
    case likes
}

/// A refusal by the network that lasts until a check.
public struct NetworkRefusal: Sendable, Equatable {
    /// When the network first refused.
    public var since: Date
    /// When one call checks again.
    public var recheckAt: Date
    /// What was refused, in the network's words (an endpoint).
    public var what: String
    /// What the network said.
    public var detail: String

    /// A refusal from its parts.
    public init(since: Date, recheckAt: Date, what: String, detail: String) {
        self.since = since
        self.recheckAt = recheckAt
        self.what = what
        self.detail = detail
    }
}

/// What a call is for, in the order a paid network's daily budget sheds work: learning first, posts last.
public enum Work: Int, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    /// Learning from the person: their new posts, their home timeline, their likes.
    case learning
    /// Reading the bot's timeline and liking.
    case liking
    /// Reading mentions and answering them.
    case replies
    /// The scheduled posts (and what the bot needs to start: who the accounts are).
    case posts

    /// Ordered as shed: learning first, posts last.
    public static func < (lhs: Work, rhs: Work) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Its name in log lines.
    public var description: String {
        switch self {
        case .learning: "learning from the person"
        case .liking: "liking"
        case .replies: "replies"
        case .posts: "scheduled posts"
        }
    }
}

/// Reading planned by a one-shot training, for its cost to be said before the first paid call.
public enum PlannedReading: Sendable, Equatable {
    /// The person's user once, then up to this many of their own posts.
    case personsPosts(Int)
    /// The person's user, up to this many of their likes and of their home timeline's posts, with their authors.
    case likesAndTimeline(likes: Int, timeline: Int)
}

/// The most something may cost on a paid network.
public struct NetworkCost: Sendable, Equatable {
    /// At most this, in US dollars.
    public var dollars: Double
    /// What is read, in words, with each part's price.
    public var parts: [String]

    /// A cost from its parts.
    public init(dollars: Double, parts: [String]) {
        self.dollars = dollars
        self.parts = parts
    }

    /// "at most $0.91: up to 900 of your own posts at $0.001 (owned reads), your user once at $0.010".
    public var summary: String { String(format: "at most $%.2f: ", dollars) + parts.joined(separator: ", ") }
}
