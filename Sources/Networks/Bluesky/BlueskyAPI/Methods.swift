import Foundation

// The XRPC methods the bot calls, each named after its lexicon (`../shared/reference/atproto-lexicons`).

/// `com.atproto.server.createSession`: logs in with a handle and an app password.
public struct CreateSession: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "com.atproto.server.createSession"
    /// A procedure.
    public static let kind = XRPCKind.procedure
    /// The input.
    public struct Input: Encodable, Sendable {
        /// The handle (or e-mail, or DID).
        public var identifier: String
        /// The app password.
        public var password: String
    }
    /// The handle and app password.
    public let input: Input
    /// A login as `identifier`.
    public init(identifier: String, password: String) { input = Input(identifier: identifier, password: password) }
    /// The session.
    public typealias Output = SessionOutput
}

/// `com.atproto.server.getSession`: who the session is (its DID and handle). Allowed by the `atproto` scope alone: the
/// check that a person's OAuth sign-in still works.
public struct GetSession: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "com.atproto.server.getSession"
    /// A query.
    public static let kind = XRPCKind.query
    /// The query.
    public init() {}
    /// None.
    public var parameters: [(String, String)] { [] }
    /// The session's account.
    public struct Output: Decodable, Sendable {
        /// Its handle.
        public var handle: String
        /// Its DID.
        public var did: String
    }
}

/// `com.atproto.server.refreshSession`: a new access token (and refresh token) for the refresh token sent.
public struct RefreshSession: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "com.atproto.server.refreshSession"
    /// A procedure, with the refresh token as its bearer and no input.
    public static let kind = XRPCKind.procedure
    /// The renewed session.
    public typealias Output = SessionOutput
    /// A renewal.
    public init() {}
}

/// `com.atproto.identity.resolveHandle`: the DID of a handle.
public struct ResolveHandle: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "com.atproto.identity.resolveHandle"
    /// A query.
    public static let kind = XRPCKind.query
    /// The handle.
    public var handle: String
    /// The query for `handle`.
    public init(handle: String) { self.handle = handle }
    /// `handle`.
    public var parameters: [(String, String)] { [("handle", handle)] }
    /// The DID.
    public struct Output: Decodable, Sendable {
        /// The DID.
        public var did: String
    }
}

/// `com.atproto.identity.resolveIdentity`: a handle's (or DID's) DID, verified handle and DID document, whose PDS the
/// account's OAuth sign-in starts from.
public struct ResolveIdentity: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "com.atproto.identity.resolveIdentity"
    /// A query.
    public static let kind = XRPCKind.query
    /// The handle or DID.
    public var identifier: String
    /// The query for `identifier`.
    public init(identifier: String) { self.identifier = identifier }
    /// `identifier`.
    public var parameters: [(String, String)] { [("identifier", identifier)] }
    /// `com.atproto.identity.defs#identityInfo`.
    public struct Output: Decodable, Sendable {
        /// The DID.
        public var did: String
        /// The handle, verified both ways (`handle.invalid` when it is not).
        public var handle: String
        /// The DID document.
        public var didDoc: DIDDocument?
    }
}

/// `app.bsky.actor.getProfile`: an account's profile, its description and labels included.
public struct GetProfile: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "app.bsky.actor.getProfile"
    /// A query.
    public static let kind = XRPCKind.query
    /// A handle or DID.
    public var actor: String
    /// The profile of `actor`.
    public init(actor: String) { self.actor = actor }
    /// `actor`.
    public var parameters: [(String, String)] { [("actor", actor)] }
    /// The profile.
    public typealias Output = ProfileView
}

/// A page of a feed: its items and the cursor of the next (older) page.
public struct FeedPage: Decodable, Sendable, Equatable {
    /// The next page's cursor; nil after the last.
    public var cursor: String?
    /// The items, newest first.
    public var feed: [FeedViewPost]
}

