import BotCore
import Foundation

/// The pages of a paged endpoint, newest first: the first request, then each answer's `next` link, until the last
/// page, an empty page, or `maxItems` items (the last page is cut to what is still wanted).
public struct MastodonPages<Endpoint: MastodonPagedEndpoint>: AsyncSequence, Sendable {
    /// A page's items.
    public typealias Element = [Endpoint.Item]

    let client: MastodonClient
    /// The first request.
    public let endpoint: Endpoint
    let account: Account
    let maxItems: Int?

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let pages: MastodonPages
        var next: URL?
        var started = false
        var read = 0

        /// The next page, or nil after the last.
        public mutating func next() async throws -> [Endpoint.Item]? {
            if started && next == nil { return nil }
            if let maxItems = pages.maxItems, read >= maxItems { return nil }
            var endpoint = pages.endpoint
            if let maxItems = pages.maxItems { endpoint.limit = Swift.min(endpoint.limit, maxItems - read) }
            let answer = try await pages.client.answer(endpoint, as: pages.account, at: started ? next : nil)
            started = true
            var items = answer.response
            if let maxItems = pages.maxItems, items.count > maxItems - read { items = Array(items.prefix(maxItems - read)) }
            read += items.count
            next = items.isEmpty ? nil : answer.links.next
            return items.isEmpty ? nil : items
        }
    }

    /// An iterator from the first page.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pages: self) }
}
