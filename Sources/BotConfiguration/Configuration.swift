public import BotCore
public import Foundation

/// Everything mirror_bot reads from its environment (Heroku config vars, or a local `.env` file).
///
/// Building it checks the form of every variable that is set; `require(_:)` then checks that the variables a
/// command needs are present, so `mirror_bot migrate` runs without X credentials while `start` needs them all.
public struct Configuration: Sendable {
    /// The human's X credentials (`HUMAN_CONSUMER_KEY`, `HUMAN_CONSUMER_SECRET`, `HUMAN_ACCESS_TOKEN`, `HUMAN_ACCESS_TOKEN_SECRET`).
    public var human: AccountCredentials?
    /// The bot's X credentials (the same four with `BOT_`).
    public var bot: AccountCredentials?
    /// The network the bot lives on (`NETWORK`: `x`, the default, or `mastodon`).
    public var network: Network
    /// The person's Mastodon account (`HUMAN_MASTODON_URL`, `HUMAN_MASTODON_TOKEN`).
    public var humanMastodon: MastodonAccountSettings?
    /// The bot's Mastodon account (`BOT_MASTODON_URL`, `BOT_MASTODON_TOKEN`).
    public var botMastodon: MastodonAccountSettings?
    /// Who may see the bot's posts on Mastodon (`POST_VISIBILITY`: `unlisted`, the default, `public` or `private`).
    public var postVisibility: PostVisibility
    /// Whether statuses with a content warning are copied, warning included (`POST_CW`, default false).
    public var postContentWarnings: Bool

    /// The values of `NETWORK`.
    public enum Network: String, Sendable, CaseIterable {
        /// X (the X API v2, OAuth 1.0a).
        case x
        /// A Mastodon instance (bearer tokens).
        case mastodon
    }

    /// The values of `POST_VISIBILITY`.
    public enum PostVisibility: String, Sendable, CaseIterable {
        /// In public timelines.
        case `public`
        /// Public, out of public timelines.
        case unlisted
        /// Followers only.
        case `private`
    }

    /// The archive's database (`DATABASE_URL`).
    public var database: DatabaseURL?
    /// The word counts' Redis (`REDIS_URL`, else the original's `REDISTOGO_URL`).
    public var redis: RedisURL?
    /// For a `rediss://` Redis: the CA certificate file (PEM) its certificate is verified against, host name
    /// included (`REDIS_TLS_CA`); unset, TLS encrypts without verifying, as Heroku's self-signed certificates need.
    public var redisTLSCertificateAuthority: String?
    /// A tweet is liked when score(favorite) / score(normal) exceeds this (`FAVORITE_RATE_THRESHOLD` as a number;
    /// with `auto`, the threshold used until a calibration exists: 3.0, the original's).
    public var favoriteRateThreshold: Double
    /// Whether the like threshold is calibrated on the training examples (`FAVORITE_RATE_THRESHOLD=auto`, the default).
    public var calibratesFavoriteThreshold: Bool
    /// Which model decides likes (`CLASSIFIER`).
    public var classifier: ClassifierChoice
    /// The human's time zone, in which minutes of the day and calendar days are counted (`TZ`, default UTC).
    public var timeZone: TimeZone
    /// The most tweets the archive keeps; the oldest go first (`ARCHIVE_ROW_LIMIT`, default 10,000).
    public var archiveRowLimit: Int
    /// Where the X API is (`X_API_BASE_URL`, default `https://api.x.com`).
    public var xAPIBaseURL: URL
    /// Put before every Redis key, so several bots can share one Redis (`REDIS_KEY_PREFIX`, default empty).
    public var redisKeyPrefix: String
    /// The embedded SQLite file (`MIRROR_BOT_DATA`, default `mirror_bot.sqlite` in the working directory): where the
    /// word counts live when no Redis is configured.
    public var embeddedDataPath: String
    /// Most posts the schedule plans for a day (`MAX_POSTS_PER_DAY`, default 50).
    public var maxPostsPerDay: Int
    /// Days before the bot may post the same tweet of the human again (`REPOST_AFTER_DAYS`, default 30).
    public var repostAfterDays: Int
    /// Whether the bot may post tweets that @-mention people (`POST_MENTIONS`, default false: a copy must not ping strangers).
    public var postMentions: Bool
    /// What to answer someone the human never replied to (`REPLY_FALLBACK`: `none`, the default, or `any`).
    public var replyFallback: ReplyFallback