/// `app.bsky.feed.getAuthorFeed`: an account's posts, newest first (reposts come with a `reason`).
public struct GetAuthorFeed: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "app.bsky.feed.getAuthorFeed"
    /// A query.
    public static let kind = XRPCKind.query
    /// The lexicon's filters.
    public enum Filter: String, Sendable {
        /// Posts without the account's replies.
        case postsNoReplies = "posts_no_replies"
        /// Posts and the account's replies.
        case postsWithReplies = "posts_with_replies"
    }
    /// A handle or DID.
    public var actor: String
    /// Items a page (1–100).
    public var limit: Int
    /// The page after this cursor.
    public var cursor: String?
    /// What is in it.
    public var filter: Filter
    /// The feed of `actor`.
    public init(actor: String, limit: Int = 100, cursor: String? = nil, filter: Filter = .postsWithReplies) {
        self.actor = actor
        self.limit = limit
        self.cursor = cursor
        self.filter = filter
    }
    /// `actor`, `limit`, `cursor`, `filter`.
    public var parameters: [(String, String)] {
        [("actor", actor), ("limit", String(limit))] + (cursor.map { [("cursor", $0)] } ?? []) + [("filter", filter.rawValue)]
    }
    /// A page.
    public typealias Output = FeedPage
}

/// `app.bsky.feed.getActorLikes`: the posts an account liked, most recently liked first (only its own, with its session).
public struct GetActorLikes: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "app.bsky.feed.getActorLikes"
    /// A query.
    public static let kind = XRPCKind.query
    /// A handle or DID.
    public var actor: String
    /// Items a page (1–100).
    public var limit: Int
    /// The page after this cursor.
    public var cursor: String?
    /// The likes of `actor`.
    public init(actor: String, limit: Int = 100, cursor: String? = nil) {
        self.actor = actor
        self.limit = limit
        self.cursor = cursor
    }
    /// `actor`, `limit`, `cursor`.
    public var parameters: [(String, String)] { [("actor", actor), ("limit", String(limit))] + (cursor.map { [("cursor", $0)] } ?? []) }
    /// A page.
    public typealias Output = FeedPage
}

/// `app.bsky.feed.getTimeline`: the session's home timeline.
public struct GetTimeline: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "app.bsky.feed.getTimeline"
    /// A query.
    public static let kind = XRPCKind.query
    /// Items a page (1–100).
    public var limit: Int
    /// The page after this cursor.
    public var cursor: String?
    /// The timeline.
    public init(limit: Int = 50, cursor: String? = nil) {
        self.limit = limit
        self.cursor = cursor
    }
    /// `limit`, `cursor`.
    public var parameters: [(String, String)] { [("limit", String(limit))] + (cursor.map { [("cursor", $0)] } ?? []) }
    /// A page.
    public typealias Output = FeedPage
}

/// `app.bsky.notification.listNotifications`: the session's notifications, newest first.
public struct ListNotifications: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "app.bsky.notification.listNotifications"
    /// A query.
    public static let kind = XRPCKind.query
    /// Which reasons (`mention`, `reply`); all when empty.
    public var reasons: [String]
    /// Items a page (1–100).
    public var limit: Int
    /// The page after this cursor.
    public var cursor: String?
    /// The notifications for `reasons`.
    public init(reasons: [String] = ["mention", "reply"], limit: Int = 50, cursor: String? = nil) {
        self.reasons = reasons
        self.limit = limit
        self.cursor = cursor
    }
    /// `reasons` (repeated), `limit`, `cursor`.
    public var parameters: [(String, String)] {
        reasons.map { ("reasons", $0) } + [("limit", String(limit))] + (cursor.map { [("cursor", $0)] } ?? [])
    }
    /// A page.
    public struct Output: Decodable, Sendable {
        /// The next page's cursor.
        public var cursor: String?
        /// The notifications.
        public var notifications: [BlueskyNotification]
    }
}

