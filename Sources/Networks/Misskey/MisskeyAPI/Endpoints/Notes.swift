public import HTTPCore

/// `users/notes`: a user's notes, newest first (replies when `withReplies`, renotes when `withRenotes`).
public struct GetUserNotes: MisskeyPagedEndpoint {
    /// Notes.
    public typealias Item = MisskeyNote
    /// The reference's name.
    public static let name = "users/notes"
    /// The person's notes are read with their token: followers-only notes show, and are left out by the bot.
    public var userID: String
    /// Replies too.
    public var withReplies: Bool
    /// Items a page (at most 100).
    public var limit: Int
    /// Newer than this.
    public var sinceID: String?
    /// Older than this.
    public var untilID: String?

    /// The request for `userID`'s notes, with their replies, without renotes.
    public init(userID: String, withReplies: Bool = true, sinceID: String? = nil, limit: Int = 100) {
        self.userID = userID
        self.withReplies = withReplies
        self.sinceID = sinceID
        self.limit = limit
    }
    /// `userId`, `withReplies`, `withRenotes: false`, paging.
    public var parameters: [String: MisskeyValue] {
        pagingParameters.merging(["userId": .string(userID), "withReplies": .bool(withReplies), "withRenotes": .bool(false)]) { $1 }
    }
    /// A note's id.
    public static func id(of item: MisskeyNote) -> String { item.id }
}

/// `notes/mentions`: the notes that mention the token's account, newest first.
public struct GetMentions: MisskeyPagedEndpoint {
    /// Notes.
    public typealias Item = MisskeyNote
    /// The reference's name.
    public static let name = "notes/mentions"
    /// Items a page (at most 100).
    public var limit: Int
    /// Newer than this.
    public var sinceID: String?
    /// Older than this.
    public var untilID: String?

    /// The request for mentions newer than `sinceID`.
    public init(sinceID: String? = nil, limit: Int = 100) {
        self.sinceID = sinceID
        self.limit = limit
    }
    /// Paging.
    public var parameters: [String: MisskeyValue] { pagingParameters }
    /// A note's id.
    public static func id(of item: MisskeyNote) -> String { item.id }
}

/// `notes/timeline`: the home timeline of the token's account, newest first.
public struct GetTimeline: MisskeyPagedEndpoint {
    /// Notes.
    public typealias Item = MisskeyNote
    /// The reference's name.
    public static let name = "notes/timeline"
    /// Renotes too.
    public var withRenotes: Bool
    /// Items a page (at most 100).
    public var limit: Int
    /// Newer than this.
    public var sinceID: String?
    /// Older than this.
    public var untilID: String?

    /// The request for the timeline newer than `sinceID`.
    public init(withRenotes: Bool = false, sinceID: String? = nil, limit: Int = 100) {
        self.withRenotes = withRenotes
        self.sinceID = sinceID
        self.limit = limit
    }
    /// `withRenotes`, paging.
    public var parameters: [String: MisskeyValue] { pagingParameters.merging(["withRenotes": .bool(withRenotes)]) { $1 } }
    /// A note's id.
    public static func id(of item: MisskeyNote) -> String { item.id }
}

/// `notes/show`: one note, if it is there and visible to the token's account.
public struct ShowNote: MisskeyEndpoint {
    /// The note.
    public typealias Response = MisskeyNote
    /// The reference's name.
    public static let name = "notes/show"
    /// The note's id.
    public var noteID: String
    /// The request for `noteID`.
    public init(noteID: String) { self.noteID = noteID }
    /// `noteId`.
    public var parameters: [String: MisskeyValue] { ["noteId": .string(noteID)] }
}

/// `notes/create`: a note as the token's account, optionally answering another. Misskey takes no idempotency key: it
/// is sent again only when it surely never left.
public struct CreateNote: MisskeyEndpoint {
    /// The note made.
    public typealias Response = MisskeyCreatedNote
    /// The reference's name.
    public static let name = "notes/create"
    /// A create without a key.
    public static var repeatability: Repeatability { .create }
    /// The text (MFM).
    public var text: String
    /// Who may see it.
    public var visibility: MisskeyVisibility
    /// The content warning, if any.
    public var cw: String?
    /// Whether it stays on the instance.
    public var localOnly: Bool
    /// The note it answers.
    public var replyID: String?
    /// Who may see a `specified` note (the mentioner of a `specified` mention).
    public var visibleUserIDs: [String]

    /// The request to post `text`.
    public init(
        text: String, visibility: MisskeyVisibility, cw: String? = nil, localOnly: Bool = false, replyID: String? = nil, visibleUserIDs: [String] = []
    ) {
        self.text = text
        self.visibility = visibility
        self.cw = cw
        self.localOnly = localOnly
        self.replyID = replyID
        self.visibleUserIDs = visibleUserIDs
    }
    /// `text`, `visibility`, `cw`, `localOnly`, `replyId`, `visibleUserIds`.
    public var parameters: [String: MisskeyValue] {
        var parameters: [String: MisskeyValue] = ["text": .string(text), "visibility": .string(visibility.rawValue), "localOnly": .bool(localOnly)]
        if let cw, !cw.isEmpty { parameters["cw"] = .string(cw) }
        if let replyID { parameters["replyId"] = .string(replyID) }
        if visibility == .specified { parameters["visibleUserIds"] = .strings(visibleUserIDs) }
        return parameters
    }
}

/// `notes/delete`: deletes one of the token's account's notes (204).
public struct DeleteNote: MisskeyEndpoint {
    /// Nothing.
    public typealias Response = MisskeyNoContent
    /// The reference's name.
    public static let name = "notes/delete"
    /// Deleting twice deletes once.
    public static var repeatability: Repeatability { .idempotentWrite }
    /// The note's id.
    public var noteID: String
    /// The request to delete `noteID`.
    public init(noteID: String) { self.noteID = noteID }
    /// `noteId`.
    public var parameters: [String: MisskeyValue] { ["noteId": .string(noteID)] }
}
