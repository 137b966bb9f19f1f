public import Foundation

/// A post as the bot uses it, whatever the network: its plain text as its author wrote it (entities decoded, links
/// expanded), who wrote it, when, and what it answers.
public struct NetworkPost: Sendable, Equatable {
    /// The post's id on its network.
    public var id: String
    /// The text as written: entities decoded, links expanded.
    public var text: String
    /// The author's id.
    public var authorID: String?
    /// The author's handle, without `@`, when the read asked for it.
    public var authorHandle: String?
    /// When it was posted, when the read asked for it.
    public var createdAt: Date?
    /// The user it answers, if it is a reply.
    public var replyToUserID: String?
    /// The post it answers, if it is a reply.
    public var replyToPostID: String?
    /// The thread it belongs to.
    public var conversationID: String?
    /// Whether it is a repost (a repost, a boost) of someone else's post.
    public var isRepost: Bool
    /// Whether its author's profile asks bots not to answer (`#nobot`, a fediverse convention), where the network
    /// says.
    public var authorAsksNoBots: Bool
    /// Its content warning (Mastodon's `spoiler_text`), when it has one and the bot may copy it (`POST_CW`).
    public var contentWarning: String?
    /// Where it stands in the list it was read from, when that is not its id: a mention read from Mastodon's
    /// notifications stands at its notification's id, which is what the next read asks for what is newer than.
    public var position: String?
    /// When the person liked it, in a list of their likes, where the network says (Misskey's reactions do; X's,
    /// Mastodon's and Bluesky's lists of likes do not).
    public var likedAt: Date?

    /// Where a reader of its list has got to once it is handled: its position, else its id.
    public var positionInList: String { position ?? id }

    /// A post from its parts.
    public init(
        id: String, text: String, authorID: String? = nil, authorHandle: String? = nil, createdAt: Date? = nil,
        replyToUserID: String? = nil, replyToPostID: String? = nil, conversationID: String? = nil, isRepost: Bool = false,
        authorAsksNoBots: Bool = false, position: String? = nil, contentWarning: String? = nil
    ) {
        self.id = id
        self.text = text
        self.authorID = authorID
        self.authorHandle = authorHandle
        self.createdAt = createdAt
        self.replyToUserID = replyToUserID
        self.replyToPostID = replyToPostID
        self.conversationID = conversationID
        self.isRepost = isRepost
        self.authorAsksNoBots = authorAsksNoBots
        self.position = position
        self.contentWarning = contentWarning
    }
}

/// A user on the network.
public struct NetworkUser: Sendable, Equatable {
    /// The id.
    public var id: String
    /// The handle, without `@`.
    public var handle: String
    /// The profile's text (X's bio, Mastodon's note), when the read gave it.
    public var profile: String?
    /// Whether the account is marked as automated (Mastodon's bot flag), where the network has such a mark.
    public var markedAutomated: Bool?
    /// The account as the network itself names it, where that differs from `id`; nil: `id`.
    public var networkAccount: String?

    /// A user from its parts.
    public init(id: String, handle: String, profile: String? = nil, markedAutomated: Bool? = nil, networkAccount: String? = nil) {
        self.id = id
        self.handle = handle
        self.profile = profile
        self.markedAutomated = markedAutomated
        self.networkAccount = networkAccount
    }
}

/// One page of posts, and the newest id the page reached (for reading only what is newer next time).
public struct NetworkPage: Sendable, Equatable {
    /// The posts, newest first.
    public var posts: [NetworkPost]
    /// The id of the newest post of the page, when the network says it.
    public var newestID: String?

    /// A page from its parts.
    public init(posts: [NetworkPost], newestID: String?) {
        self.posts = posts
        self.newestID = newestID
    }
}

/// Pages of posts, newest first, read one at a time as they are asked for.
public struct NetworkPages: AsyncSequence, Sendable {
    /// Each element is a page.
    public typealias Element = NetworkPage

    private let start: @Sendable () -> Iterator

    /// Pages from `start`, which makes a fresh reader of them.
    public init(_ start: @escaping @Sendable () -> Iterator) { self.start = start }

    /// A reader of the pages.
    public func makeAsyncIterator() -> Iterator { start() }

    /// Reads the next page when asked.
    public struct Iterator: AsyncIteratorProtocol {
        private let nextPage: () async throws -> NetworkPage?

        /// A reader calling `nextPage` for each page (nil after the last).
        public init(_ nextPage: @escaping () async throws -> NetworkPage?) { self.nextPage = nextPage }

        /// The next page, or nil after the last.
        public mutating func next() async throws -> NetworkPage? { try await nextPage() }
    }
}

/// Posts pushed by the network one at a time as they happen (mentions over a stream), until the network closes the
/// stream.
public struct NetworkPostStream: AsyncSequence, Sendable {
    /// Each element is a post.
    public typealias Element = NetworkPost

    private let start: @Sendable () -> NetworkPostStream.Iterator

    /// Posts from `start`, which makes the reader of them.
    public init(_ start: @escaping @Sendable () -> NetworkPostStream.Iterator) { self.start = start }

    /// A reader of the posts.
    public func makeAsyncIterator() -> Iterator { start() }

    /// Reads the next post when asked.
    public struct Iterator: AsyncIteratorProtocol {
        private let nextPost: () async throws -> NetworkPost?

        /// A reader calling `nextPost` for each post (nil once the stream ended).
        public init(_ nextPost: @escaping () async throws -> NetworkPost?) { self.nextPost = nextPost }

        /// The next post, or nil once the stream ended.
        public mutating func next() async throws -> NetworkPost? { try await nextPost() }
    }
}
