import PostText

/// `POST /2/tweets`: posts as the authenticated user, optionally as a reply.
public struct CreateTweet: XEndpoint {
    /// The new post.
    public typealias Response = XSingleResponse<XCreatedTweet>
    /// The reference's name.
    public static let name = "POST /2/tweets"
    /// The text to post.
    public var text: String
    /// `reply.in_reply_to_tweet_id`: the post this one answers.
    public var inReplyToTweetID: String?

    /// The request to post `text`.
    public init(text: String, inReplyToTweetID: String? = nil) {
        self.text = text
        self.inReplyToTweetID = inReplyToTweetID
    }

    /// POST.
    public var method: HTTPMethodName { .POST }
    /// The path.
    public var path: String { "/2/tweets" }
    /// No query.
    public var query: [(String, String)] { [] }
    /// `{"text": ..., "reply": {"in_reply_to_tweet_id": ...}}`.
    public var body: [String: JSONBodyValue]? {
        var body: [String: JSONBodyValue] = ["text": .string(text)]
        if let inReplyToTweetID { body["reply"] = .object(["in_reply_to_tweet_id": .string(inReplyToTweetID)]) }
        return body
    }
    /// Posting twice posts twice: a dropped connection is not retried.
    public static var isIdempotent: Bool { false }
    /// One post made; X bills one that contains a URL at a higher rate.
    public var billing: XCallBilling { XCallBilling(write: .post(withURL: PostLinks.containsLink(text))) }
}
