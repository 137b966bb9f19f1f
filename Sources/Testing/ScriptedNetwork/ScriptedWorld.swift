public import BotCore
public import Foundation
import Synchronization

/// What a scripted network serves, kept across the daemon's restarts: its users, every post (the person's, their
/// friends', the bot's), when each appears and whether it was deleted, the likes, and every call made with what it met.
/// The truth a test compares the bot's records with.
public final class ScriptedWorld: Sendable {
    /// A user of the network.
    public struct User: Sendable, Equatable {
        /// The id.
        public var id: String
        /// The handle, without `@`.
        public var handle: String
        /// Whether their profile asks bots not to interact (`#nobot`).
        public var asksNoBots: Bool

        /// A user from its parts.
        public init(id: String, handle: String, asksNoBots: Bool = false) {
            self.id = id
            self.handle = handle
            self.asksNoBots = asksNoBots
        }
    }

    /// A post on the network.
    public struct Post: Sendable, Equatable {
        /// Its id; ids grow with time.
        public var id: Int64
        /// Its author.
        public var authorID: String
        /// The text as written.
        public var text: String
        /// When it was posted (it is seen from then on).
        public var createdAt: Date
        /// The post it answers.
        public var replyToPostID: Int64?
        /// The user it answers.
        public var replyToUserID: String?
        /// Its thread.
        public var conversationID: Int64?
        /// Whether it repeats someone else's post.
        public var isRepost = false
        /// Its content warning.
        public var contentWarning: String?
        /// When it was deleted, if it was.
        public var deletedAt: Date?
        /// The bot's posts: what it was for (a slot's key, or the mention it answers).
        public var madeFor: String?
        /// Whether it mentions the bot (a mention).
        public var mentionsBot = false
        /// Whose home timelines show it.
        public var onTimelinesOf: Set<Account> = []

        /// A post from its parts.
        public init(
            id: Int64, authorID: String, text: String, createdAt: Date, replyToPostID: Int64? = nil, replyToUserID: String? = nil,
            conversationID: Int64? = nil, isRepost: Bool = false, contentWarning: String? = nil, mentionsBot: Bool = false,
            onTimelinesOf: Set<Account> = []
        ) {
            self.id = id
            self.authorID = authorID
            self.text = text
            self.createdAt = createdAt
            self.replyToPostID = replyToPostID
            self.replyToUserID = replyToUserID
            self.conversationID = conversationID
            self.isRepost = isRepost
            self.contentWarning = contentWarning
            self.mentionsBot = mentionsBot
            self.onTimelinesOf = onTimelinesOf
        }

        /// Whether it can be seen at `date`: posted, and not deleted.
        public func isVisible(at date: Date) -> Bool { createdAt <= date && (deletedAt.map { $0 > date } ?? true) }
    }

    /// One call to the network and what it met.
    public struct Call: Sendable, Equatable {
        /// When, on the bot's clock.
        public var at: Date
        /// The operation (`post`, `mentions`, `postExists`, ...).
        public var operation: String
        /// What it was about (a slot, a post id).
        public var key: String
        /// The fault it met, if any.
        public var fault: Fault?
        /// Whether the call was carried out on the network (a write made, a read answered).
        public var carriedOut: Bool
    }

    struct State {
        var posts: [Int64: Post] = [:]
        var sequence: UInt64 = 0
        var likes: [Int64: Date] = [:]
        var personsLikes: [(postID: Int64, likedAt: Date)] = []
        var calls: [Call] = []
        var attempts: [String: Int] = [:]
        var refusedUntil: [String: Date] = [:]
        var repeatsRefused: [String] = []
    }

    let state = Mutex(State())
    /// The person.
    public let human: User
    /// The bot.
    public let bot: User
    /// Everyone else who posts.
    public let others: [User]

    /// A world of these users.
    public init(human: User, bot: User, others: [User]) {
        self.human = human
        self.bot = bot
        self.others = others
    }

    /// The user with `id`.
    public func user(_ id: String) -> User? { ([human, bot] + others).first { $0.id == id } }

    /// Adds posts (the person's history, what arrives during the day).
    public func add(_ posts: [Post]) {
        state.withLock { state in
            for post in posts { state.posts[post.id] = post }
        }
    }

    /// Records that the person liked `postID` at `date`.
    public func addPersonsLike(_ postID: Int64, at date: Date) { state.withLock { $0.personsLikes.append((postID, date)) } }

    /// Deletes the post `id` at `date` (the person deleting one of theirs).
    public func delete(_ id: Int64, at date: Date) { state.withLock { $0.posts[id]?.deletedAt = date } }

    /// Every post, by id.
    public var posts: [Int64: Post] { state.withLock { $0.posts } }
    /// The bot's posts, oldest first, deleted ones included.
    public var botPosts: [Post] { state.withLock { $0.posts.values.filter { $0.authorID == bot.id && $0.madeFor != nil }.sorted { $0.id < $1.id } } }
    /// The posts the bot liked, with when.
    public var likes: [Int64: Date] { state.withLock { $0.likes } }
    /// Every call so far.
    public var calls: [Call] { state.withLock { $0.calls } }
    /// The texts a create was refused for because the bot had posted them within the network's repeat window.
    public var repeatsRefused: [String] { state.withLock { $0.repeatsRefused } }
}
