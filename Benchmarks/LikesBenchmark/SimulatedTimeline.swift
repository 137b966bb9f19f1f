import BotClock
import BotCore
import Foundation
import SocialNetwork
import Synchronization

/// The bot's home timeline in the like-days simulation: posts appear at their time on the virtual clock; likes are
/// recorded. Nothing else is asked of it.
final class SimulatedTimeline: FreeMirrorNetwork {
    struct Post: Sendable {
        var id: Int64
        var text: String
        var author: String
        var liked: Bool
        var at: Date
    }

    let posts: [Post]
    let clock: ManualBotClock
    let liked = Mutex<[Int64]>([])

    init(posts: [Post], clock: ManualBotClock) {
        self.posts = posts
        self.clock = clock
    }

    var name: String { "the simulated timeline" }
    var capabilities: NetworkCapabilities { NetworkCapabilities(whyNoLikes: nil) }

    func whoAmI(_ account: Account) async throws -> NetworkUser { NetworkUser(id: "1", handle: "bot") }

    func homeTimeline(
        of userID: String, as account: Account, since sinceID: String?, maxPosts: Int?, perPage: Int,
        includingReposts: Bool, for work: Work
    ) -> NetworkPages {
        let now = clock.now()
        let after = Int64(sinceID ?? "0") ?? 0
        // Newest first, as timelines are read; one page.
        var visible = posts.filter { $0.at <= now && $0.id > after }.reversed().map {
            NetworkPost(
                id: String($0.id), text: $0.text, authorID: String(1_000 + (Int($0.author.suffix(3)) ?? 0)), authorHandle: $0.author, createdAt: $0.at
            )
        }
        if let maxPosts { visible = Array(visible.prefix(maxPosts)) }
        let page = NetworkPage(posts: visible, newestID: visible.first?.id)
        let served = Mutex(false)
        return NetworkPages {
            NetworkPages.Iterator {
                served.withLock { done in
                    defer { done = true }
                    return done ? nil : page
                }
            }
        }
    }

    func like(_ postID: String, as botID: String, for work: Work) async throws {
        liked.withLock { $0.append(Int64(postID) ?? 0) }
    }

    func posts(of userID: String, since sinceID: String?, maxPosts: Int, for work: Work) -> NetworkPages { Self.nothing }
    func likes(of userID: String, perPage: Int, maxPosts: Int?, for work: Work) -> NetworkPages { Self.nothing }
    func mentions(of userID: String, since sinceID: String?, perPage: Int, for work: Work) -> NetworkPages { Self.nothing }
    func postExists(_ postID: String, as account: Account, for work: Work) async throws -> Bool { true }
    func post(_ text: String, warning: String?, slot: String, for work: Work) async throws -> String? { nil }
    func reply(_ text: String, warning: String?, to postID: String, for work: Work) async throws -> String? { nil }
    func ownRecentPost(_ text: String?, inReplyTo postID: String?, sentSince: Date?, for work: Work) async throws -> String? { nil }
    func deletePost(_ postID: String, for work: Work) async throws -> Bool { false }

    static var nothing: NetworkPages { NetworkPages { NetworkPages.Iterator { nil } } }
}