    /// Whether the bot likes posts (`LIKES`: `auto`, the default, likes where the network allows it: not on X).
    public var likes: LikesSetting

    /// The most the bot spends on the X API in one UTC day, in US dollars, by its own count (`X_DAILY_BUDGET`, default 1.00).
    public var xDailyBudget: Double
    /// Default of `X_DAILY_BUDGET`.
    public static let defaultXDailyBudget = 1.0
    /// `POST_LINKS` as set: whether the bot may post (and reply with) the human's tweets that contain a link; nil when
    /// not set, for the network's default (`NetworkModule.postsLinksByDefault`: no on X, where such a post costs about
    /// 20 times a plain one; yes on Mastodon, where it costs nothing).
    public var postLinksSetting: Bool?
    /// Whether the bot looks up the person's original before posting a copy, so that a tweet the person deleted is
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
    /// Seconds between reads of the human's new tweets, timeline and likes (`LEARN_POLL_SECONDS`, default 900).
    public var learnPollSeconds: Int

    /// The TCP port `start` serves the status page, its JSON API and `/healthz` on (`PORT`, which Heroku sets for a
    /// `web` dyno); nil: nothing listens.
    public var statusPort: Int?
    /// The password of the status page and its API (`STATUS_PASSWORD`, HTTP basic auth with any user name); nil: only
    /// `/healthz` answers.
    public var statusPassword: String?

    /// How much the process logs (`LOG_LEVEL`: trace, debug, info, notice, warning, error or critical; default info).
    public var logLevel: LogLevel

