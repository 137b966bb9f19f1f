import BotClock
public import Foundation

/// A Misskey user as notes and notifications carry it (`UserLite`), with what `i` and `users/show` add (`UserDetailed`:
/// the profile's text).
public struct MisskeyUser: Codable, Sendable, Equatable {
    /// The instance's id of the user.
    public var id: String
    /// The username, without `@` or host.
    public var username: String
    /// The user's instance, nil for a user of this one.
    public var host: String?
    /// The display name.
    public var name: String?
    /// Whether the account says it is automated (the bot flag).
    public var isBot: Bool?
    /// The profile's text (MFM), in detailed answers only.
    public var description: String?

    /// A user from its parts.
    public init(id: String, username: String, host: String? = nil, name: String? = nil, isBot: Bool? = nil, description: String? = nil) {
        self.id = id
        self.username = username
        self.host = host
        self.name = name
        self.isBot = isBot
        self.description = description
    }

    /// `user` for a local user, `user@host` for another instance's: how mentions write it.
    public var acct: String { host.map { "\(username)@\($0)" } ?? username }
}

/// Who may see a note, from the most public.
public enum MisskeyVisibility: String, Codable, Sendable, Comparable, CaseIterable {
    /// Everyone, on every timeline.
    case `public`
    /// Everyone, but only on the author's followers' home timelines (Misskey's quiet public).
    case home
    /// The author's followers.
    case followers
    /// Only the users it names.
    case specified

    /// Ordered from the most public.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The note a note answers or renotes, as Misskey packs it inside another (one level, not its own parents).
public struct MisskeyNoteReference: Codable, Sendable, Equatable {
    /// Its id.
    public var id: String
    /// When it was made.
    public var createdAt: Date?
    /// Its author's id.
    public var userId: String
    /// Its author.
    public var user: MisskeyUser?
    /// What it answers, if anything.
    public var replyId: String?
    /// Who may see it.
    public var visibility: MisskeyVisibility?
}

/// A note (Misskey's post): its text is MFM, as written.
public struct MisskeyNote: Codable, Sendable, Equatable {
    /// The instance's id of the note.
    public var id: String
    /// When it was made.
    public var createdAt: Date
    /// Its author's id.
    public var userId: String
    /// Its author.
    public var user: MisskeyUser
    /// The text (MFM), nil for a pure renote or a note of files only.
    public var text: String?
    /// The content warning, if any.
    public var cw: String?
    /// Who may see it.
    public var visibility: MisskeyVisibility
    /// Whether it stays on its instance (not federated).
    public var localOnly: Bool?
    /// The note it answers.
    public var replyId: String?
    /// The note it renotes (with no text: a pure renote; with text: a quote).
    public var renoteId: String?
    /// The note it answers, packed.
    public var reply: MisskeyNoteReference?
    /// The note it renotes, packed.
    public var renote: MisskeyNoteReference?
    /// The ids of the users it mentions.
    public var mentions: [String]?
    /// The ids of its files.
    public var fileIds: [String]?
    /// The reaction of the reader, when it reacted.
    public var myReaction: String?

    /// A note from its parts.
    public init(
        id: String, createdAt: Date, userId: String, user: MisskeyUser, text: String?, cw: String? = nil,
        visibility: MisskeyVisibility = .public, localOnly: Bool? = nil, replyId: String? = nil, renoteId: String? = nil,
        reply: MisskeyNoteReference? = nil, renote: MisskeyNoteReference? = nil, mentions: [String]? = nil, fileIds: [String]? = nil,
        myReaction: String? = nil
    ) {
        self.id = id
        self.createdAt = createdAt
        self.userId = userId
        self.user = user
        self.text = text
        self.cw = cw
        self.visibility = visibility
        self.localOnly = localOnly
        self.replyId = replyId
        self.renoteId = renoteId
        self.reply = reply
        self.renote = renote
        self.mentions = mentions
        self.fileIds = fileIds
        self.myReaction = myReaction
    }

    /// Whether it only renotes another (no text, no files): a renote, never the author's own words.
    public var isPureRenote: Bool { renoteId != nil && (text ?? "").isEmpty && (fileIds ?? []).isEmpty }
    /// Whether it quotes another note with words of its own.
    public var isQuote: Bool { renoteId != nil && !isPureRenote }
}

/// A notification (`i/notifications`, and the main stream's `notification` events).
public struct MisskeyNotification: Codable, Sendable, Equatable {
    /// Its id.
    public var id: String
    /// When it was made.
    public var createdAt: Date
    /// `mention`, `reply`, `reaction`, `follow`, …
    public var type: String
    /// Who caused it.
    public var userId: String?
    /// The note it is about, for mentions, replies and reactions.
    public var note: MisskeyNote?
}

/// A reaction a user made (`users/reactions`): Misskey's likes.
public struct MisskeyReaction: Codable, Sendable, Equatable {
    /// Its id.
    public var id: String
    /// When it was made.
    public var createdAt: Date
    /// The reaction (`❤`, `:emoji:`).
    public var type: String
    /// The note reacted to.
    public var note: MisskeyNote
}

/// What the instance says of itself (`meta`): the longest note it takes.
public struct MisskeyMeta: Codable, Sendable, Equatable {
    /// The instance's name.
    public var name: String?
    /// The longest note text, in characters (3,000 when the instance does not say).
    public var maxNoteTextLength: Int?
}

/// `notes/create`'s answer.
public struct MisskeyCreatedNote: Codable, Sendable, Equatable {
    /// The note made.
    public var createdNote: MisskeyNote
}

/// MiAuth's check: whether the person approved the session, and the token it made.
public struct MiAuthCheck: Codable, Sendable, Equatable {
    /// Whether the session was approved (and its token not fetched before).
    public var ok: Bool
    /// The access token.
    public var token: String?
    /// Whose it is.
    public var user: MisskeyUser?
}

/// An answer with no body (204): deletions and reactions.
public struct MisskeyNoContent: Decodable, Sendable, Equatable {
    /// Nothing.
    public init() {}
    /// Reads nothing.
    public init(from decoder: any Decoder) throws {}
}

/// Misskey's error answer: `{"error": {"message", "code", "id", "kind", "info"}}`.
public struct MisskeyErrorBody: Codable, Sendable, Equatable {
    /// The error.
    public struct Detail: Codable, Sendable, Equatable {
        /// The sentence.
        public var message: String
        /// The stable code (`NO_SUCH_NOTE`, `RATE_LIMIT_EXCEEDED`).
        public var code: String
        /// The error's UUID.
        public var id: String
        /// `client`, `permission` or `server`, when given.
        public var kind: String?

        /// A detail from its parts.
        public init(message: String, code: String, id: String, kind: String? = nil) {
            self.message = message
            self.code = code
            self.id = id
            self.kind = kind
        }
    }

    /// The error.
    public var error: Detail

    /// An error body from its detail.
    public init(error: Detail) { self.error = error }
}

/// The JSON Misskey speaks: dates as ISO 8601 with milliseconds (`BotClock`'s `ISO8601Time`).
public enum MisskeyJSON {
    /// A decoder for Misskey's answers.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
        return decoder
    }

    /// An encoder writing as Misskey does.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601Time.string(from: date))
        }
        return encoder
    }
}
