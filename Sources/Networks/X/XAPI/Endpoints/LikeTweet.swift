/// `POST /2/users/:id/likes`: likes a post as the authenticated user (liking twice is harmless).
public struct LikeTweet: XEndpoint {
    /// Whether it is liked.
    public typealias Response = XSingleResponse<XLikeResult>
    /// The reference's name.
    public static let name = "POST /2/users/:id/likes"
    /// The authenticated user.
    public var userID: String
    /// The post to like.
    public var tweetID: String

    /// The request for `userID` to like `tweetID`.
    public init(userID: String, tweetID: String) {
        self.userID = userID
        self.tweetID = tweetID
    }

    /// POST.
    public var method: HTTPMethodName { .POST }
    /// The path.
    public var path: String { "/2/users/\(userID)/likes" }
    /// No query.
    public var query: [(String, String)] { [] }
    /// `{"tweet_id": ...}`.
    public var body: [String: JSONBodyValue]? { ["tweet_id": .string(tweetID)] }
    /// Liking: refused to apps without likes access.
    public static var capability: XCapability? { .likes }
    /// One like made.
    public var billing: XCallBilling { XCallBilling(write: .interactionCreate) }
}
