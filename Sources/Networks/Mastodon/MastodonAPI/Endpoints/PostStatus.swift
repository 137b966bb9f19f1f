/// `POST /api/v1/statuses`: posts a status as the token's account, optionally as a reply. Always sent with an
/// `Idempotency-Key`, so that sending it again after a dropped connection makes no second status.
public struct PostStatus: MastodonEndpoint {
    /// The new status.
    public typealias Response = MastodonStatus
    /// The reference's name.
    public static let name = "POST /api/v1/statuses"
    /// The plain text.
    public var text: String
    /// Who may see it.
    public var visibility: MastodonVisibility
    /// The status it answers.
    public var inReplyToID: String?
    /// The content warning, if any.
    public var spoilerText: String?
    /// The key that makes sending it again harmless.
    public var key: String

    /// The request to post `text` with `visibility`, keyed by `key`.
    public init(text: String, visibility: MastodonVisibility, inReplyToID: String? = nil, spoilerText: String? = nil, key: String) {
        self.text = text
        self.visibility = visibility
        self.inReplyToID = inReplyToID
        self.spoilerText = spoilerText
        self.key = key
    }

    /// POST.
    public var method: MastodonMethod { .POST }
    /// The path.
    public var path: String { "/api/v1/statuses" }
    /// `{"status", "visibility", "in_reply_to_id", "spoiler_text"}`.
    public var body: [String: MastodonBodyValue]? {
        var body: [String: MastodonBodyValue] = ["status": .string(text), "visibility": .string(visibility.rawValue)]
        if let inReplyToID { body["in_reply_to_id"] = .string(inReplyToID) }
        if let spoilerText, !spoilerText.isEmpty { body["spoiler_text"] = .string(spoilerText) }
        return body
    }
    /// The key.
    public var idempotencyKey: String? { key }
}
