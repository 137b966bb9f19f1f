public import Stores
public import Consent
public import Foundation
public import Logging
import BotClock

/// Chooses what the bot posts at a given moment: one of the human's own tweets written around the same time of day.
///
/// Rules: a non-reply tweet (retweets are never archived) written within ±30 minutes of the current minute of the
/// day, circularly; when there is none, the window widens step by step (±60, ±120, ±240, ±480 minutes, then the
/// whole day) instead of failing, as the original did. Never a tweet the bot posted in the last
/// `repostAfterDays`, nor another with the same text (a person repeats themselves; a network that refuses no
/// duplicates, as Mastodon, would show the copy saying it twice); never a tweet that @-mentions someone unless `allowsMentions` (a copy must not ping strangers);
/// never one that contains a link unless `allowsLinks` (on X a post with a link costs $0.200 instead of $0.015).
/// Never one with a word of `blockedWords` (`BLOCKED_WORDS`, case- and width-insensitive).
/// On a network that refuses a repeat within a window (X: a day), nothing posted within that window either, even with
/// a shorter `repostAfterDays`: the bot knows its own posts and never asks for what would be refused.
public struct PostPicker: Sendable {
    /// A chosen tweet and how wide the window had to be.
    public struct Pick: Sendable, Equatable {
        /// The human's tweet to post again.
        public var tweet: ArchivedTweet
        /// The window's half-width in minutes when it was found.
        public var radius: Int
    }

    /// The window half-widths tried in order.
    public static let radii = [30, 60, 120, 240, 480, 720]

    /// The human's tweets.
    public let archive: any TweetArchive
    /// Days before the bot may post the same tweet again (`REPOST_AFTER_DAYS`).
    public let repostAfterDays: Int
    /// Whether tweets with @-mentions may be posted (`POST_MENTIONS`).
    public let allowsMentions: Bool
    /// Whether tweets with links may be posted (`POST_LINKS`).
    public let allowsLinks: Bool
    /// How long the network refuses a text the account already posted (`NetworkCapabilities.refusesRepeatsWithin`).
    public let repeatWindow: TimeInterval?
    /// Words a post must not contain (`BLOCKED_WORDS`).
    public let blockedWords: WordList
    private let logger: Logger

    /// Posts drawn per window before it is widened, when each one drawn has a blocked word.
    static let drawsPerWindow = 20

    /// A picker over `archive`.
    public init(archive: any TweetArchive, repostAfterDays: Int, allowsMentions: Bool, allowsLinks: Bool = true,
                repeatWindow: TimeInterval? = nil, blockedWords: WordList = WordList([]), logger: Logger) {
        self.archive = archive
        self.blockedWords = blockedWords
        self.repostAfterDays = repostAfterDays
        self.repeatWindow = repeatWindow
        self.allowsMentions = allowsMentions
        self.allowsLinks = allowsLinks
        self.logger = logger
    }

    /// A tweet to post at `now`, not one in `excluded` (for example one X just refused as a duplicate); nil, with
    /// a log line saying why, when the archive has nothing postable.
    public func pick(at now: Date, excluding excluded: Set<Int64> = [],
                     using generator: inout some RandomNumberGenerator) async throws -> Pick? {
        let minute = Self.minuteOfDay(now, in: archive.timeZone)
        let postedSince = now.addingTimeInterval(-max(Double(repostAfterDays) * 86_400, repeatWindow ?? 0))
        var excluded = excluded
        var blocked = 0
        for radius in Self.radii {
            for _ in 0..<Self.drawsPerWindow {
                guard let tweet = try await archive.randomTweet(
                    nearMinute: minute, radius: radius, excluding: excluded, allowingMentions: allowsMentions,
                    allowingLinks: allowsLinks, notPostedSince: postedSince, using: &generator) else { break }
                if let word = blockedWords.firstMatch(in: tweet.text) {
                    logger.debug("not posting the human's tweet \(tweet.tweetID): it contains the blocked word \"\(word)\"")
                    excluded.insert(tweet.tweetID)
                    blocked += 1
                    continue
                }
                if radius > Self.radii[0] {
                    logger.info("No tweet of the human within ±\(Self.radii[0]) minutes of \(LocalTime.clockTime(minute)); took one from ±\(radius)")
                }
                return Pick(tweet: tweet, radius: radius)
            }
        }
        logger.notice("Nothing to post at \(LocalTime.clockTime(minute)): the archive has no postable tweet (empty, all posted in the last \(repostAfterDays) days, or all mention someone\(allowsLinks ? "" : " or contain a link")\(blocked > 0 ? "; \(blocked) drawn had a blocked word" : "")). Run `mirror_bot train scheduler` or `mirror_bot import`.")
        return nil
    }

    /// The minute of the day (0–1439) of `date` in `timeZone`.
    public static func minuteOfDay(_ date: Date, in timeZone: TimeZone) -> Int {
        LocalTime(of: date, in: timeZone).minute
    }

}
