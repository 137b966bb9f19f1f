import BotClock
public import Foundation
import PostText

/// A post as the X API v2 returns it, with the fields mirror_bot asks for. Ids are strings, as in the API.
public struct XTweet: Codable, Sendable, Equatable, Hashable {
    /// The post's id.
    public var id: String
    /// The text: HTML-escaped (`&amp;`, `&lt;`, `&gt;`), with t.co links for URLs.
    public var text: String
    /// `author_id`.
    public var authorID: String?
    /// `created_at`.
    public var createdAt: Date?
    /// `in_reply_to_user_id`: the user this post replies to.
    public var inReplyToUserID: String?
    /// `conversation_id`: the id of the post that started the thread.
    public var conversationID: String?
    /// `referenced_tweets`: what this post retweets, quotes or replies to.
    public var referencedTweets: [ReferencedTweet]?
    /// `entities`: the URLs (and other entities) of the text.
    public var entities: Entities?

    /// One entry of `referenced_tweets`.
    public struct ReferencedTweet: Codable, Sendable, Equatable, Hashable {
        /// `retweeted`, `quoted` or `replied_to`.
        public var type: String
        /// The referenced post's id.
        public var id: String
        /// A reference from its parts.
        public init(type: String, id: String) {
            self.type = type
            self.id = id
        }
    }

    /// The entities mirror_bot uses.
    public struct Entities: Codable, Sendable, Equatable, Hashable {
        /// The URLs of the text.
        public var urls: [URLEntity]?
        /// Entities from their parts.
        public init(urls: [URLEntity]?) { self.urls = urls }
    }

    /// A URL of the text: the t.co link and where it goes.
    public struct URLEntity: Codable, Sendable, Equatable, Hashable {
        /// Start index in the text (inclusive).
        public var start: Int
        /// End index in the text (exclusive).
        public var end: Int
        /// The t.co link as it appears in the text.
        public var url: String
        /// The real URL.
        public var expandedURL: String?
        /// The URL as displayed.
        public var displayURL: String?

        /// An entity from its parts.
        public init(start: Int, end: Int, url: String, expandedURL: String?, displayURL: String? = nil) {
            self.start = start
            self.end = end
            self.url = url
            self.expandedURL = expandedURL
            self.displayURL = displayURL
        }

        enum CodingKeys: String, CodingKey {
            case start, end, url
            case expandedURL = "expanded_url"
            case displayURL = "display_url"
        }
    }

    /// A post from its parts.
    public init(
        id: String, text: String, authorID: String? = nil, createdAt: Date? = nil, inReplyToUserID: String? = nil,
        conversationID: String? = nil, referencedTweets: [ReferencedTweet]? = nil, entities: Entities? = nil
    ) {
        self.id = id
        self.text = text
        self.authorID = authorID
        self.createdAt = createdAt
        self.inReplyToUserID = inReplyToUserID
        self.conversationID = conversationID
        self.referencedTweets = referencedTweets
        self.entities = entities
    }

    enum CodingKeys: String, CodingKey {
        case id, text, entities
        case authorID = "author_id"
        case createdAt = "created_at"
        case inReplyToUserID = "in_reply_to_user_id"
        case conversationID = "conversation_id"
        case referencedTweets = "referenced_tweets"
    }

    /// Whether the post is a retweet (never archived, never liked): a native one, or an old-style `RT @name:` copy.
    public var isRetweet: Bool {
        (referencedTweets?.contains { $0.type == "retweeted" } ?? false) || text.hasPrefix("RT @")
    }

    /// The id of the post this one replies to, if any.
    public var repliedToTweetID: String? { referencedTweets?.first { $0.type == "replied_to" }?.id }

    /// The text as the human wrote it: t.co links expanded, and the three characters X escapes (`&amp;`, `&lt;`,
    /// `&gt;`) unescaped, so that posting it again posts what the human posted.
    public var plainText: String {
        WrittenText.from(escaped: text, links: (entities?.urls ?? []).compactMap { entity in entity.expandedURL.map { (entity.url, $0) } })
    }
}

/// An X user as the API returns it.
public struct XUser: Codable, Sendable, Equatable, Hashable {
    /// The user's id.
    public var id: String
    /// Display name.
    public var name: String
    /// The @handle, without `@`.
    public var username: String
    /// The bio, when asked for (`user.fields=description`).
    public var description: String?
    /// A user from its parts.
    public init(id: String, name: String, username: String, description: String? = nil) {
        self.id = id
        self.name = name
        self.username = username
        self.description = description
    }
}

