import Foundation

/// A strong reference to a record (`com.atproto.repo.strongRef`): its AT URI and the CID of the version meant.
public struct StrongRef: Codable, Sendable, Equatable, Hashable {
    /// `at://<did>/<collection>/<rkey>`.
    public var uri: String
    /// The record version's CID.
    public var cid: String
    /// A reference from its parts.
    public init(uri: String, cid: String) {
        self.uri = uri
        self.cid = cid
    }
}

/// A post record (`app.bsky.feed.post`), with the fields the bot writes and decides by.
public struct PostRecord: Codable, Sendable, Equatable {
    /// At most 300 graphemes (and 3,000 bytes of UTF-8).
    public var text: String
    /// When the post says it was made (RFC 3339).
    public var createdAt: String
    /// The post's languages (BCP 47), such as `ja`.
    public var langs: [String]?
    /// Links, mentions and tags, by UTF-8 byte range.
    public var facets: [Facet]?
    /// The thread it answers.
    public var reply: ReplyRef?
    /// The author's own labels (`!warn`, `porn`, …).
    public var labels: SelfLabels?
    /// An embed's kind only (`app.bsky.embed.record`: a quote; images, a link card): the bot never copies a quote.
    public var embed: EmbedKind?

    /// A post from its parts.
    public init(
        text: String, createdAt: String, langs: [String]? = nil, facets: [Facet]? = nil, reply: ReplyRef? = nil,
        labels: SelfLabels? = nil, embed: EmbedKind? = nil
    ) {
        self.text = text
        self.createdAt = createdAt
        self.langs = langs
        self.facets = facets
        self.reply = reply
        self.labels = labels
        self.embed = embed
    }

    /// The collection's NSID.
    public static let type = "app.bsky.feed.post"

    enum CodingKeys: String, CodingKey {
        case type = "$type"
        case text, createdAt, langs, facets, reply, labels, embed
    }

    /// Reads a post record; another record type is refused.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let type = try container.decodeIfPresent(String.self, forKey: .type), type != Self.type {
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "a \(type), not a post")
        }
        text = try container.decode(String.self, forKey: .text)
        createdAt = try container.decode(String.self, forKey: .createdAt)
        langs = try container.decodeIfPresent([String].self, forKey: .langs)
        facets = try container.decodeIfPresent([Facet].self, forKey: .facets)
        reply = try container.decodeIfPresent(ReplyRef.self, forKey: .reply)
        labels = try container.decodeIfPresent(SelfLabels.self, forKey: .labels)
        embed = try container.decodeIfPresent(EmbedKind.self, forKey: .embed)
    }

    /// Writes it with its `$type`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.type, forKey: .type)
        try container.encode(text, forKey: .text)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(langs, forKey: .langs)
        try container.encodeIfPresent(facets, forKey: .facets)
        try container.encodeIfPresent(reply, forKey: .reply)
        try container.encodeIfPresent(labels, forKey: .labels)
        try container.encodeIfPresent(embed, forKey: .embed)
    }
}

/// A reply's thread: the thread's first post and the post answered.
public struct ReplyRef: Codable, Sendable, Equatable {
    /// The thread's first post (the parent's own root when the parent is a reply).
    public var root: StrongRef
    /// The post answered.
    public var parent: StrongRef
    /// A reply reference from its parts.
    public init(root: StrongRef, parent: StrongRef) {
        self.root = root
        self.parent = parent
    }
}

/// An embed, known by its type only.
public struct EmbedKind: Codable, Sendable, Equatable {
    /// The embed's `$type`, such as `app.bsky.embed.record`.
    public var type: String
    /// An embed of that type.
    public init(type: String) { self.type = type }
    enum CodingKeys: String, CodingKey { case type = "$type" }

    /// Whether it quotes another post (`app.bsky.embed.record` or `recordWithMedia`).
    public var isQuote: Bool { type == "app.bsky.embed.record" || type == "app.bsky.embed.recordWithMedia" }
}

/// Labels an author puts on their own record (`com.atproto.label.defs#selfLabels`).
public struct SelfLabels: Codable, Sendable, Equatable {
    /// Each label's value, such as `bot`, `!warn` or `porn`.
    public var values: [SelfLabel]
    /// Labels from their values.
    public init(values: [String]) { self.values = values.map(SelfLabel.init(val:)) }
    /// The union's type.
    public static let type = "com.atproto.label.defs#selfLabels"

    enum CodingKeys: String, CodingKey {
        case type = "$type"
        case values
    }
    /// Reads the labels.
    public init(from decoder: any Decoder) throws {
        values = try decoder.container(keyedBy: CodingKeys.self).decode([SelfLabel].self, forKey: .values)
    }
    /// Writes them with their `$type`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.type, forKey: .type)
        try container.encode(values, forKey: .values)
    }
}

/// One self-label.
public struct SelfLabel: Codable, Sendable, Equatable {
    /// Its value.
    public var val: String
}

