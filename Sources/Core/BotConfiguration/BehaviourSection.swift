public import BotCore
public import Foundation

/// What the bot does and how often: the person's time zone, the day's posts, the answers, the likes and how they are
/// decided, the polls. The daemon's section (the assembly hands it on as the daemon's `DaemonSettings`).
public struct BehaviourSection: ConfigurationSection {
    /// The person's time zone, in which minutes of the day and calendar days are counted (`TZ`, default UTC).
    public var timeZone: TimeZone
    /// Most posts the schedule plans for a day (`MAX_POSTS_PER_DAY`, default 50).
    public var maxPostsPerDay: Int
    /// Days before the bot may post the same post of the person again (`REPOST_AFTER_DAYS`, default 30).
    public var repostAfterDays: Int
    /// Whether the bot may post the person's posts that @-mention people (`POST_MENTIONS`, default false: a copy must
    /// not ping strangers).
    public var postMentions: Bool
    /// `POST_LINKS` as set: whether the bot may post (and reply with) the person's posts that contain a link; nil when
    /// not set, for the network's default (`NetworkModule.postsLinksByDefault`: no on X, where such a post costs about
    /// 20 times a plain one; yes on Mastodon, where it costs nothing).
    public var postLinksSetting: Bool?
    /// What to answer someone the person never replied to (`REPLY_FALLBACK`: `none`, the default, or `any`).
    public var replyFallback: ReplyFallback
    /// Whether the bot likes posts (`LIKES`: `auto`, the default, likes where the network allows it: not on X).
    public var likes: LikesSetting
    /// Whether the bot looks up the person's original before posting a copy, so that a post the person deleted is
    /// dropped from the archive and never posted (`CHECK_ORIGINALS`, default true: on X one read of the person's own
    /// post per copy, about $0.001 as an owned read, $0.005 otherwise; free on Mastodon).
    public var checksOriginals: Bool
    /// A slot missed by more than this while the bot was down is skipped (`MISSED_SLOT_GRACE`, minutes, default 10).
    public var missedSlotGraceMinutes: Int
    /// Answers to one person per hour (`REPLY_LIMIT_PER_USER`, default 3).
    public var replyLimitPerUser: Int
    /// Answers in one conversation (`MAX_THREAD_REPLIES`, default 5).
    public var maxThreadReplies: Int
    /// Seconds between polls of the bot's mentions (`MENTIONS_POLL_SECONDS`, default 60: 15 of 300 allowed reads per 15 min).
    public var mentionsPollSeconds: Int
    /// Seconds between polls of the bot's home timeline (`TIMELINE_POLL_SECONDS`, default 300: 3 of 180 per 15 min).
    public var timelinePollSeconds: Int
    /// Seconds between reads of the person's new posts, timeline and likes (`LEARN_POLL_SECONDS`, default 900).
    public var learnPollSeconds: Int
    /// A post is liked when score(favorite) / score(normal) exceeds this (`FAVORITE_RATE_THRESHOLD` as a number;
    /// with `auto`, the threshold used until a calibration exists: 3.0, the original's).
    public var favoriteRateThreshold: Double
    /// Whether the like threshold is calibrated on the training examples (`FAVORITE_RATE_THRESHOLD=auto`, the default).
    public var calibratesFavoriteThreshold: Bool
    /// Which model decides likes (`CLASSIFIER`).
    public var classifier: ClassifierChoice
    /// `POST_STYLE` as set: copies of the person's posts or remixes of them; nil when not set, for the network's
    /// default (`NetworkModule.postStyleByDefault`: remix on X, whose rules forbid the same content on two accounts).
    public var postStyleSetting: PostStyle?
    /// The remix chain's order: how many morphemes choose the next (`REMIX_ORDER`, 1 to 4, default 2).
    public var remixOrder: Int
    /// The largest share of a remix one run of morphemes shared with one of the person's posts may cover
    /// (`REMIX_MAX_OVERLAP`, above 0 and below 1, default 0.6).
    public var remixMaxOverlap: Double

    /// The threshold of the original bot's code, used when `FAVORITE_RATE_THRESHOLD=auto` has nothing to calibrate on.
    public static let defaultFavoriteRateThreshold = 3.0

