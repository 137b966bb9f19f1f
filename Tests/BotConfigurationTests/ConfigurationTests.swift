import BotAssembly
import BotConfiguration
import BotCore
import Foundation
import MastodonNetwork
import Testing
import XAPI
import XNetwork

@Suite("Configuration from the environment")
struct ConfigurationTests {
    static let credentials: [String: String] = [
        "HUMAN_CONSUMER_KEY": "hck", "HUMAN_CONSUMER_SECRET": "human-consumer-secret-value",
        "HUMAN_ACCESS_TOKEN": "hat", "HUMAN_ACCESS_TOKEN_SECRET": "human-token-secret-value",
        "BOT_CONSUMER_KEY": "bck", "BOT_CONSUMER_SECRET": "bot-consumer-secret-value",
        "BOT_ACCESS_TOKEN": "bat", "BOT_ACCESS_TOKEN_SECRET": "bot-token-secret-value",
    ]

    @Test("An empty environment gives the documented defaults")
    func defaults() throws {
        let configuration = try Configuration(environment: [:])
        #expect(configuration.x?.human == nil)
        #expect(configuration.x?.bot == nil)
        #expect(configuration.storage.database == nil)
        #expect(configuration.storage.redis == nil)
        #expect(configuration.behaviour.favoriteRateThreshold == 3.0)
        #expect(configuration.behaviour.calibratesFavoriteThreshold)
        #expect(configuration.behaviour.classifier == .auto)
        #expect(configuration.behaviour.timeZone.secondsFromGMT(for: Date()) == 0)  // Foundation on Linux calls it GMT
        #expect(configuration.storage.archiveRowLimit == 10_000)
        #expect(configuration.x?.baseURL.absoluteString == "https://api.x.com")
        #expect(configuration.storage.redisKeyPrefix == "")
        #expect(configuration.logLevel == .info)
        #expect(configuration.behaviour.maxPostsPerDay == 50)
        #expect(configuration.behaviour.repostAfterDays == 30)
        #expect(configuration.behaviour.postMentions == false)
        #expect(configuration.behaviour.replyFallback == .none)
        #expect(configuration.behaviour.missedSlotGraceMinutes == 10)
        #expect(configuration.behaviour.replyLimitPerUser == 3)
        #expect(configuration.behaviour.maxThreadReplies == 5)
        let pollSeconds: [Int] = [
            configuration.behaviour.mentionsPollSeconds, configuration.behaviour.timelinePollSeconds, configuration.behaviour.learnPollSeconds,
        ]
        #expect(pollSeconds == [60, 300, 900])
    }

