/// `DELETE /2/tweets/:id`: deletes a post of the authenticated user.
///
/// mirror_bot uses it for the bot's copies of a tweet the person asked to forget (`mirror_bot forget`).
public struct DeleteTweet: XEndpoint {
    /// Whether the post is now deleted.
    public typealias Response = XSingleResponse<XDeleteResult>
    /// The reference's name.
    public static let name = "DELETE /2/tweets/:id"
    /// The post.
    public var tweetID: String

    /// The request to delete `tweetID`.
    public init(tweetID: String) { self.tweetID = tweetID }

    /// DELETE.
    public var method: HTTPMethodName { .DELETE }
    /// The path.
    public var path: String { "/2/tweets/\(tweetID)" }
    /// No query.
    public var query: [(String, String)] { [] }
    /// Deleting twice leaves the post deleted: safe to send again after a dropped connection.
    public static var isIdempotent: Bool { true }
    /// Billed, conservatively, at "Interaction: Delete" ($0.010; X's page also lists "Content: Manage" at $0.005 and
    /// does not say which of the two a deleted post is).
    public var billing: XCallBilling { XCallBilling(write: .interactionDelete) }
}