    /// `CLASSIFIER`: which naive Bayes model decides likes.
    public enum ClassifierChoice: String, Sendable, CaseIterable {
        /// Chosen by cross-validation with the threshold (the default); with a numeric threshold, the original.
        case auto
        /// The original bot's formula.
        case original
        /// Binary naive Bayes with add-one smoothing and a minimum number of sightings per word.
        case binary
    }

    /// The variables of this section.
    public static let variableNames = [
        "TZ", "MAX_POSTS_PER_DAY", "REPOST_AFTER_DAYS", "POST_MENTIONS", "POST_LINKS", "REPLY_FALLBACK", "LIKES",
        "CHECK_ORIGINALS", "MISSED_SLOT_GRACE", "REPLY_LIMIT_PER_USER", "MAX_THREAD_REPLIES",
        "MENTIONS_POLL_SECONDS", "TIMELINE_POLL_SECONDS", "LEARN_POLL_SECONDS", "FAVORITE_RATE_THRESHOLD",
        "CLASSIFIER", "POST_STYLE", "REMIX_ORDER", "REMIX_MAX_OVERLAP",
    ]

    /// Reads the section.
    public init(reading environment: inout EnvironmentReader) {
        timeZone = TimeZone(identifier: "UTC")!
        if let text = environment.value("TZ") {
            // glibc accepts ":Area/City"; the leading colon is not part of the IANA name.
            let name = text.hasPrefix(":") ? String(text.dropFirst()) : text
            if let zone = TimeZone(identifier: name), name.contains("/") || ["UTC", "GMT"].contains(name) {
                timeZone = zone
            } else {
                environment.malformed("TZ", expected: "an IANA time zone name such as Asia/Tokyo or UTC", shown: text)
            }
        }
        // Bounds that keep every product of these numbers (minutes to seconds, days to dates) far from overflowing.
        maxPostsPerDay = environment.count("MAX_POSTS_PER_DAY", default: 50, allowsZero: true, maximum: 1_440, meaning: "posts")
        repostAfterDays = environment.count("REPOST_AFTER_DAYS", default: 30, allowsZero: true, maximum: 36_500, meaning: "days")
        missedSlotGraceMinutes = environment.count("MISSED_SLOT_GRACE", default: 10, allowsZero: true, maximum: 1_440, meaning: "minutes")
        replyLimitPerUser = environment.count(
            "REPLY_LIMIT_PER_USER", default: 3, allowsZero: true, maximum: 1_000,
            meaning: "answers per person per hour")
        maxThreadReplies = environment.count("MAX_THREAD_REPLIES", default: 5, allowsZero: true, maximum: 1_000, meaning: "answers per conversation")
        mentionsPollSeconds = environment.count("MENTIONS_POLL_SECONDS", default: 60, allowsZero: false, maximum: 604_800, meaning: "seconds")
        timelinePollSeconds = environment.count("TIMELINE_POLL_SECONDS", default: 300, allowsZero: false, maximum: 604_800, meaning: "seconds")
        learnPollSeconds = environment.count("LEARN_POLL_SECONDS", default: 900, allowsZero: false, maximum: 604_800, meaning: "seconds")

        postMentions = environment.flag("POST_MENTIONS")
        postLinksSetting = environment.value("POST_LINKS").map { _ in environment.flag("POST_LINKS") }
        checksOriginals = environment.flag("CHECK_ORIGINALS", default: true)
        replyFallback = environment.choice("REPLY_FALLBACK", default: .none, expected: "none (do not answer) or any (a past reply to anyone)")
        likes = environment.choice("LIKES", default: .auto, expected: "auto (like where the network allows and welcomes it), on or off")

        favoriteRateThreshold = Self.defaultFavoriteRateThreshold
        calibratesFavoriteThreshold = true
        if let text = environment.value("FAVORITE_RATE_THRESHOLD"), text.lowercased() != "auto" {
            if let number = Double(text), number.isFinite, number > 0 {
                favoriteRateThreshold = number
                calibratesFavoriteThreshold = false
            } else {
                environment.malformed(
                    "FAVORITE_RATE_THRESHOLD",
                    expected: "auto (calibrated on what the person liked) or a positive number such as 3.0 (the original's default)",
                    shown: text)
            }
        }
        classifier = environment.choice("CLASSIFIER", default: .auto, expected: "auto, original or binary")
        postStyleSetting = environment.value("POST_STYLE").map { _ in
            environment.choice(
                "POST_STYLE", default: PostStyle.copy, expected: "copy (the person's posts as written) or remix (new posts from their words)")
        }
        remixOrder = environment.count("REMIX_ORDER", default: 2, allowsZero: false, maximum: 4, meaning: "morphemes")
        remixMaxOverlap = 0.6
        if let text = environment.value("REMIX_MAX_OVERLAP") {
            if let number = Double(text), number.isFinite, number > 0, number < 1 {
                remixMaxOverlap = number
            } else {
                environment.malformed(
                    "REMIX_MAX_OVERLAP",
                    expected: "a share above 0 and below 1, such as 0.6 (a remix shares no run of more than 60% of it with one post)",
                    shown: text)
            }
        }
    }
}

