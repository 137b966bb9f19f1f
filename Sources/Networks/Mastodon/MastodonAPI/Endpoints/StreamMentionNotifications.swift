/// `GET /api/v1/streaming/user/notification`: the token's account's notifications as server-sent events
/// (`event: notification`, `data:` the notification's JSON), for as long as the connection stays open. Read with
/// `MastodonClient.stream(_:as:)`, not `send`.
public struct StreamMentionNotifications: Sendable {
    /// The reference's name.
    public static let name = "GET /api/v1/streaming/user/notification"
    /// The path.
    public var path: String { "/api/v1/streaming/user/notification" }
    /// The request.
    public init() {}
}
