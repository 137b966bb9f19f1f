public import HTTPCore

/// `notes/reactions/create`: reacts to a note (Misskey's like) as the token's account (204; `ALREADY_REACTED` when
/// it had).
public struct CreateReaction: MisskeyEndpoint {
    /// Nothing.
    public typealias Response = MisskeyNoContent
    /// The reference's name.
    public static let name = "notes/reactions/create"
    /// Reacting twice is refused as `ALREADY_REACTED`: one reaction.
    public static var repeatability: Repeatability { .idempotentWrite }
    /// The note's id.
    public var noteID: String
    /// The reaction (`❤`, `:emoji:`).
    public var reaction: String
    /// The request to react to `noteID` with `reaction`.
    public init(noteID: String, reaction: String) {
        self.noteID = noteID
        self.reaction = reaction
    }
    /// `noteId`, `reaction`.
    public var parameters: [String: MisskeyValue] { ["noteId": .string(noteID), "reaction": .string(reaction)] }
}

/// `users/reactions`: the reactions a user made, newest first (the person's "likes", for training); refused with
/// `REACTIONS_NOT_PUBLIC` when the user keeps them private and the token is not theirs.
public struct GetUserReactions: MisskeyPagedEndpoint {
    /// Reactions.
    public typealias Item = MisskeyReaction
    /// The reference's name.
    public static let name = "users/reactions"
    /// Whose.
    public var userID: String
    /// Items a page (at most 100).
    public var limit: Int
    /// Newer than this.
    public var sinceID: String?
    /// Older than this.
    public var untilID: String?

    /// The request for `userID`'s reactions.
    public init(userID: String, limit: Int = 100) {
        self.userID = userID
        self.limit = limit
    }
    /// `userId`, paging.
    public var parameters: [String: MisskeyValue] { pagingParameters.merging(["userId": .string(userID)]) { $1 } }
    /// A reaction's id.
    public static func id(of item: MisskeyReaction) -> String { item.id }
}
