public import Foundation

/// What the fake X server starts with, as a JSON file (`fake-x --seed FILE`) or a value (tests).
public struct FakeXSeed: Codable, Sendable {
    /// A user.
    public struct User: Codable, Sendable {
        /// Id.
        public var id: String
        /// @handle without `@`.
        public var username: String
        /// Display name.
        public var name: String
        /// The bio (`description`), given when `user.fields` asks for it.
        public var description: String?
        /// A user from its parts.
        public init(id: String, username: String, name: String? = nil, description: String? = nil) {
            self.id = id
            self.username = username
            self.name = name ?? username
            self.description = description
        }
    }

    /// OAuth 1.0a credentials that act as a user.
    public struct Account: Codable, Sendable {
        /// The user they act as.
        public var userID: String
        /// Consumer key.
        public var consumerKey: String
        /// Consumer secret.
        public var consumerSecret: String
        /// Access token.
        public var accessToken: String
        /// Access token secret.
        public var accessTokenSecret: String
        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case consumerKey = "consumer_key"
            case consumerSecret = "consumer_secret"
            case accessToken = "access_token"
            case accessTokenSecret = "access_token_secret"
        }

        /// An account from its parts.
        public init(userID: String, consumerKey: String, consumerSecret: String, accessToken: String, accessTokenSecret: String) {
            self.userID = userID
            self.consumerKey = consumerKey
            self.consumerSecret = consumerSecret
            self.accessToken = accessToken
            self.accessTokenSecret = accessTokenSecret
        }
    }

    /// A post.
    public struct Tweet: Codable, Sendable {
        /// Id (numeric string; ids order posts by time, as X's do).
        public var id: String
        /// Author's user id.
        public var authorID: String
        /// Text, HTML-escaped as X sends it.
        public var text: String
        /// When it was posted; the server shows it only once its clock has reached this.
        public var createdAt: Date
        /// The post it replies to, if any.
        public var inReplyToTweetID: String?
        /// The user it replies to, if any.
        public var inReplyToUserID: String?
        /// The post it retweets, if it is a retweet.
        public var retweetOf: String?
        /// t.co links in the text and their real URLs.
        public var urls: [Link]?

        /// A link of the text.
        public struct Link: Codable, Sendable {
            /// The t.co URL in the text.
            public var url: String
            /// Where it goes.
            public var expandedURL: String
            /// A link from its parts.
            public init(url: String, expandedURL: String) {
                self.url = url
                self.expandedURL = expandedURL
            }

            enum CodingKeys: String, CodingKey {
                case url
                case expandedURL = "expanded_url"
            }
        }

        enum CodingKeys: String, CodingKey {
            case id, text, urls
            case authorID = "author_id"
            case createdAt = "created_at"
            case inReplyToTweetID = "in_reply_to_tweet_id"
            case inReplyToUserID = "in_reply_to_user_id"
            case retweetOf = "retweet_of"
        }

        /// A post from its parts.
        public init(
            id: String, authorID: String, text: String, createdAt: Date, inReplyToTweetID: String? = nil,
            inReplyToUserID: String? = nil, retweetOf: String? = nil, urls: [Link]? = nil
        ) {
            self.id = id
            self.authorID = authorID
            self.text = text
            self.createdAt = createdAt
            self.inReplyToTweetID = inReplyToTweetID
            self.inReplyToUserID = inReplyToUserID
            self.retweetOf = retweetOf
            self.urls = urls
        }
    }

    /// The server's clock at start; the real time when absent.
    public var now: Date?
    /// Every user.
    public var users: [User]
    /// Credentials the server accepts.
    public var accounts: [Account]
    /// Every post.
    public var tweets: [Tweet]
    /// Likes per user id, most recent like first.
    public var likes: [String: [String]]
    /// Whom each user follows (their home timeline shows those users' posts and their own).
    public var follows: [String: [String]]
    /// Calls per 15-minute window by endpoint name (`GET /2/users/:id/tweets`), overriding the documented ones.
    public var rateLimits: [String: Int]?
    /// Server seconds per real second from start (a bot run at `--speed N` wants N); absent or 0: the clock
    /// stands still unless moved through /admin/clock.
    public var speed: Double?
    /// Users that answer every post mentioning them or replying to them, 30 server seconds later (a bot loop).
    public var autoRepliers: [String]?
    /// The apps' access level; absent: `pay-per-use`, today's self-serve access, which has no likes endpoints.
    public var access: Access?
    /// Each app's prepaid credits in US dollars; absent: unlimited. When an app's bill reaches them, X answers 402.
    public var credits: Double?

    /// An app's access level on X.
    public enum Access: String, Codable, Sendable {
        /// Self-serve pay-per-use access as of 2026-04-20: the likes endpoints answer 403 client-forbidden.
        case payPerUse = "pay-per-use"
        /// Enterprise access: likes work.
        case enterprise
    }

    enum CodingKeys: String, CodingKey {
        case now, users, accounts, tweets, likes, follows, speed, access, credits
        case rateLimits = "rate_limits"
        case autoRepliers = "auto_repliers"
    }

    /// A seed from its parts.
    public init(
        now: Date? = nil, users: [User], accounts: [Account], tweets: [Tweet] = [], likes: [String: [String]] = [:],
        follows: [String: [String]] = [:], rateLimits: [String: Int]? = nil, speed: Double? = nil, autoRepliers: [String]? = nil,
        access: Access? = nil, credits: Double? = nil
    ) {
        self.now = now
        self.users = users
        self.accounts = accounts
        self.tweets = tweets
        self.likes = likes
        self.follows = follows
        self.rateLimits = rateLimits
        self.speed = speed
        self.autoRepliers = autoRepliers
        self.access = access
        self.credits = credits
    }

    /// Reads a seed file (JSON with snake_case keys; times in ISO 8601). Errors name the file and the place.
    public static func load(path: String) throws -> FakeXSeed {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SeedFileError(path: path, reason: "it cannot be read (\((error as NSError).localizedDescription))")
        }
        do {
            return try decoder().decode(FakeXSeed.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw SeedFileError(path: path, reason: "\(Self.place(context.codingPath + [key])) is missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw SeedFileError(path: path, reason: "\(Self.place(context.codingPath)): \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) {
            throw SeedFileError(path: path, reason: "\(Self.place(context.codingPath)): \(context.debugDescription)")
        }
    }

    /// The decoder for seed files and admin requests.
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    private static func place(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "the top level" : path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
    }

    /// Writes the seed as JSON.
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}

/// A seed file that cannot be used, with the place of the problem.
public struct SeedFileError: Error, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What is wrong.
    public var reason: String
    /// "The seed file PATH cannot be used: REASON."
    public var description: String {
        "The seed file \(path) cannot be used: \(reason.hasSuffix(".") ? String(reason.dropLast()) : reason)."
    }
}