/// `app.bsky.feed.getPosts`: up to 25 posts by URI; a deleted one is simply absent.
public struct GetPosts: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "app.bsky.feed.getPosts"
    /// A query.
    public static let kind = XRPCKind.query
    /// The lexicon's most URIs a call.
    public static let maxURIs = 25
    /// The AT URIs.
    public var uris: [String]
    /// The posts at `uris` (at most 25).
    public init(uris: [String]) { self.uris = Array(uris.prefix(Self.maxURIs)) }
    /// `uris` (repeated).
    public var parameters: [(String, String)] { uris.map { ("uris", $0) } }
    /// The posts that are there.
    public struct Output: Decodable, Sendable {
        /// The posts.
        public var posts: [PostView]
    }
}

/// The output of a record's write: its URI and CID.
public struct RecordWritten: Decodable, Sendable, Equatable {
    /// The record's AT URI.
    public var uri: String
    /// Its CID.
    public var cid: String
    /// Its strong reference.
    public var ref: StrongRef { StrongRef(uri: uri, cid: cid) }
}

/// `com.atproto.repo.putRecord`: writes the record at a key the bot chose, creating or replacing it. Repeatable:
/// however often it arrives, one record is there.
public struct PutRecord<Record: Encodable & Sendable>: XRPCMethod {
    /// The lexicon's id.
    public static var nsid: String { "com.atproto.repo.putRecord" }
    /// A procedure.
    public static var kind: XRPCKind { .procedure }
    /// The input.
    public struct Input: Encodable, Sendable {
        /// The account's DID.
        public var repo: String
        /// The collection.
        public var collection: String
        /// The record key.
        public var rkey: String
        /// The record.
        public var record: Record
        /// The CID of the record replaced: the write fails when it changed meanwhile.
        public var swapRecord: String?
    }
    /// The input.
    public let input: Input
    /// Writes `record` at `rkey` of `collection` in `repo`; `swapRecord` makes it a compare-and-swap.
    public init(repo: String, collection: String, rkey: String, record: Record, swapRecord: String? = nil) {
        input = Input(repo: repo, collection: collection, rkey: rkey, record: record, swapRecord: swapRecord)
    }
    /// Repeatable: the key makes it one record.
    public var isRepeatable: Bool { true }
    /// Where it was written.
    public typealias Output = RecordWritten
}

/// `com.atproto.repo.deleteRecord`: deletes a record (repeatable: deleting what is gone changes nothing).
public struct DeleteRecord: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "com.atproto.repo.deleteRecord"
    /// A procedure.
    public static let kind = XRPCKind.procedure
    /// The input.
    public struct Input: Encodable, Sendable {
        /// The account's DID.
        public var repo: String
        /// The collection.
        public var collection: String
        /// The record key.
        public var rkey: String
    }
    /// The input.
    public let input: Input
    /// Deletes `rkey` of `collection` in `repo`.
    public init(repo: String, collection: String, rkey: String) { input = Input(repo: repo, collection: collection, rkey: rkey) }
    /// Repeatable.
    public var isRepeatable: Bool { true }
    /// Nothing read.
    public typealias Output = NoOutput
}

/// `com.atproto.repo.getRecord`: one record, with its CID, as JSON kept whole.
public struct GetRecord: XRPCMethod {
    /// The lexicon's id.
    public static let nsid = "com.atproto.repo.getRecord"
    /// A query.
    public static let kind = XRPCKind.query
    /// The account's DID.
    public var repo: String
    /// The collection.
    public var collection: String
    /// The record key.
    public var rkey: String
    /// The record at `rkey` of `collection` in `repo`.
    public init(repo: String, collection: String, rkey: String) {
        self.repo = repo
        self.collection = collection
        self.rkey = rkey
    }
    /// `repo`, `collection`, `rkey`.
    public var parameters: [(String, String)] { [("repo", repo), ("collection", collection), ("rkey", rkey)] }
    /// The record.
    public struct Output: Decodable, Sendable {
        /// Its URI.
        public var uri: String
        /// Its CID.
        public var cid: String?
        /// The record.
        public var value: JSONValue
    }
}
