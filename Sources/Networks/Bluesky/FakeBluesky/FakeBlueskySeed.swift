public import BlueskyAPI
public import Foundation

/// What a fake Bluesky holds at its start: accounts (each with its app password, profile text and self-labels),
/// posts (each its record, as an author's client would have written it), reposts, and the clock.
public struct FakeBlueskySeed: Sendable {
    /// An account: its DID, handle, app password (nil: it cannot log in), password, profile text and self-labels.
    public struct Account: Sendable {
        /// `did:plc:…`.
        public var did: String
        /// The handle.
        public var handle: String
        /// The app password it logs in with.
        public var appPassword: String?
        /// The account's own password, for the sign-in page of the fake's OAuth server (nil: `<handle>-password`).
        public var password: String?
        /// The profile's description.
        public var description: String
        /// The profile's self-labels (`bot`).
        public var labels: [String]
        /// Its account id in the persona it was made from (`/admin/state` names it so, for the demo's report).
        public var personaID: String?
        /// An account from its parts.
        public init(
            did: String, handle: String, appPassword: String? = nil, password: String? = nil, description: String = "", labels: [String] = [],
            personaID: String? = nil
        ) {
            self.did = did
            self.handle = handle
            self.appPassword = appPassword
            self.password = password
            self.description = description
            self.labels = labels
            self.personaID = personaID
        }
    }

    /// A post already there: its author, record key, record, and when the AppView saw it.
    public struct Post: Sendable {
        /// The author's DID.
        public var authorDID: String
        /// The record key (a TID).
        public var rkey: String
        /// The record.
        public var record: PostRecord
        /// When it appears (hidden until the clock reaches it).
        public var indexedAt: Date
        /// Its post id in the persona it was made from (`/admin/state` names it so, for the demo's report).
        public var personaID: String?
        /// A post from its parts.
        public init(authorDID: String, rkey: String, record: PostRecord, indexedAt: Date, personaID: String? = nil) {
            self.authorDID = authorDID
            self.rkey = rkey
            self.record = record
            self.indexedAt = indexedAt
            self.personaID = personaID
        }
    }

    /// A repost: who reposted which post, when.
    public struct Repost: Sendable {
        /// The reposter's DID.
        public var byDID: String
        /// The post's AT URI.
        public var uri: String
        /// When.
        public var at: Date
        /// A repost from its parts.
        public init(byDID: String, uri: String, at: Date) {
            self.byDID = byDID
            self.uri = uri
            self.at = at
        }
    }

    /// The clock at the start.
    public var now: Date
    /// The accounts.
    public var accounts: [Account]
    /// The posts.
    public var posts: [Post]
    /// The reposts.
    public var reposts: [Repost]

    /// A seed from its parts.
    public init(now: Date, accounts: [Account], posts: [Post] = [], reposts: [Repost] = []) {
        self.now = now
        self.accounts = accounts
        self.posts = posts
        self.reposts = reposts
    }

    /// The CID the fake gives `record` (for a seeded reply's strong refs).
    public static func cid(of record: PostRecord) -> String { FakeBlueskyWorld.cid(of: FakeBlueskyWorld.json(record)) }
}

/// A fault the fake injects into the next request of a method.
public enum FakeBlueskyFault: Sendable, Equatable {
    /// 503 before anything is done.
    case unavailable
    /// The work is done, then the answer is cut off halfway.
    case dropAfterHandling
    /// 429 with the `ratelimit-*` headers: nothing left in a window that resets `resetIn` seconds from the fake's now.
    case rateLimited(resetIn: TimeInterval)
    /// 200 with a body that is not JSON, after the work is done.
    case malformed
    /// 501 `MethodNotImplemented`: a service that does not serve the method (an AppView without
    /// `com.atproto.identity.resolveIdentity`).
    case notImplemented
}
