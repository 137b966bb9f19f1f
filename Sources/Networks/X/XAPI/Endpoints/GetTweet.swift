/// `GET /2/tweets/:id`: one post by its id. A post that was deleted, or that the account may not see, comes back as a
/// 200 with `errors` and no `data` (X's "Not Found Error" or "Authorization Error").
///
/// mirror_bot looks up only the account's own posts (whether the person's post or the bot's copy is still up), which
/// X bills as owned reads; the worst case assumed before the call is the dearer rate of anyone's post.
public struct GetTweet: XEndpoint {
    /// The post, when it is there.
    public typealias Response = XSingleResponse<XTweet>
    /// The reference's name.
    public static let name = "GET /2/tweets/:id"
    /// The post.
    public var tweetID: String

    /// The request for the post `tweetID`.
    public init(tweetID: String) { self.tweetID = tweetID }

    /// GET.
    public var method: HTTPMethodName { .GET }
    /// The path.
    public var path: String { "/2/tweets/\(tweetID)" }
    /// `tweet.fields=author_id`: whose post it is, nothing else (the decision is only whether it is there).
    public var query: [(String, String)] { [("tweet.fields", "author_id")] }
    /// At most one post, billed before the call at the rate of anyone's.
    public var billing: XCallBilling { XCallBilling(posts: 1) }
    /// Only one post: it cannot be made smaller.
    public mutating func limitPosts(to count: Int) -> Bool { count >= 1 }
    /// The post, when it came back.
    public static func postsRead(in response: Response) -> Int { response.data == nil ? 0 : 1 }
    /// The post returned, an owned read (mirror_bot asks only for the account's own posts).
    public static func billedResources(in response: Response) -> XBilledResources {
        XBilledResources(ownedPosts: response.data.map { [$0.id] } ?? [])
    }
}
