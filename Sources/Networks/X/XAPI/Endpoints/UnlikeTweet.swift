/// `DELETE /2/users/:id/likes/:tweet_id`: takes back a like (taking back one never made changes nothing).
///
/// mirror_bot uses it as the once-a-day check of whether the app may use the likes endpoints again, on a post the
/// bot never likes (the human's own): it reads nothing and changes nothing.
public struct UnlikeTweet: XEndpoint {
    /// Whether it is still liked.
    public typealias Response = XSingleResponse<XLikeResult>
    /// The reference's name.
    public static let name = "DELETE /2/users/:id/likes/:tweet_id"
    /// The authenticated user.
    public var userID: String
    /// The post.
    public var tweetID: String

    /// The request for `userID` to take back a like of `tweetID`.
    public init(userID: String, tweetID: String) {
        self.userID = userID
        self.tweetID = tweetID
    }

    /// DELETE.
    public var method: HTTPMethodName { .DELETE }
    /// The path.
    public var path: String { "/2/users/\(userID)/likes/\(tweetID)" }
    /// No query.
    public var query: [(String, String)] { [] }
    /// Part of liking: refused to apps without likes access.
    public static var capability: XCapability? { .likes }
    /// One interaction deleted.
    public var billing: XCallBilling { XCallBilling(write: .interactionDelete) }
}