    @Test("The picking and schedule limits are read and checked")
    func pickingLimits() throws {
        let configuration = try Configuration(environment: [
            "MAX_POSTS_PER_DAY": "0", "REPOST_AFTER_DAYS": "7", "POST_MENTIONS": "TRUE", "REPLY_FALLBACK": "any",
        ])
        #expect(configuration.behaviour.maxPostsPerDay == 0)
        #expect(configuration.behaviour.repostAfterDays == 7)
        #expect(configuration.behaviour.postMentions)
        #expect(configuration.behaviour.replyFallback == .any)
        let error = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: ["MAX_POSTS_PER_DAY": "-1", "POST_MENTIONS": "maybe", "REPLY_FALLBACK": "everyone"])
        }
        #expect(error.problems.map(\.variable) == ["MAX_POSTS_PER_DAY", "POST_MENTIONS", "REPLY_FALLBACK"])
    }

    @Test("A number past what makes sense is named with its range, never turned into a trap later (minutes to seconds, days to dates)")
    func boundedNumbers() throws {
        let huge = "9223372036854775807"
        let error = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: [
                "MISSED_SLOT_GRACE": huge, "REPOST_AFTER_DAYS": huge, "ARCHIVE_ROW_LIMIT": huge, "MAX_POSTS_PER_DAY": "1441",
                "MENTIONS_POLL_SECONDS": "604801",
            ])
        }
        #expect(
            Set(error.problems.map(\.variable)) == [
                "MISSED_SLOT_GRACE", "REPOST_AFTER_DAYS", "ARCHIVE_ROW_LIMIT", "MAX_POSTS_PER_DAY", "MENTIONS_POLL_SECONDS",
            ])
        let grace = try #require(error.problems.first { $0.variable == "MISSED_SLOT_GRACE" })
        #expect(grace.description.contains("from 0 to 1440 of minutes") && grace.description.contains(huge))
        // The largest allowed values are read as they are.
        let largest = try Configuration(environment: ["MISSED_SLOT_GRACE": "1440", "REPOST_AFTER_DAYS": "36500", "MAX_POSTS_PER_DAY": "1440"])
        #expect(
            largest.behaviour.missedSlotGraceMinutes == 1_440 && largest.behaviour.repostAfterDays == 36_500
                && largest.behaviour.maxPostsPerDay == 1_440)
        #expect(largest.daemonSettings.missedSlotGrace == 86_400)
    }

    @Test("Consent lists: comma-separated (also 、 and ，), trimmed; OPT_OUT_WORDS unset means the defaults, one that names no word is refused")
    func consentLists() throws {
        let defaults = try Configuration(environment: [:]).consent
        #expect(defaults.optOutWords == nil && defaults.blockedWords.isEmpty && defaults.blockedAccounts.isEmpty)
        let set = try Configuration(environment: [
            "OPT_OUT_WORDS": "stop, やめて、 ＳＴＯＰ", "BLOCKED_WORDS": "spoiler，ネタバレ,,",
            "BLOCKED_ACCOUNTS": "@carol, 12345 ,dave@example.social",
        ]).consent
        #expect(set.optOutWords == ["stop", "やめて", "ＳＴＯＰ"])
        #expect(set.blockedWords == ["spoiler", "ネタバレ"])
        #expect(set.blockedAccounts == ["@carol", "12345", "dave@example.social"])
        let error = try #require(throws: ConfigurationError.self) { try Configuration(environment: ["OPT_OUT_WORDS": " , 、"]) }
        #expect(String(describing: error).contains("OPT_OUT_WORDS"))
    }

    @Test("POST_STYLE: remix on X and copy on Mastodon unless set; REMIX_ORDER 1 to 4 and REMIX_MAX_OVERLAP between 0 and 1, else one line each")
    func postStyle() throws {
        #expect(try Configuration(environment: [:]).postStyle == .remix)
        #expect(try Configuration(environment: ["POST_STYLE": "copy"]).postStyle == .copy)
        let mastodon = [
            "NETWORK": "mastodon", "HUMAN_MASTODON_URL": "https://a.example", "HUMAN_MASTODON_TOKEN": "t",
            "BOT_MASTODON_URL": "https://b.example", "BOT_MASTODON_TOKEN": "u",
        ]
        #expect(try Configuration(environment: mastodon).postStyle == .copy)
        #expect(try Configuration(environment: mastodon.merging(["POST_STYLE": "Remix"]) { $1 }).postStyle == .remix)
        let settings = try Configuration(environment: ["REMIX_ORDER": "3", "REMIX_MAX_OVERLAP": "0.5"]).daemonSettings
        #expect(settings.postStyle == .remix && settings.remixOrder == 3 && settings.remixMaxOverlap == 0.5)
        let defaults = try Configuration(environment: [:]).daemonSettings
        #expect(defaults.remixOrder == 2 && defaults.remixMaxOverlap == 0.6)
        let error = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: ["POST_STYLE": "markov", "REMIX_ORDER": "5", "REMIX_MAX_OVERLAP": "1"])
        }
        #expect(Set(error.problems.map(\.variable)) == ["POST_STYLE", "REMIX_ORDER", "REMIX_MAX_OVERLAP"])
        #expect(String(describing: error).contains("copy (the person's posts as written) or remix"))
    }

    @Test(
        "The status page: loopback unless a Heroku dyno (DYNO) or BIND says otherwise; BIND is an address; STATUS_PASSWORD has at least 16 characters and is never shown"
    )
    func statusPage() throws {
        let plain = try Configuration(environment: ["PORT": "8080"])
        #expect(plain.statusPage.port == 8080 && plain.statusPage.bindAddress == "127.0.0.1" && !plain.statusPage.behindRouter)
        let dyno = try Configuration(environment: ["PORT": "8080", "DYNO": "web.1"])
        #expect(dyno.statusPage.bindAddress == "0.0.0.0" && dyno.statusPage.behindRouter)
        #expect(try Configuration(environment: ["BIND": "::"]).statusPage.bindAddress == "::")
        #expect(try Configuration(environment: ["BIND": "0.0.0.0", "DYNO": "web.1"]).statusPage.bindAddress == "0.0.0.0")
        #expect(try Configuration(environment: ["STATUS_PASSWORD": "sixteen-chars-ok"]).statusPage.password == "sixteen-chars-ok")
        let error = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: ["BIND": "example.com", "STATUS_PASSWORD": "fifteen-chars!!", "PORT": "0"])
        }
        #expect(Set(error.problems.map(\.variable)) == ["BIND", "STATUS_PASSWORD", "PORT"])
        let password = try #require(error.problems.first { $0.variable == "STATUS_PASSWORD" })
        #expect(password.description.contains("at least 16 characters") && password.description.contains("15 characters"))
        #expect(!"\(error)".contains("fifteen-chars"))
    }

    @Test("Every variable is read")
    func everything() throws {
        var environment = Self.credentials
        environment["DATABASE_URL"] = "postgres://u:p%40ss@db.example.com:5433/mirror?sslmode=require"
        environment["REDIS_URL"] = "rediss://:secret@redis.example.com:6380/2"
        environment["FAVORITE_RATE_THRESHOLD"] = "2"
        environment["CLASSIFIER"] = "Binary"
        environment["TZ"] = "Asia/Tokyo"
        environment["ARCHIVE_ROW_LIMIT"] = "500"
        environment["X_API_BASE_URL"] = "http://127.0.0.1:8080/"
        environment["REDIS_KEY_PREFIX"] = "bot1:"
        environment["LOG_LEVEL"] = "DEBUG"
        let configuration = try Configuration(environment: environment)
        #expect(
            configuration.x?.human
                == AccountCredentials(
                    consumerKey: "hck", consumerSecret: "human-consumer-secret-value",
                    accessToken: "hat", accessTokenSecret: "human-token-secret-value"))
        #expect(configuration.x?.bot?.accessToken == "bat")
        #expect(
            configuration.storage.database
                == DatabaseURL(
                    host: "db.example.com", port: 5433, username: "u", password: "p@ss",
                    database: "mirror", tlsMode: .require))
        #expect(configuration.storage.redis == RedisURL(host: "redis.example.com", port: 6380, password: "secret", database: 2, usesTLS: true))
        #expect(configuration.behaviour.favoriteRateThreshold == 2)
        #expect(!configuration.behaviour.calibratesFavoriteThreshold)
        #expect(configuration.behaviour.classifier == .binary)
        #expect(try Configuration(environment: ["FAVORITE_RATE_THRESHOLD": "auto"]).behaviour.calibratesFavoriteThreshold)
        #expect(configuration.behaviour.timeZone.identifier == "Asia/Tokyo")
        #expect(configuration.storage.archiveRowLimit == 500)
        #expect(configuration.x?.baseURL.absoluteString == "http://127.0.0.1:8080")
        #expect(configuration.storage.redisKeyPrefix == "bot1:")
        #expect(configuration.logLevel == .debug)
        try configuration.require(Set(Configuration.Requirement.allCases))
    }

    @Test("REDISTOGO_URL, the original's add-on, is read when REDIS_URL is not set; REDIS_URL wins")
    func redisToGoFallback() throws {
        let fallback = try Configuration(environment: ["REDISTOGO_URL": "redis://redistogo:pw@host:9000/"])
        #expect(fallback.storage.redis == RedisURL(host: "host", port: 9000, username: "redistogo", password: "pw"))
        let both = try Configuration(environment: ["REDISTOGO_URL": "redis://old:1", "REDIS_URL": "redis://new:2"])
        #expect(both.storage.redis?.host == "new")
    }

    @Test(
        "REDIS_CLUSTER: keys under a hash tag made from REDIS_KEY_PREFIX (or the prefix's own tag, or {bot:default}); without it, the prefix as it is"
    )
    func redisClusterKeys() throws {
        func keys(_ environment: [String: String]) throws -> String { try Configuration(environment: environment).storage.redisKeys }
        #expect(try keys(["REDIS_KEY_PREFIX": "alice:"]) == "alice:")
        #expect(try keys(["REDIS_CLUSTER": "true", "REDIS_KEY_PREFIX": "alice:"]) == "{bot:alice}:")
        #expect(try keys(["REDIS_CLUSTER": "true"]) == "{bot:default}:")
        #expect(try keys(["REDIS_CLUSTER": "true", "REDIS_KEY_PREFIX": "{tenant7}:bot:"]) == "{tenant7}:bot:")
        #expect(try keys(["REDIS_CLUSTER": "true", "REDIS_KEY_PREFIX": "{}x:"]) == "{bot:{}x}:")
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["REDIS_CLUSTER": "maybe"]) }
    }

    @Test("A partial set of credentials names each missing variable and shows no secret")
    func partialCredentials() throws {
        var environment = Self.credentials
        environment["BOT_ACCESS_TOKEN_SECRET"] = nil
        environment["HUMAN_CONSUMER_KEY"] = "  "
        let error = try #require(throws: ConfigurationError.self) { try Configuration(environment: environment) }
        #expect(error.problems.map(\.variable) == ["HUMAN_CONSUMER_KEY", "BOT_ACCESS_TOKEN_SECRET"])
        #expect(error.problems.allSatisfy { $0.isMissing })
        for secret in Self.credentials.values where secret.count > 5 {
            #expect(!error.description.contains(secret))
        }
    }

    @Test("Malformed values are all reported, each with the expected form; secrets are not echoed")
    func malformedValues() throws {
        let environment = [
            "DATABASE_URL": "mysql://user:hunter2@host/db",
            "REDIS_URL": "http://x",
            "FAVORITE_RATE_THRESHOLD": "-1",
            "TZ": "Mars/Olympus",
            "ARCHIVE_ROW_LIMIT": "ten",
            "X_API_BASE_URL": "http://api.example.com",
        ]
        let error = try #require(throws: ConfigurationError.self) { try Configuration(environment: environment) }
        // Section by section: the network's, storage, the behaviour.
        #expect(
            error.problems.map(\.variable) == ["X_API_BASE_URL", "DATABASE_URL", "REDIS_URL", "ARCHIVE_ROW_LIMIT", "TZ", "FAVORITE_RATE_THRESHOLD"])
        #expect(!error.description.contains("hunter2"))
        #expect(error.description.contains("postgres://user:password@host:port/database"))
        #expect(error.description.contains("\"Mars/Olympus\""))
        #expect(error.description.contains("IANA time zone"))
    }

    @Test("TZ accepts glibc's leading colon and rejects POSIX rules")
    func timeZones() throws {
        #expect(try Configuration(environment: ["TZ": ":Europe/Berlin"]).behaviour.timeZone.identifier == "Europe/Berlin")
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["TZ": "JST-9"]) }
    }

    @Test("Plain http is allowed for the X API on loopback only")
    func apiBaseURL() throws {
        #expect(try Configuration(environment: ["X_API_BASE_URL": "http://localhost:9"]).x?.baseURL.absoluteString == "http://localhost:9")
        #expect(try Configuration(environment: ["X_API_BASE_URL": "https://api.twitter.com"]).x?.baseURL.host == "api.twitter.com")
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["X_API_BASE_URL": "http://10.0.0.1"]) }
        // Loopback is an address (127.0.0.0/8, ::1) or localhost, parsed: a name that merely starts with "127." is not.
        for remote in ["http://127.invalid", "http://127.0.0.1.evil.example", "http://localhost.evil.example", "http://[::2]"] {
            #expect(throws: ConfigurationError.self, "\(remote)") { try Configuration(environment: ["X_API_BASE_URL": remote]) }
            #expect(throws: ConfigurationError.self, "\(remote)") {
                try Configuration(environment: ["NETWORK": "mastodon", "BOT_MASTODON_URL": remote, "BOT_MASTODON_TOKEN": "t"])
            }
        }
        for local in ["http://127.0.0.1:9", "http://127.255.0.3", "http://[::1]:8080", "http://LOCALHOST:1"] {
            #expect(try Configuration(environment: ["X_API_BASE_URL": local]).x?.baseURL != nil, "\(local)")
        }
        #expect(LoopbackHost.contains("127.1.2.3") && LoopbackHost.contains("::1") && LoopbackHost.contains("0:0:0:0:0:0:0:1"))
        #expect(
            !LoopbackHost.contains("127.invalid") && !LoopbackHost.contains("128.0.0.1") && !LoopbackHost.contains("::") && !LoopbackHost.contains("")
        )
        #expect(DatabaseURL("postgres://u@127.invalid/db")?.tlsMode == .require)
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["X_API_BASE_URL": "ftp://api.x.com"]) }
    }

    @Test("require() names every missing variable at once")
    func requirements() throws {
        let configuration = try Configuration(environment: [:])
        try configuration.require([])
        let error = try #require(throws: ConfigurationError.self) {
            try configuration.require([.database, .redis, .botCredentials])
        }
        #expect(
            error.problems.map(\.variable) == [
                "BOT_CONSUMER_KEY", "BOT_CONSUMER_SECRET", "BOT_ACCESS_TOKEN", "BOT_ACCESS_TOKEN_SECRET", "DATABASE_URL", "REDIS_URL",
            ])
        #expect(error.description.hasPrefix("Configuration errors:"))
    }

    @Test("Credentials never print their secrets")
    func credentialsAreRedacted() throws {
        let configuration = try Configuration(environment: Self.credentials)
        let human = try #require(configuration.x?.human)
        for text in [String(describing: human), String(reflecting: human), "\(human)"] {
            #expect(!text.contains("secret-value"))
            #expect(!text.contains("hat"))
        }
    }

    @Test("LIKES, X_DAILY_BUDGET and POST_LINKS: auto, $1.00 and false by default; malformed values are named with their form")
    func costSettings() throws {
        let defaults = try Configuration(environment: [:])
        #expect(defaults.behaviour.likes == .auto && defaults.x?.dailyBudget == 1.0 && !defaults.postLinks)
        let set = try Configuration(environment: ["LIKES": "ON", "X_DAILY_BUDGET": "$0.25", "POST_LINKS": "true"])
        #expect(set.behaviour.likes == .on && set.x?.dailyBudget == 0.25 && set.postLinks)
        #expect(try Configuration(environment: ["LIKES": "off"]).behaviour.likes == .off)
        let error = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: ["LIKES": "sometimes", "X_DAILY_BUDGET": "0", "POST_LINKS": "maybe"])
        }
        let text = String(describing: error)
        #expect(text.contains("LIKES") && text.contains("auto (like where the network allows and welcomes it), on or off"))
        #expect(text.contains("X_DAILY_BUDGET") && text.contains("US dollars a UTC day above 0, such as 1.00"))
        #expect(text.contains("POST_LINKS") && text.contains("true or false"))
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["X_DAILY_BUDGET": "lots"]) }
    }

    @Test(
        "X_DAILY_BUDGET is a plain decimal amount above 0 and at most 10000: hexadecimal, exponents, infinities, signs and other digits are refused")
    func dailyBudgetPlainDecimal() throws {
        for (text, dollars) in [("2.50", 2.5), ("$0.25", 0.25), ("3", 3.0), ("10000", 10_000.0), ("0.005", 0.005)] {
            #expect(try Configuration(environment: ["X_DAILY_BUDGET": text]).x?.dailyBudget == dollars, "\(text)")
        }
        for text in ["0x10", "1e300", "1e2", "inf", "nan", "+2", "-1", "0", "10000.01", "２", ".5", "5.", "1,000", "$", "1.2.3", "0x1p3"] {
            #expect(throws: ConfigurationError.self, "\(text)") { try Configuration(environment: ["X_DAILY_BUDGET": text]) }
        }
    }

    @Test(
        "MIRROR_BOT_KEY: a short key is refused without being shown; on Bluesky start needs it (its session is kept sealed), elsewhere nothing is sealed"
    )
    func tokenKey() throws {
        do {
            _ = try Configuration(environment: ["MIRROR_BOT_KEY": "short secret"])
            Issue.record("a 12-character key was taken")
        } catch let error as ConfigurationError {
            #expect(error.description.contains("MIRROR_BOT_KEY is malformed; it must be a random text of at least 16 characters"), "\(error)")
            #expect(!error.description.contains("short secret"))
        }
        let bluesky = try Configuration(environment: ["NETWORK": "bluesky"])
        #expect(throws: ConfigurationError.self) { try bluesky.tokenSealer() }
        let sealer = try #require(try Configuration(environment: ["NETWORK": "bluesky", "MIRROR_BOT_KEY": "sixteen chars ok"]).tokenSealer())
        let sealed = try sealer.seal("{\"accessJwt\":\"secret\"}")
        #expect(sealed.hasPrefix("sealed:v1:") && !sealed.contains("secret"))
        #expect(try sealer.open(sealed) == "{\"accessJwt\":\"secret\"}")
        let other = try #require(try Configuration(environment: ["NETWORK": "bluesky", "MIRROR_BOT_KEY": "another key, 16+"]).tokenSealer())
        #expect(throws: (any Error).self) { try other.open(sealed) }
        #expect(throws: (any Error).self) { try sealer.open("{\"accessJwt\":\"plain\"}") }
        #expect(try Configuration(environment: ["NETWORK": "mastodon"]).tokenSealer() == nil)
    }

    @Test("Every variable read is listed in variableNames")
    func variableNamesAreComplete() {
        #expect(Configuration.variableNames.count == 79)
        #expect(Set(Configuration.variableNames).count == 79)
        #expect(Configuration.variableNames.contains("MIRROR_BOT_KEY") && Configuration.variableNames.contains("HUMAN_BLUESKY_SIGN_IN"))
        #expect(Configuration.variableNames.contains("PUBLIC_URL"), "mirror_bot web's address")
        #expect(Set(Configuration.variableNames).isSuperset(of: Self.credentials.keys))
    }

    @Test(
        "The door's sign-up: open and 100 mirrors by default; servers needs its list; a mode or a count it cannot read is named, every problem at once"
    )
    func doorSignUp() {
        func read(_ environment: [String: String]) -> (FrontDoorSection, [String]) {
            var reader = EnvironmentReader(environment: environment)
            let section = FrontDoorSection(reading: &reader)
            return (section, reader.problems.map(\.variable))
        }
        let (defaults, none) = read([:])
        #expect(defaults.signUp == .open && defaults.maxMirrors == 100 && defaults.servers.isEmpty && none.isEmpty)
        let (listed, fine) = read(["DOOR_SIGN_UP": "Servers", "DOOR_SERVERS": " social.example, notes.example ,", "DOOR_MAX_MIRRORS": "0"])
        #expect(listed.signUp == .servers && listed.servers == ["social.example", "notes.example"] && listed.maxMirrors == 0 && fine.isEmpty)
        let (_, problems) = read(["DOOR_SIGN_UP": "invite", "DOOR_MAX_MIRRORS": "-3"])
        #expect(problems == ["DOOR_SIGN_UP", "DOOR_MAX_MIRRORS"])
        let (_, unlisted) = read(["DOOR_SIGN_UP": "servers"])
        #expect(unlisted == ["DOOR_SERVERS"])
        // Invitations are made on the operator's page: its password is needed, and a short one is refused.
        let (_, noPage) = read(["DOOR_SIGN_UP": "invitations"])
        #expect(noPage == ["DOOR_OPERATOR_PASSWORD"])
        let (_, short) = read(["DOOR_OPERATOR_PASSWORD": "fifteen-chars!!"])
        #expect(short == ["DOOR_OPERATOR_PASSWORD"])
        let (invited, good) = read(["DOOR_SIGN_UP": "invitations", "DOOR_OPERATOR_PASSWORD": "sixteen-chars!!!"])
        #expect(invited.signUp == .invitations && invited.operatorPassword == "sixteen-chars!!!" && good.isEmpty)
    }

    @Test("MIRROR_BOT_DATA names the embedded SQLite file; mirror_bot.sqlite in the working directory by default")
    func embeddedDataPath() throws {
        #expect(try Configuration(environment: [:]).storage.embeddedDataPath == "mirror_bot.sqlite")
        #expect(try Configuration(environment: ["MIRROR_BOT_DATA": ""]).storage.embeddedDataPath == "mirror_bot.sqlite")
        #expect(
            try Configuration(environment: ["MIRROR_BOT_DATA": "/var/lib/bot/data.sqlite"]).storage.embeddedDataPath == "/var/lib/bot/data.sqlite")
    }
}

