import BotCore
import SocialNetwork
import Stores

/// Where the reading of a stream of posts (mentions, a home timeline, the person's posts) stands: the newest id
/// handled, kept in `bot_state` under `key`, so that each poll asks the network only for what is newer, across
/// restarts. The one place the since-id rule is written.
struct SinceCursor: Sendable {
    /// Where a stream stands.
    enum Position: Equatable {
        /// Never read: the first start.
        case notStarted
        /// Read up to this id; nil when the stream was empty at the first start (everything is new).
        case after(String?)
    }

    let state: any BotState
    let key: String

    /// The stored position.
    func position() async throws -> Position {
        guard let stored = try await state.value(of: key) else { return .notStarted }
        return .after(stored == "0" ? nil : stored)
    }

    /// The first start: stores where `pages` stand now (their newest id, "0" when empty), so that what came before
    /// is never handled; returns that id.
    @discardableResult
    func start(at pages: NetworkPages) async throws -> String {
        var reader = pages.makeAsyncIterator()
        let newest = try await reader.next()?.newestID ?? "0"
        try await state.setValue(newest, of: key)
        return newest
    }

    /// Hands each page of `pages` (what is newer than `sinceID`) to `handle`, then stores the newest id reached:
    /// a page that fails to be handled is read again next time.
    func readNew(_ pages: NetworkPages, after sinceID: String?, _ handle: (NetworkPage) async throws -> Void) async throws {
        var newest = sinceID
        for try await page in pages {
            try await handle(page)
            if let id = page.newestID, Self.isNewer(id, than: newest) { newest = id }
        }
        if let newest, newest != sinceID { try await state.setValue(newest, of: key) }
    }

    /// Stores `id` as handled (one item at a time, oldest first).
    func advance(to id: String) async throws { try await state.setValue(id, of: key) }

    /// Forgets the position: the next poll is a first start.
    func forget() async throws { try await state.removeValue(of: key) }

    /// Whether the post id `id` is newer than `other` (ids grow with time, in `PostID`'s order: X's and Mastodon's
    /// numbers as numbers, Misskey's ids of one method as their text; nil, and the "0" of an empty first start, are
    /// older than any).
    static func isNewer(_ id: String, than other: String?) -> Bool {
        guard other != "0" else { return id != "0" }
        return PostID.isNewer(id, than: other)
    }

    /// `posts` oldest first, by where they stand in their list.
    static func oldestFirst(_ posts: [NetworkPost]) -> [NetworkPost] {
        posts.sorted { isNewer($1.positionInList, than: $0.positionInList) }
    }
}
