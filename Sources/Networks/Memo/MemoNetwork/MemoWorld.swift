public import Foundation
import Synchronization

/// A network that lives in the process's memory, made for tests: the proof that a network is a folder and a line of
/// the registry. Its accounts are handles with tokens; its posts have numbers; it takes every post, reply and like
/// and keeps them for the test to read. A world is found by its name (`MEMO_WORLD`), so that a configuration read
/// from variables reaches the world a test made.
public final class MemoWorld: Sendable {
    /// A post on the world.
    public struct Post: Sendable, Equatable {
        /// Its number.
        public var id: Int64
        /// Its author's handle.
        public var author: String
        /// What it says.
        public var text: String
        /// When it was made.
        public var createdAt: Date
        /// The post it answers.
        public var replyTo: Int64?
    }

    /// Its name, for `MEMO_WORLD`.
    public let name: String
    /// Each account's handle by its token.
    let handles: [String: String]
    private let state: Mutex<State>

    struct State {
        var posts: [Post] = []
        var nextID: Int64 = 1_000
        var likes: [(handle: String, postID: Int64)] = []
        /// The post each idempotency key made (a slot's, a mention's answer).
        var made: [String: Int64] = [:]
    }

    private static let worlds = Mutex<[String: MemoWorld]>([:])

    /// A world named `name` whose accounts are `accounts` (handle and token each), kept where `named(_:)` finds it
    /// (replacing any world of that name).
    public init(name: String, accounts: [(handle: String, token: String)]) {
        self.name = name
        handles = Dictionary(accounts.map { ($0.token, $0.handle) }) { first, _ in first }
        state = Mutex(State())
        Self.worlds.withLock { $0[name] = self }
    }

    /// The world named `name`, if one was made.
    public static func named(_ name: String) -> MemoWorld? { worlds.withLock { $0[name] } }

    /// An account's user id: its handle's place among the handles, as a number.
    func userID(of handle: String) -> String {
        let sorted = Set(handles.values).sorted()
        return String((sorted.firstIndex(of: handle) ?? sorted.count) + 1)
    }

    /// The handle whose user id is `userID`.
    func handle(ofUser userID: String) -> String? { Set(handles.values).first { self.userID(of: $0) == userID } }

    /// Posts `text` as `author` at `date`, answering `replyTo`; returns its number.
    @discardableResult
    public func add(_ text: String, by author: String, at date: Date, replyTo: Int64? = nil) -> Int64 {
        state.withLock { state in
            state.nextID += 1
            state.posts.append(Post(id: state.nextID, author: author, text: text, createdAt: date, replyTo: replyTo))
            return state.nextID
        }
    }

    /// Makes the post `key` stands for once: a create sent again with the same key is the first post.
    func make(key: String, _ text: String, by author: String, at date: Date, replyTo: Int64? = nil) -> Int64 {
        state.withLock { state in
            if let made = state.made[key] { return made }
            state.nextID += 1
            state.posts.append(Post(id: state.nextID, author: author, text: text, createdAt: date, replyTo: replyTo))
            state.made[key] = state.nextID
            return state.nextID
        }
    }

    /// `handle` likes `postID`.
    public func like(_ postID: Int64, by handle: String) { state.withLock { $0.likes.append((handle, postID)) } }

    /// Deletes `postID`; false when it was not there.
    @discardableResult
    public func delete(_ postID: Int64) -> Bool {
        state.withLock { state in
            guard let index = state.posts.firstIndex(where: { $0.id == postID }) else { return false }
            state.posts.remove(at: index)
            return true
        }
    }

    /// Every post, oldest first.
    public var posts: [Post] { state.withLock { $0.posts } }

    /// The posts `handle` liked, most recently liked first.
    public func liked(by handle: String) -> [Post] {
        state.withLock { state in
            state.likes.reversed().filter { $0.handle == handle }.compactMap { like in state.posts.first { $0.id == like.postID } }
        }
    }
}