/// A label on a post or account, as the AppView shows it (`com.atproto.label.defs#label`).
public struct Label: Codable, Sendable, Equatable {
    /// Who put it (the author's DID for a self-label).
    public var src: String
    /// What it is on.
    public var uri: String
    /// Its value.
    public var val: String
    /// Whether it takes a label back.
    public var neg: Bool?
    /// When it was made.
    public var cts: String
    /// A label from its parts.
    public init(src: String, uri: String, val: String, neg: Bool? = nil, cts: String) {
        self.src = src
        self.uri = uri
        self.val = val
        self.neg = neg
        self.cts = cts
    }
}

/// An account as the AppView shows it in posts and notifications (`app.bsky.actor.defs#profileView` and its basic
/// form): the description is there in notifications, for the `#nobot` check.
public struct ProfileView: Codable, Sendable, Equatable {
    /// The account's DID.
    public var did: String
    /// Its handle.
    public var handle: String
    /// Its display name.
    public var displayName: String?
    /// Its profile text (not in the basic view).
    public var description: String?
    /// Its labels.
    public var labels: [Label]?
    /// A profile from its parts.
    public init(did: String, handle: String, displayName: String? = nil, description: String? = nil, labels: [Label]? = nil) {
        self.did = did
        self.handle = handle
        self.displayName = displayName
        self.description = description
        self.labels = labels
    }
}

/// A post as the AppView shows it (`app.bsky.feed.defs#postView`).
public struct PostView: Codable, Sendable, Equatable {
    /// Its AT URI.
    public var uri: String
    /// Its CID.
    public var cid: String
    /// Its author.
    public var author: ProfileView
    /// The post record.
    public var record: PostRecord
    /// When the AppView saw it.
    public var indexedAt: String
    /// Labels on it, its author's own included.
    public var labels: [Label]?
    /// A view from its parts.
    public init(uri: String, cid: String, author: ProfileView, record: PostRecord, indexedAt: String, labels: [Label]? = nil) {
        self.uri = uri
        self.cid = cid
        self.author = author
        self.record = record
        self.indexedAt = indexedAt
        self.labels = labels
    }

    /// Its strong reference.
    public var ref: StrongRef { StrongRef(uri: uri, cid: cid) }
}

/// One item of a feed (`app.bsky.feed.defs#feedViewPost`): the post, and why it is there when it is a repost.
public struct FeedViewPost: Codable, Sendable, Equatable {
    /// The post.
    public var post: PostView
    /// Why it is in the feed when not as its author's post (a repost, a pin), by type only.
    public var reason: EmbedKind?
    /// A feed item from its parts.
    public init(post: PostView, reason: EmbedKind? = nil) {
        self.post = post
        self.reason = reason
    }

    /// Whether it is a repost of the post (never copied, never learned).
    public var isRepost: Bool { reason?.type == "app.bsky.feed.defs#reasonRepost" }
}

/// A notification (`app.bsky.notification.listNotifications#notification`).
public struct BlueskyNotification: Codable, Sendable, Equatable {
    /// The record's AT URI (the mentioning post).
    public var uri: String
    /// Its CID.
    public var cid: String
    /// Who did it, with their profile text.
    public var author: ProfileView
    /// `mention`, `reply`, `like`, `follow`, …
    public var reason: String
    /// The record the notification is about: a post for mentions and replies (nil for another kind).
    public var record: PostRecord?
    /// Whether it was seen.
    public var isRead: Bool
    /// When the AppView saw it.
    public var indexedAt: String
    /// Labels on it.
    public var labels: [Label]?

    enum CodingKeys: String, CodingKey { case uri, cid, author, reason, record, isRead, indexedAt, labels }

    /// A notification from its parts.
    public init(
        uri: String, cid: String, author: ProfileView, reason: String, record: PostRecord?, isRead: Bool, indexedAt: String,
        labels: [Label]? = nil
    ) {
        self.uri = uri
        self.cid = cid
        self.author = author
        self.reason = reason
        self.record = record
        self.isRead = isRead
        self.indexedAt = indexedAt
        self.labels = labels
    }

    /// Reads one; a record that is not a post (a like's, a follow's) is kept as nil.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uri = try container.decode(String.self, forKey: .uri)
        cid = try container.decode(String.self, forKey: .cid)
        author = try container.decode(ProfileView.self, forKey: .author)
        reason = try container.decode(String.self, forKey: .reason)
        record = try? container.decode(PostRecord.self, forKey: .record)
        isRead = try container.decode(Bool.self, forKey: .isRead)
        indexedAt = try container.decode(String.self, forKey: .indexedAt)
        labels = try container.decodeIfPresent([Label].self, forKey: .labels)
    }
}

/// An AT URI's parts: `at://<repo>/<collection>/<rkey>`.
public struct ATURI: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The repository: a DID (or a handle).
    public var repo: String
    /// The collection's NSID.
    public var collection: String
    /// The record key.
    public var rkey: String

    /// The URI's parts, or nil when `text` is not a record's AT URI.
    public init?(_ text: String) {
        guard text.hasPrefix("at://") else { return nil }
        let parts = text.dropFirst(5).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        repo = String(parts[0])
        collection = String(parts[1])
        rkey = String(parts[2])
    }

    /// A URI from its parts.
    public init(repo: String, collection: String, rkey: String) {
        self.repo = repo
        self.collection = collection
        self.rkey = rkey
    }

    /// `at://repo/collection/rkey`.
    public var description: String { "at://\(repo)/\(collection)/\(rkey)" }
}
