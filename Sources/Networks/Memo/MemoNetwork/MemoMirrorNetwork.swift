public import BotClock
public import BotCore
public import Foundation
public import SocialNetwork

/// The memo network in the bot's words: a world's posts as pages, its creates keyed so that a create sent again is
/// the first post, as the networks with idempotency keys do.
public struct MemoMirrorNetwork: FreeMirrorNetwork {
    /// The world.
    public let world: MemoWorld
    let tokens: [Account: String]
    let clock: any BotClock

    /// The network over `world`, each account signed in with its token, on `clock`.
    public init(world: MemoWorld, tokens: [Account: String], clock: any BotClock) {
        self.world = world
        self.tokens = tokens
        self.clock = clock
    }

    /// "Memo".
    public var name: String { "Memo" }
    /// Likes, no stream, repeats taken, 500 characters.
    public var capabilities: NetworkCapabilities { Self.capabilities }

    /// What the memo world offers a mirror.
    public static let capabilities = NetworkCapabilities(whyNoLikes: nil, postLength: .characters(500))

    /// The handle `account`'s token signs in as.
    func handle(of account: Account) throws -> String {
        guard let token = tokens[account], let handle = world.handles[token] else {
            throw NetworkError.refused("the memo world \(world.name) knows no such token for the \(account)", recheckAt: nil)
        }
        return handle
    }

    public func whoAmI(_ account: Account) async throws -> NetworkUser {
        let handle = try handle(of: account)
        return NetworkUser(id: world.userID(of: handle), handle: handle, networkAccount: "\(handle)@\(world.name)")
    }

    /// `posts` as one page, newest first, newer than `sinceID`, at most `most`.
    func page(_ posts: [MemoWorld.Post], since sinceID: String?, most: Int?) -> NetworkPages {
        let since = sinceID.flatMap(Int64.init) ?? 0
        let chosen = Array(posts.filter { $0.id > since }.sorted { $0.id > $1.id }.prefix(most ?? Int.max))
        let networkPosts = chosen.map { post in
            NetworkPost(
                id: String(post.id), text: post.text, authorID: world.userID(of: post.author), authorHandle: post.author,
                createdAt: post.createdAt,
                replyToUserID: post.replyTo.flatMap { id in world.posts.first { $0.id == id } }.map { world.userID(of: $0.author) },
                replyToPostID: post.replyTo.map(String.init))
        }
        let newest = chosen.first.map { String($0.id) }
        return NetworkPages {
            var given = false
            return NetworkPages.Iterator {
                defer { given = true }
                return given ? nil : NetworkPage(posts: networkPosts, newestID: newest)
            }
        }
    }

    public func posts(of userID: String, since sinceID: String?, maxPosts: Int, for work: Work) -> NetworkPages {
        page(world.posts.filter { world.userID(of: $0.author) == userID }, since: sinceID, most: maxPosts)
    }

    public func likes(of userID: String, perPage: Int, maxPosts: Int?, for work: Work) -> NetworkPages {
        guard let handle = world.handle(ofUser: userID) else { return page([], since: nil, most: nil) }
        return page(world.liked(by: handle), since: nil, most: maxPosts)
    }

    public func mentions(of userID: String, since sinceID: String?, perPage: Int, for work: Work) -> NetworkPages {
        guard let handle = world.handle(ofUser: userID) else { return page([], since: nil, most: nil) }
        return page(world.posts.filter { $0.author != handle && $0.text.contains("@" + handle) }, since: sinceID, most: perPage)
    }

    public func homeTimeline(
        of userID: String, as account: Account, since sinceID: String?, maxPosts: Int?, perPage: Int, includingReposts: Bool, for work: Work
    ) -> NetworkPages {
        page(world.posts.filter { world.userID(of: $0.author) != userID }, since: sinceID, most: maxPosts)
    }

    public func postExists(_ postID: String, as account: Account, for work: Work) async throws -> Bool {
        world.posts.contains { String($0.id) == postID }
    }

    public func post(_ text: String, warning: String?, slot: String, for work: Work) async throws -> String? {
        if warning != nil { throw NetworkError.unpostable("the memo network has no content warnings") }
        return String(world.make(key: "post " + slot, text, by: try handle(of: .bot), at: clock.now()))
    }

    public func reply(_ text: String, warning: String?, to postID: String, for work: Work) async throws -> String? {
        if warning != nil { throw NetworkError.unpostable("the memo network has no content warnings") }
        guard let target = Int64(postID) else { throw NetworkError.rejected("no memo post \(postID)") }
        return String(world.make(key: "reply " + postID, text, by: try handle(of: .bot), at: clock.now(), replyTo: target))
    }

    public func ownRecentPost(_ text: String?, inReplyTo postID: String?, sentSince: Date?, for work: Work) async throws -> String? {
        let bot = try handle(of: .bot)
        return world.posts.last { post in
            post.author == bot && (text == nil || post.text == text) && (postID == nil || post.replyTo.map(String.init) == postID)
        }.map { String($0.id) }
    }

    public func deletePost(_ postID: String, for work: Work) async throws -> Bool {
        guard let id = Int64(postID) else { return false }
        return world.delete(id)
    }

    public func like(_ postID: String, as botID: String, for work: Work) async throws {
        guard let id = Int64(postID) else { throw NetworkError.rejected("no memo post \(postID)") }
        world.like(id, by: try handle(of: .bot))
    }
}
