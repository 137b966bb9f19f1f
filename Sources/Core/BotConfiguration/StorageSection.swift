/// Where the bot keeps what it knows: the archive's database, the word counts' Redis or the SQLite file.
public struct StorageSection: ConfigurationSection, Equatable {
    /// The archive's database (`DATABASE_URL`); nil: the SQLite file.
    public var database: DatabaseURL?
    /// The Postgres schema the bot's tables are in (`DATABASE_SCHEMA`: a fleet's bot's, which `mirror_bot bots exec`
    /// sets); nil: the database's own `search_path`.
    public var databaseSchema: String?
    /// The word counts' Redis (`REDIS_URL`, else the original's `REDISTOGO_URL`); nil: the SQLite file.
    public var redis: RedisURL?
    /// For a `rediss://` Redis: the CA certificate file (PEM) its certificate is verified against, host name
    /// included (`REDIS_TLS_CA`); unset, TLS encrypts without verifying, as Heroku's self-signed certificates need.
    public var redisTLSCertificateAuthority: String?
    /// Put before every Redis key, so several bots can share one Redis (`REDIS_KEY_PREFIX`, default empty).
    public var redisKeyPrefix: String
    /// Whether the Redis is a Redis Cluster (`REDIS_CLUSTER=true`): `REDIS_URL` names any of its nodes, and every key
    /// carries a hash tag (`redisKeys`), so that one bot's counts live in one slot, on one node.
    public var redisCluster: Bool
    /// The embedded SQLite file (`MIRROR_BOT_DATA`, default `mirror_bot.sqlite` in the working directory): the archive
    /// when no `DATABASE_URL` is set, the word counts when no Redis is.
    public var embeddedDataPath: String
    /// The most posts the archive keeps; the oldest go first (`ARCHIVE_ROW_LIMIT`, default 10,000).
    public var archiveRowLimit: Int
    /// `MIRROR_BOT_KEY`: the text the tokens a bot keeps in its store (a Bluesky session) are sealed with (AES-GCM);
    /// nil when unset. A fleet seals with `FLEET_KEY` instead.
    public var tokenKey: String?

    /// The shortest `MIRROR_BOT_KEY` taken.
    public static let shortestTokenKey = 16

    /// Default of `ARCHIVE_ROW_LIMIT`, the original's (the free Postgres plan's row limit).
    public static let defaultArchiveRowLimit = 10_000

    /// The variables of this section.
    public static let variableNames = [
        "DATABASE_URL", "DATABASE_SCHEMA", "REDIS_URL", "REDISTOGO_URL", "REDIS_TLS_CA", "REDIS_KEY_PREFIX", "REDIS_CLUSTER",
        "MIRROR_BOT_DATA", "ARCHIVE_ROW_LIMIT", "MIRROR_BOT_KEY",
    ]

    /// Reads the section.
    public init(reading environment: inout EnvironmentReader) {
        database = nil
        if let text = environment.value("DATABASE_URL") {
            database = DatabaseURL(text)
            if database == nil {
                // The URL holds the password: it is never shown.
                environment.malformed(
                    "DATABASE_URL",
                    expected: "postgres://user:password@host:port/database, optionally with ?sslmode=disable|prefer|require|verify-full",
                    shown: nil)
            }
        }
        databaseSchema = environment.value("DATABASE_SCHEMA")
        if let schema = databaseSchema, !Self.isSchemaName(schema) {
            environment.malformed(
                "DATABASE_SCHEMA", expected: "a schema's name: 1 to 63 ASCII letters, digits and _, not starting with a digit", shown: schema)
            databaseSchema = nil
        }
        redis = nil
        if let name = ["REDIS_URL", "REDISTOGO_URL"].first(where: { environment.value($0) != nil }), let text = environment.value(name) {
            redis = RedisURL(text)
            if redis == nil { environment.malformed(name, expected: "redis://[:password@]host:port[/db], or rediss:// for TLS", shown: nil) }
        }
        redisTLSCertificateAuthority = environment.value("REDIS_TLS_CA")
        redisKeyPrefix = environment.environment["REDIS_KEY_PREFIX"] ?? ""
        redisCluster = environment.flag("REDIS_CLUSTER")
        embeddedDataPath = environment.environment["MIRROR_BOT_DATA"].flatMap { $0.isEmpty ? nil : $0 } ?? "mirror_bot.sqlite"
        archiveRowLimit = environment.count(
            "ARCHIVE_ROW_LIMIT", default: Self.defaultArchiveRowLimit, allowsZero: false, maximum: 100_000_000,
            meaning: "posts")
        tokenKey = environment.value("MIRROR_BOT_KEY")
        if let key = tokenKey, key.count < Self.shortestTokenKey {
            // A key is a secret: never shown.
            environment.malformed(
                "MIRROR_BOT_KEY", expected: "a random text of at least \(Self.shortestTokenKey) characters (say `openssl rand -base64 32`)",
                shown: nil)
            tokenKey = nil
        }
    }

    /// Whether `name` is a schema name the bot uses unquoted: ASCII letters, digits and `_`, not starting with a digit.
    public static func isSchemaName(_ name: String) -> Bool {
        (1...63).contains(name.utf8.count) && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            && !(name.first?.isNumber ?? true)
    }

    /// What goes before every Redis key: `REDIS_KEY_PREFIX`, and on a Redis Cluster a hash tag too (the prefix itself
    /// when it holds one, `{bot:alice}:` for the prefix `alice:`, `{bot:default}:` for none), so that all the keys of
    /// one bot are in one slot: a transaction and a script over many of its keys run on the one node that holds them.
    public var redisKeys: String {
        guard redisCluster else { return redisKeyPrefix }
        if let open = redisKeyPrefix.firstIndex(of: "{"), let close = redisKeyPrefix[open...].firstIndex(of: "}"),
            redisKeyPrefix.index(after: open) < close
        {
            return redisKeyPrefix
        }
        var name = redisKeyPrefix
        while name.hasSuffix(":") { name.removeLast() }
        return "{bot:\(name.isEmpty ? "default" : name)}:"
    }

    /// The variables `requirements` need of this section and that are not set.
    public func missing(_ requirements: Set<StoreRequirement>) -> [ConfigurationError.Problem] {
        var problems: [ConfigurationError.Problem] = []
        if requirements.contains(.database) && database == nil {
            problems.append(
                .init(
                    variable: "DATABASE_URL", isMissing: true,
                    expected: "postgres://user:password@host:port/database (Heroku's heroku-postgresql add-on sets it)"))
        }
        if requirements.contains(.redis) && redis == nil {
            problems.append(
                .init(
                    variable: "REDIS_URL", isMissing: true,
                    expected: "redis://host:port (Heroku's heroku-redis add-on sets it; REDISTOGO_URL is read too)"))
        }
        return problems
    }

    /// What a command can require of the storage section.
    public enum StoreRequirement: Sendable, Hashable {
        /// `DATABASE_URL`.
        case database
        /// `REDIS_URL` or `REDISTOGO_URL`.
        case redis
    }
}