@Suite("Connection URLs")
struct ConnectionURLTests {
    @Test("Heroku's Postgres URL form, with libpq sslmode values; without one, TLS is required off this machine")
    func databaseURLs() {
        // Heroku's DATABASE_URL has no sslmode: a server elsewhere is reached by TLS or not at all.
        let heroku = DatabaseURL("postgres://user:pa%3Ass@ec2-1-2-3-4.compute-1.amazonaws.com:5432/d1a2b3")
        #expect(
            heroku
                == DatabaseURL(
                    host: "ec2-1-2-3-4.compute-1.amazonaws.com", username: "user", password: "pa:ss", database: "d1a2b3", tlsMode: .require))
        for local in ["localhost", "127.0.0.1", "[::1]"] { #expect(DatabaseURL("postgres://u@\(local)/db")?.tlsMode == .prefer, "\(local)") }
        #expect(DatabaseURL("postgres://u@h/db?sslmode=verify-ca")?.tlsMode == .verifyCA)
        // libpq's connect_timeout, in seconds: 10 unless given, 1 to 3600.
        #expect(DatabaseURL("postgres://u@h/db")?.connectTimeout == 10 && DatabaseURL("postgres://u@h/db?connect_timeout=30")?.connectTimeout == 30)
        for bad in ["0", "3601", "ten", ""] { #expect(DatabaseURL("postgres://u@h/db?connect_timeout=\(bad)") == nil, "\(bad)") }
        let verified = DatabaseURL("postgres://u@db.example/db?sslmode=verify-full&sslrootcert=/etc/ssl/our-ca.pem")
        #expect(verified?.tlsMode == .verifyFull && verified?.rootCertificatePath == "/etc/ssl/our-ca.pem")
        #expect(verified?.redacted == "postgres://u@db.example:5432/db?sslmode=verify-full&sslrootcert=/etc/ssl/our-ca.pem")
        #expect(DatabaseURL("postgresql://u@[::1]:6000/db?sslmode=verify-full")?.host == "::1")
        #expect(DatabaseURL("postgresql://u@[::1]:6000/db?sslmode=verify-full")?.tlsMode == .verifyFull)
        #expect(DatabaseURL("postgres://u@h/db?sslmode=disable")?.tlsMode == .disable)
        #expect(DatabaseURL("postgres://u@h/db?sslmode=bogus") == nil)
        #expect(DatabaseURL("postgres://u@h") == nil)
        #expect(DatabaseURL("postgres://h/db") == nil)
        #expect(DatabaseURL("postgres://u:secret@h:99999/db") == nil)
        #expect(DatabaseURL("postgres://u:secret@h/db")?.redacted == "postgres://u:***@h:5432/db?sslmode=require")
    }

    @Test("Redis URLs: password only, user and password, database number, TLS")
    func redisURLs() {
        #expect(RedisURL("redis://localhost") == RedisURL(host: "localhost"))
        #expect(RedisURL("rediss://:p@h:1/3") == RedisURL(host: "h", port: 1, password: "p", database: 3, usesTLS: true))
        #expect(RedisURL("redis://default:p@h:1")?.username == "default")
        #expect(RedisURL("redis://h/x") == nil)
        #expect(RedisURL("rediss://:p@h:1/3")?.redacted == "rediss://:***@h:1/3")
    }
}

@Suite(".env files")
struct EnvironmentFileTests {
    @Test(
        "auth --write-env's .env is 0600 from its first byte (a new file renamed over the old one); a failure says so and leaves the old file whole")
    func secretFileIsPrivate() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "mirror_bot-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: ".env").path
        try "OLD=1\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try EnvironmentFile.writeSecret("BOT_ACCESS_TOKEN=secret\n", toFile: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "BOT_ACCESS_TOKEN=secret\n")
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [".env"])  // no temporary file left
        let error = try #require(throws: EnvironmentFile.SecretFileError.self) {
            try EnvironmentFile.writeSecret("X=1\n", toFile: folder.appending(path: "missing/.env").path)
        }
        #expect(error.description.contains("readable by you only") && error.description.contains("No such file"))
    }

    @Test("KEY=value lines, comments, export, and both kinds of quotes")
    func parsing() throws {
        let file = try EnvironmentFile(
            parsing: """
                # mirror_bot
                export TZ=Asia/Tokyo
                DATABASE_URL = postgres://u@h/db   # local
                BOT_CONSUMER_KEY="with \\"quotes\\" and\\nnewline"
                BOT_CONSUMER_SECRET='single $literal # kept'
                EMPTY=

                """)
        #expect(
            file.variables == [
                "TZ": "Asia/Tokyo", "DATABASE_URL": "postgres://u@h/db",
                "BOT_CONSUMER_KEY": "with \"quotes\" and\nnewline", "BOT_CONSUMER_SECRET": "single $literal # kept", "EMPTY": "",
            ])
        // A file saved with Windows line ends (CRLF, one Character in Swift, which splitting at "\n" misses) reads the same.
        #expect(try EnvironmentFile(parsing: "A=1\r\nB=\"two\"\r\n").variables == ["A": "1", "B": "two"])
    }

    @Test("A bad line is reported with its file and line number")
    func syntaxError() throws {
        let error = try #require(throws: EnvironmentFile.SyntaxError.self) {
            try EnvironmentFile(parsing: "A=1\nthis is not an assignment\n", path: "/app/.env")
        }
        #expect(error.line == 2)
        #expect(error.description.hasPrefix("/app/.env:2:"))
        #expect(throws: EnvironmentFile.SyntaxError.self) { try EnvironmentFile(parsing: "A=\"open") }
    }

    @Test("The real environment wins over the file")
    func realEnvironmentWins() throws {
        let file = try EnvironmentFile(parsing: "TZ=Asia/Tokyo\nARCHIVE_ROW_LIMIT=5\n")
        let merged = EnvironmentFile.merged(environment: ["TZ": "Europe/Paris"], file: file)
        let configuration = try Configuration(environment: merged)
        #expect(configuration.behaviour.timeZone.identifier == "Europe/Paris")
        #expect(configuration.storage.archiveRowLimit == 5)
    }
}

extension Configuration {
    /// X's section, when the configured network is X.
    var x: XNetworkSettings? { (networkModule as? XNetworkModule)?.settings }
    /// Mastodon's section, when the configured network is Mastodon.
    var mastodon: MastodonNetworkSettings? { (networkModule as? MastodonNetworkModule)?.settings }
}
