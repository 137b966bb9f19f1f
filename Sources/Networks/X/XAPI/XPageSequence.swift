import BotCore
import SocialNetwork

/// The pages of a paged endpoint as an `AsyncSequence`, newest first: it follows `meta.next_token` until the API
/// has no more pages, or until `maxPosts` posts were read (the last page asks for only the posts still wanted, when
/// the endpoint takes pages that small). Each page is sent for `work`, so the day's budget can shed it.
public struct XPageSequence<Endpoint: XPagedEndpoint>: AsyncSequence, Sendable {
    /// Each element is one page.
    public typealias Element = XTweetPage

    let client: XClient
    let endpoint: Endpoint
    let account: Account
    let work: Work
    let maxPosts: Int?

    /// The iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(client: client, endpoint: endpoint, account: account, work: work, maxPosts: maxPosts)
    }

    /// Fetches one page per `next()`.
    public struct Iterator: AsyncIteratorProtocol {
        let client: XClient
        var endpoint: Endpoint
        let account: Account
        let work: Work
        let maxPosts: Int?
        var postsRead = 0
        var finished = false

        /// The next page, or nil after the last.
        public mutating func next() async throws -> XTweetPage? {
            guard !finished else { return nil }
            if let maxPosts, postsRead >= maxPosts {
                finished = true
                return nil
            }
            // The last page asks for no more than the posts still wanted.
            if let maxPosts, maxPosts - postsRead < endpoint.maxResults { _ = endpoint.limitPosts(to: maxPosts - postsRead) }
            let page = try await client.send(endpoint, as: account, for: work)
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