/// Where `start` serves its status page (`PORT`, `BIND`, `STATUS_PASSWORD`).
public struct StatusPageSection: ConfigurationSection, Equatable {
    /// The TCP port `start` serves the status page, its JSON API and `/healthz` on (`PORT`, which Heroku sets for a
    /// `web` dyno); nil: nothing listens.
    public var port: Int?
    /// The address the status page listens on (`BIND`): by default loopback (127.0.0.1), or every address (0.0.0.0)
    /// when a platform's router sends to `PORT` (Heroku's dynos, where `DYNO` is set; the container image sets `BIND`).
    public var bindAddress: String
    /// Whether a platform's router stands in front of the port (`DYNO` is set): clients are then told apart by the
    /// router's `X-Forwarded-For`.
    public var behindRouter: Bool
    /// The password of the status page and its API (`STATUS_PASSWORD`, HTTP basic auth with any user name, at least
    /// `minimumPasswordLength` characters); nil: only `/healthz` answers.
    public var password: String?

    /// The fewest characters `STATUS_PASSWORD` may have: the page is on the open internet on a dyno.
    public static let minimumPasswordLength = 16

    /// The variables of this section.
    public static let variableNames = ["PORT", "BIND", "STATUS_PASSWORD", "DYNO"]

    /// Reads the section.
    public init(reading environment: inout EnvironmentReader) {
        port = nil
        if let text = environment.value("PORT") {
            if let port = Int(text), (1...65_535).contains(port) {
                self.port = port
            } else {
                environment.malformed("PORT", expected: "a TCP port (1–65535) to serve the status page on", shown: text)
            }
        }
        behindRouter = environment.value("DYNO") != nil
        bindAddress = behindRouter ? "0.0.0.0" : "127.0.0.1"
        if let text = environment.value("BIND") {
            if Self.isAddress(text) {
                bindAddress = text
            } else {
                environment.malformed(
                    "BIND", expected: "an IP address to listen on, such as 127.0.0.1 (this machine only), 0.0.0.0 or ::", shown: text)
            }
        }
        password = environment.value("STATUS_PASSWORD")
        if let password, password.count < Self.minimumPasswordLength {
            environment.malformed(
                "STATUS_PASSWORD",
                expected: "at least \(Self.minimumPasswordLength) characters (it guards the status page; `openssl rand -hex 16` makes one)",
                shown: "\(password.count) characters")
        }
    }

    /// Whether `text` is a numeric IPv4 or IPv6 address.
    static func isAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}

/// How much the process logs (`LOG_LEVEL`: trace, debug, info, notice, warning, error or critical; default info),
/// from most to least verbose (swift-log's names).
public enum LogLevel: String, Sendable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical

    /// The variable.
    public static let variableName = "LOG_LEVEL"

    /// `LOG_LEVEL` read from `environment`.
    public init(reading environment: inout EnvironmentReader) {
        self = environment.choice(Self.variableName, default: .info, expected: "one of " + Self.allCases.map(\.rawValue).joined(separator: ", "))
    }
}