    /// The levels of `LOG_LEVEL`, from most to least verbose (swift-log's names).
    public enum LogLevel: String, Sendable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }

    /// The parts of the configuration a command can require.
    public enum Requirement: Sendable, CaseIterable {
        /// What the network needs to reach the human's account.
        case humanCredentials
        /// What the network needs to reach the bot's account.
        case botCredentials
        /// `DATABASE_URL`.
        case database
        /// `REDIS_URL` or `REDISTOGO_URL`.
        case redis
    }

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
    /// Default of `ARCHIVE_ROW_LIMIT`, the original's (the free Postgres plan's row limit).
    public static let defaultArchiveRowLimit = 10_000
    /// Default of `X_API_BASE_URL`.
    public static let defaultXAPIBaseURL = URL(string: "https://api.x.com")!

    /// Every environment variable mirror_bot reads, for documentation and deploy-template checks.
    public static let variableNames: [String] =
        Account.allCases.flatMap { account in credentialSuffixes.map { account.environmentPrefix + $0 } }
        + ["DATABASE_URL", "REDIS_URL", "REDISTOGO_URL", "FAVORITE_RATE_THRESHOLD", "CLASSIFIER", "TZ", "ARCHIVE_ROW_LIMIT",
           "X_API_BASE_URL", "REDIS_KEY_PREFIX", "LOG_LEVEL", "MECAB_DICDIR", "MIRROR_BOT_DATA",
           "MAX_POSTS_PER_DAY", "REPOST_AFTER_DAYS", "POST_MENTIONS", "REPLY_FALLBACK",
           "MISSED_SLOT_GRACE", "REPLY_LIMIT_PER_USER", "MAX_THREAD_REPLIES", "MENTIONS_POLL_SECONDS",
           "TIMELINE_POLL_SECONDS", "LEARN_POLL_SECONDS", "LIKES", "X_DAILY_BUDGET", "POST_LINKS",
           "NETWORK", "HUMAN_MASTODON_URL", "HUMAN_MASTODON_TOKEN", "BOT_MASTODON_URL", "BOT_MASTODON_TOKEN", "POST_VISIBILITY", "POST_CW",
           "REDIS_TLS_CA", "CHECK_ORIGINALS", "PORT", "STATUS_PASSWORD"]

    private static let credentialSuffixes = ["CONSUMER_KEY", "CONSUMER_SECRET", "ACCESS_TOKEN", "ACCESS_TOKEN_SECRET"]

    /// Reads the configuration from variables; throws a `ConfigurationError` listing every malformed one.
    public init(environment: [String: String]) throws {
        var problems: [ConfigurationError.Problem] = []
        func value(_ name: String) -> String? {
            guard let raw = environment[name]?.trimmingSpaces(), !raw.isEmpty else { return nil }
            return raw
        }

        func credentials(_ account: Account) -> AccountCredentials? {
            let names = Self.credentialSuffixes.map { account.environmentPrefix + $0 }
            let values = names.map(value)
            if values.allSatisfy({ $0 == nil }) { return nil }
            for (name, found) in zip(names, values) where found == nil {
                problems.append(.init(variable: name, isMissing: true,
                                      expected: "the \(account) account's \(name.dropFirst(account.environmentPrefix.count).lowercased().replacingOccurrences(of: "_", with: " ")) from the X developer portal (the other three \(account.environmentPrefix)* variables are set)"))
            }
            guard let key = values[0], let secret = values[1], let token = values[2], let tokenSecret = values[3] else { return nil }
            return AccountCredentials(consumerKey: key, consumerSecret: secret, accessToken: token, accessTokenSecret: tokenSecret)
        }
        human = credentials(.human)
        bot = credentials(.bot)

        network = .x
        if let text = value("NETWORK") {
            if let choice = Network(rawValue: text.lowercased()) {
                network = choice
            } else {
                problems.append(.init(variable: "NETWORK", isMissing: false, expected: "x or mastodon", shownValue: text))
            }
        }
        func mastodon(_ account: Account) -> MastodonAccountSettings? {
            let urlName = account.environmentPrefix + "MASTODON_URL", tokenName = account.environmentPrefix + "MASTODON_TOKEN"
            let (urlText, token) = (value(urlName), value(tokenName))
            if urlText == nil && token == nil { return nil }
            guard let urlText else {
                problems.append(.init(variable: urlName, isMissing: true, expected: "the \(account) account's instance, such as https://mastodon.social (\(tokenName) is set)"))
                return nil
            }
            guard let url = Self.apiBaseURL(urlText) else {
                problems.append(.init(variable: urlName, isMissing: false,
                                      expected: "the instance's https:// URL, such as https://mastodon.social (plain http:// only for localhost)", shownValue: urlText))
                return nil
            }
            guard let token else {
                problems.append(.init(variable: tokenName, isMissing: true,
                                      expected: "the \(account) account's access token (Preferences → Development; \(urlName) is set)"))
                return nil
            }
            return MastodonAccountSettings(instance: url, token: token)
        }
        humanMastodon = mastodon(.human)
        botMastodon = mastodon(.bot)
        postVisibility = .unlisted
        if let text = value("POST_VISIBILITY") {
            if let visibility = PostVisibility(rawValue: text.lowercased()) {
                postVisibility = visibility
            } else {
                problems.append(.init(variable: "POST_VISIBILITY", isMissing: false, expected: "unlisted, public or private", shownValue: text))
            }
        }

        database = nil
        if let text = value("DATABASE_URL") {
            database = DatabaseURL(text)
            if database == nil {
                problems.append(.init(variable: "DATABASE_URL", isMissing: false,
                                      expected: "postgres://user:password@host:port/database, optionally with ?sslmode=disable|prefer|require|verify-full"))
            }
        }

        redis = nil
        if let name = ["REDIS_URL", "REDISTOGO_URL"].first(where: { value($0) != nil }), let text = value(name) {
            redis = RedisURL(text)
            if redis == nil {
                problems.append(.init(variable: name, isMissing: false,
                                      expected: "redis://[:password@]host:port[/db], or rediss:// for TLS"))
            }
        }

        favoriteRateThreshold = Self.defaultFavoriteRateThreshold
        calibratesFavoriteThreshold = true
        if let text = value("FAVORITE_RATE_THRESHOLD"), text.lowercased() != "auto" {
            if let number = Double(text), number.isFinite, number > 0 {
                favoriteRateThreshold = number
                calibratesFavoriteThreshold = false
            } else {
                problems.append(.init(variable: "FAVORITE_RATE_THRESHOLD", isMissing: false,
                                      expected: "auto (calibrated on what the human liked) or a positive number such as 3.0 (the original's default)",
                                      shownValue: text))
            }
        }
        classifier = .auto
        if let text = value("CLASSIFIER") {
            if let choice = ClassifierChoice(rawValue: text.lowercased()) {
                classifier = choice
            } else {
                problems.append(.init(variable: "CLASSIFIER", isMissing: false, expected: "auto, original or binary", shownValue: text))
            }
        }

        timeZone = TimeZone(identifier: "UTC")!
        if let text = value("TZ") {
            // glibc accepts ":Area/City"; the leading colon is not part of the IANA name.
            let name = text.hasPrefix(":") ? String(text.dropFirst()) : text
            if let zone = TimeZone(identifier: name), name.contains("/") || ["UTC", "GMT"].contains(name) {
                timeZone = zone
            } else {
                problems.append(.init(variable: "TZ", isMissing: false,
                                      expected: "an IANA time zone name such as Asia/Tokyo or UTC", shownValue: text))
            }
        }

        archiveRowLimit = Self.defaultArchiveRowLimit
        if let text = value("ARCHIVE_ROW_LIMIT") {
            if let number = Int(text), number > 0 {
                archiveRowLimit = number
            } else {
                problems.append(.init(variable: "ARCHIVE_ROW_LIMIT", isMissing: false,
                                      expected: "a positive whole number of tweets, such as 10000", shownValue: text))
            }
        }

        xAPIBaseURL = Self.defaultXAPIBaseURL
        if let text = value("X_API_BASE_URL") {
            if let url = Self.apiBaseURL(text) {
                xAPIBaseURL = url
            } else {
                problems.append(.init(variable: "X_API_BASE_URL", isMissing: false,
                                      expected: "an https:// URL such as https://api.x.com (plain http:// only for localhost or 127.0.0.1)",
                                      shownValue: text))
            }
        }

        redisKeyPrefix = environment["REDIS_KEY_PREFIX"] ?? ""
        redisTLSCertificateAuthority = value("REDIS_TLS_CA")
        embeddedDataPath = environment["MIRROR_BOT_DATA"].flatMap { $0.isEmpty ? nil : $0 } ?? "mirror_bot.sqlite"

        func count(_ name: String, default defaultValue: Int, allowsZero: Bool, meaning: String) -> Int {
            guard let text = value(name) else { return defaultValue }
            guard let number = Int(text), number > 0 || (allowsZero && number == 0) else {
                problems.append(.init(variable: name, isMissing: false,
                                      expected: "a whole number \(allowsZero ? "(0 or more)" : "above 0") of \(meaning), such as \(defaultValue)",
                                      shownValue: text))
                return defaultValue
            }
            return number
        }
        maxPostsPerDay = count("MAX_POSTS_PER_DAY", default: 50, allowsZero: true, meaning: "posts")
        repostAfterDays = count("REPOST_AFTER_DAYS", default: 30, allowsZero: true, meaning: "days")
        missedSlotGraceMinutes = count("MISSED_SLOT_GRACE", default: 10, allowsZero: true, meaning: "minutes")
        replyLimitPerUser = count("REPLY_LIMIT_PER_USER", default: 3, allowsZero: true, meaning: "answers per person per hour")
        maxThreadReplies = count("MAX_THREAD_REPLIES", default: 5, allowsZero: true, meaning: "answers per conversation")
        mentionsPollSeconds = count("MENTIONS_POLL_SECONDS", default: 60, allowsZero: false, meaning: "seconds")
        timelinePollSeconds = count("TIMELINE_POLL_SECONDS", default: 300, allowsZero: false, meaning: "seconds")
        learnPollSeconds = count("LEARN_POLL_SECONDS", default: 900, allowsZero: false, meaning: "seconds")

        func flag(_ name: String, default defaultValue: Bool = false) -> Bool {
            guard let text = value(name) else { return defaultValue }
            switch text.lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default:
                problems.append(.init(variable: name, isMissing: false, expected: "true or false", shownValue: text))
                return false
            }
        }
        postMentions = flag("POST_MENTIONS")
        // Links cost nothing on Mastodon: there the person's posts with links are the person's posts.
        postLinksSetting = value("POST_LINKS").map { _ in flag("POST_LINKS") }
        postContentWarnings = flag("POST_CW")
        checksOriginals = flag("CHECK_ORIGINALS", default: true)

        statusPort = nil
        if let text = value("PORT") {
            if let port = Int(text), (1...65_535).contains(port) {
                statusPort = port
            } else {
                problems.append(.init(variable: "PORT", isMissing: false, expected: "a TCP port (1–65535) to serve the status page on", shownValue: text))
            }
        }
        statusPassword = value("STATUS_PASSWORD")

        likes = .auto
        if let text = value("LIKES") {
            if let setting = LikesSetting(rawValue: text.lowercased()) {
                likes = setting
            } else {
                problems.append(.init(variable: "LIKES", isMissing: false,
                                      expected: "auto (like where the network allows it: not on X), on or off", shownValue: text))
            }
        }

        xDailyBudget = Self.defaultXDailyBudget
        if let text = value("X_DAILY_BUDGET") {
            let number = Double(text.hasPrefix("$") ? String(text.dropFirst()) : text)
            if let number, number.isFinite, number > 0 {
                xDailyBudget = number
            } else {
                problems.append(.init(variable: "X_DAILY_BUDGET", isMissing: false,
                                      expected: "US dollars a UTC day above 0, such as 1.00", shownValue: text))
            }
        }

        replyFallback = .none
        if let text = value("REPLY_FALLBACK") {
            if let fallback = ReplyFallback(rawValue: text.lowercased()) {
                replyFallback = fallback
            } else {
                problems.append(.init(variable: "REPLY_FALLBACK", isMissing: false,
                                      expected: "none (do not answer) or any (a past reply to anyone)", shownValue: text))
            }
        }

        logLevel = .info
        if let text = value("LOG_LEVEL") {
            if let level = LogLevel(rawValue: text.lowercased()) {
                logLevel = level
            } else {
                problems.append(.init(variable: "LOG_LEVEL", isMissing: false,
                                      expected: "one of " + LogLevel.allCases.map(\.rawValue).joined(separator: ", "), shownValue: text))
            }
        }
        // MECAB_DICDIR is read by the tokenizer itself (it is MeCab's own variable); it is listed in variableNames.

        if !problems.isEmpty { throw ConfigurationError(problems: problems) }
    }

    /// Reads the process environment, with the `.env` file at `environmentFilePath` (if it exists) under it:
    /// a variable set in the real environment wins over the file.
    public static func fromProcessEnvironment(environmentFilePath: String? = ".env") throws -> Configuration {
        try Configuration(environment: mergedProcessEnvironment(environmentFilePath: environmentFilePath))
    }

    /// The process environment over the `.env` file's variables.
    public static func mergedProcessEnvironment(environmentFilePath: String? = ".env") throws -> [String: String] {
        var file: EnvironmentFile?
        if let path = environmentFilePath, FileManager.default.fileExists(atPath: path) {
            file = try EnvironmentFile(parsing: try String(contentsOfFile: path, encoding: .utf8), path: path)
        }
        return merged(environment: ProcessInfo.processInfo.environment, file: file)
    }

    /// The variables of `environment` over those of `file`: a variable set in the real environment wins.
    public static func merged(environment: [String: String], file: EnvironmentFile?) -> [String: String] {
        (file?.variables ?? [:]).merging(environment) { _, real in real }
    }

    /// The store variables that `requirements` need and that are not set (the network's are its module's to say:
    /// `NetworkModule.missingSettings`).
    public func missingStores(_ requirements: Set<Requirement>) -> [ConfigurationError.Problem] {
        var problems: [ConfigurationError.Problem] = []
        if requirements.contains(.database) && database == nil {
            problems.append(.init(variable: "DATABASE_URL", isMissing: true,
                                  expected: "postgres://user:password@host:port/database (Heroku's heroku-postgresql add-on sets it)"))
        }
        if requirements.contains(.redis) && redis == nil {
            problems.append(.init(variable: "REDIS_URL", isMissing: true,
                                  expected: "redis://host:port (Heroku's heroku-redis add-on sets it; REDISTOGO_URL is read too)"))
        }
        return problems
    }

    /// An https URL, or an http URL whose host is the loopback interface; nil otherwise.
    static func apiBaseURL(_ text: String) -> URL? {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let parts = URLParts(trimmed), let url = URL(string: trimmed), parts.user == nil, parts.path == nil || parts.path == "" else { return nil }
        switch parts.scheme {
        case "https": return url
        case "http": return ["localhost", "::1"].contains(parts.host) || parts.host.hasPrefix("127.") ? url : nil
        default: return nil
        }
    }
}
