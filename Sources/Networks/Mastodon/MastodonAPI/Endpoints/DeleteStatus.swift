/// `DELETE /api/v1/statuses/:id`: deletes a status of the token's account; answers with the status as it was.
///
/// mirror_bot uses it for the bot's copies of a status the person asked to forget (`mirror_bot forget`).
public struct DeleteStatus: MastodonEndpoint {
    /// The deleted status.
    public typealias Response = MastodonStatus
    /// The reference's name.
    public static let name = "DELETE /api/v1/statuses/:id"
    /// The status.
    public var statusID: String
    /// The request to delete `statusID`.
    public init(statusID: String) { self.statusID = statusID }
    /// DELETE.
    public var method: MastodonMethod { .DELETE }
    /// The path.
    public var path: String { "/api/v1/statuses/\(statusID)" }
    /// Deleting twice leaves it deleted (the second answers 404).
    public var isIdempotent: Bool { true }
}