/// An RFC 7807 problem as the X API reports it, in error responses and as partial `errors` of a 200.
public struct XProblem: Codable, Sendable, Equatable, Hashable, CustomStringConvertible {
    /// A URI naming the kind of problem, such as `https://api.twitter.com/2/problems/usage-capped`.
    public var type: String?
    /// A short summary.
    public var title: String?
    /// What happened.
    public var detail: String?
    /// The HTTP status, when given.
    public var status: Int?
    /// For partial errors: the value the problem is about (an id), when given.
    public var value: String?
    /// For partial errors: what the value is (`id`, ...), when given.
    public var parameter: String?
    /// For `client-forbidden`: why (`client-not-enrolled`, `official-client-forbidden`).
    public var reason: String?

    /// A problem from its parts.
    public init(
        type: String?, title: String?, detail: String?, status: Int? = nil, value: String? = nil, parameter: String? = nil,
        reason: String? = nil
    ) {
        self.type = type
        self.title = title
        self.detail = detail
        self.status = status
        self.value = value
        self.parameter = parameter
        self.reason = reason
    }

    /// The last path component of `type` (`usage-capped`, `resource-not-found`, ...).
    public var kind: String { type.map { String($0.split(separator: "/").last ?? "") } ?? "" }

    /// "title: detail".
    public var description: String {
        [title, detail].compactMap { $0 }.joined(separator: ": ").nonEmpty ?? kind.nonEmpty ?? "unknown problem"
    }
}

/// The `includes` of a response: the users `expansions=author_id` asked for.
public struct XIncludes: Codable, Sendable, Equatable {
    /// The users referenced by the posts.
    public var users: [XUser]?
    /// Includes from their parts.
    public init(users: [XUser]?) { self.users = users }
}

/// The `meta` of a timeline response.
public struct XPageMeta: Codable, Sendable, Equatable {
    /// Posts in this page.
    public var resultCount: Int?
    /// Token of the next (older) page; absent on the last page.
    public var nextToken: String?
    /// Newest post id in this page.
    public var newestID: String?
    /// Oldest post id in this page.
    public var oldestID: String?

    /// Meta from its parts.
    public init(resultCount: Int?, nextToken: String? = nil, newestID: String? = nil, oldestID: String? = nil) {
        self.resultCount = resultCount
        self.nextToken = nextToken
        self.newestID = newestID
        self.oldestID = oldestID
    }

    enum CodingKeys: String, CodingKey {
        case resultCount = "result_count"
        case nextToken = "next_token"
        case newestID = "newest_id"
        case oldestID = "oldest_id"
    }
}

/// One page of posts from a timeline endpoint.
public struct XTweetPage: Codable, Sendable, Equatable {
    /// The posts, newest first; nil when the page is empty.
    public var data: [XTweet]?
    /// The authors, when `expansions=author_id` was asked for.
    public var includes: XIncludes?
    /// Paging information.
    public var meta: XPageMeta?
    /// Partial errors: posts that could not be returned (deleted, protected).
    public var errors: [XProblem]?

    /// A page from its parts.
    public init(data: [XTweet]?, includes: XIncludes? = nil, meta: XPageMeta?, errors: [XProblem]? = nil) {
        self.data = data
        self.includes = includes
        self.meta = meta
        self.errors = errors
    }

    /// The posts of the page (empty when none).
    public var tweets: [XTweet] { data ?? [] }

    /// The @handle of a post's author, from the includes.
    public func username(of authorID: String?) -> String? {
        guard let authorID else { return nil }
        return includes?.users?.first { $0.id == authorID }?.username
    }
}

/// A response whose `data` is one object.
public struct XSingleResponse<Data: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    /// The object.
    public var data: Data?
    /// Partial errors.
    public var errors: [XProblem]?
    /// A response from its parts.
    public init(data: Data?, errors: [XProblem]? = nil) {
        self.data = data
        self.errors = errors
    }
}

/// `data` of `POST /2/tweets`.
public struct XCreatedTweet: Codable, Sendable, Equatable {
    /// The new post's id.
    public var id: String
    /// Its text.
    public var text: String
    /// A created post from its parts.
    public init(id: String, text: String) {
        self.id = id
        self.text = text
    }
}

/// `data` of `DELETE /2/tweets/:id`.
public struct XDeleteResult: Codable, Sendable, Equatable {
    /// Whether the post is now deleted.
    public var deleted: Bool?
    /// A result from its parts.
    public init(deleted: Bool?) { self.deleted = deleted }
}

/// `data` of a like or unlike: whether the post is liked now.
public struct XLikeResult: Codable, Sendable, Equatable {
    /// Whether the post is now liked.
    public var liked: Bool?
    /// A result from its parts.
    public init(liked: Bool?) { self.liked = liked }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}

/// JSON coding as the X API does it: ISO 8601 times with milliseconds (`2021-01-06T18:40:40.000Z`).
public enum XJSON {
    /// A decoder for X API responses.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
        return decoder
    }

    /// An encoder writing what X API responses look like.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        return encoder
    }
}
