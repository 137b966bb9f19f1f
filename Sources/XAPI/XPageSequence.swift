public import BotConfiguration

/// The pages of a paged endpoint as an `AsyncSequence`, newest first: it follows `meta.next_token` until the API
/// has no more pages, or until `maxPosts` posts were read (the last page is not trimmed).
public struct XPageSequence<Endpoint: XPagedEndpoint>: AsyncSequence, Sendable {
    /// Each element is one page.
    public typealias Element = XTweetPage

    let client: XClient
    let endpoint: Endpoint
    let account: Account
    let maxPosts: Int?

    /// The iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(client: client, endpoint: endpoint, account: account, maxPosts: maxPosts)
    }

    /// Fetches one page per `next()`.
    public struct Iterator: AsyncIteratorProtocol {
        let client: XClient
        var endpoint: Endpoint
        let account: Account
        let maxPosts: Int?
        var postsRead = 0
        var finished = false

        /// The next page, or nil after the last.
        public mutating func next() async throws -> XTweetPage? {
            guard !finished else { return nil }
            if let maxPosts, postsRead >= maxPosts { finished = true; return nil }
            let page = try await client.send(endpoint, as: account)
            postsRead += page.tweets.count
            if let token = page.meta?.nextToken, !page.tweets.isEmpty {
                endpoint.paginationToken = token
            } else {
                finished = true
            }
            return page
        }
    }
}
