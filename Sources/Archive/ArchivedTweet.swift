public import Foundation

/// One of the human's tweets as the archive keeps it. Retweets are never archived.
public struct ArchivedTweet: Sendable, Equatable, Hashable {
    /// The tweet's X id.
    public var tweetID: Int64
    /// The tweet's text, with HTML entities decoded and t.co links expanded by whoever stores it.
    public var text: String
    /// The user the tweet replies to, or nil for a tweet that is not a reply.
    public var replyUserID: Int64?
    /// When the tweet was posted.
    public var createdAt: Date
    /// Its content warning (Mastodon's `spoiler_text`), kept when `POST_CW=true`; nil for a post without one.
    public var contentWarning: String?

    /// `replyUserID` of a reply whose addressee no one can name (a Mastodon export's reply to an account the
    /// person's instance does not know): never a post, never an answer to a mentioner, a fallback at most.
    public static let unknownReplyTarget: Int64 = -1

    /// A tweet from its parts.
    public init(tweetID: Int64, text: String, replyUserID: Int64? = nil, createdAt: Date, contentWarning: String? = nil) {
        self.tweetID = tweetID
        self.text = text
        self.replyUserID = replyUserID
        self.createdAt = createdAt
        self.contentWarning = contentWarning
    }
}

/// How many tweets the human posted on one calendar day of their time zone.
public struct DayCount: Sendable, Equatable {
    /// The day as `YYYY-MM-DD` in the human's zone.
    public var day: String
    /// Tweets posted that day.
    public var count: Int

    /// A count from its parts.
    public init(day: String, count: Int) {
        self.day = day
        self.count = count
    }
}
