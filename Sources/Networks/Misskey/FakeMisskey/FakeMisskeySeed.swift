public import Foundation

/// What a fake Misskey instance holds at start: accounts with their tokens and permissions, notes (MFM, with their
/// visibility, content warning, reply and renote), reactions and follows. Written by tests and by the generated
/// persona.
public struct FakeMisskeySeed: Sendable {
    /// An account, and the token that acts as it (nil: an account nobody here logs in as).
    public struct Account: Sendable, Equatable {
        /// Its id (the instance's, as `aidx` makes them).
        public var id: String
        /// Its username.
        public var username: String
        /// Its token.
        public var token: String?
        /// The permissions of its token (`read:account`, `write:notes`, `write:reactions`, …).
        public var permissions: Set<String>
        /// Whether it has the bot flag.
        public var isBot: Bool
        /// Its profile's text (MFM).
        public var description: String
        /// Its instance, for a remote account (nil: this instance's own).
        public var host: String?
        /// Whether others may read its reactions (`users/reactions`).
        public var publicReactions: Bool

        /// An account from its parts.
        public init(
            id: String, username: String, token: String? = nil, permissions: Set<String> = FakeMisskeySeed.allPermissions, isBot: Bool = false,
            description: String = "", host: String? = nil, publicReactions: Bool = true
        ) {
            self.id = id
            self.username = username
            self.token = token
            self.permissions = permissions
            self.isBot = isBot
            self.description = description
            self.host = host
            self.publicReactions = publicReactions
        }
    }

    /// A note.
    public struct Note: Sendable, Equatable {
        /// Its id (`aidx`: the first 8 base-36 digits are its time).
        public var id: String
        /// Its author.
        public var userID: String
        /// Its text (MFM), nil for a pure renote.
        public var text: String?
        /// Its content warning.
        public var cw: String?
        /// `public`, `home`, `followers` or `specified`.
        public var visibility: String
        /// Whether it stays on the instance.
        public var localOnly: Bool
        /// The note it answers.
        public var replyID: String?
        /// The note it renotes.
        public var renoteID: String?
        /// When it was made (hidden until the clock reaches it).
        public var createdAt: Date
        /// Who may see a `specified` note.
        public var visibleUserIDs: [String]

        /// A note from its parts.
        public init(
            id: String, userID: String, text: String?, cw: String? = nil, visibility: String = "public", localOnly: Bool = false,
            replyID: String? = nil, renoteID: String? = nil, createdAt: Date, visibleUserIDs: [String] = []
        ) {
            self.id = id
            self.userID = userID
            self.text = text
            self.cw = cw
            self.visibility = visibility
            self.localOnly = localOnly
            self.replyID = replyID
            self.renoteID = renoteID
            self.createdAt = createdAt
            self.visibleUserIDs = visibleUserIDs
        }
    }

    /// Every permission a token may have that the bot asks for.
    public static let allPermissions: Set<String> = ["read:account", "write:notes", "read:reactions", "write:reactions", "read:notifications"]

    /// The instance's clock at start.
    public var now: Date
    /// The instance's host.
    public var host: String
    /// The accounts.
    public var accounts: [Account]
    /// The notes.
    public var notes: [Note]
    /// Each account's reactions, most recent first: the note and the reaction.
    public var reactions: [String: [(noteID: String, reaction: String)]]
    /// Whom each account follows.
    public var follows: [String: [String]]
    /// Accounts that answer every note mentioning them or answering them, 30 seconds later (a bot that talks forever).
    public var autoRepliers: [String] = []
    /// The longest note the instance takes.
    public var maxNoteTextLength = 3_000
    /// The persona ids of notes and accounts made from the generated persona (note or user id → persona id), for the demo's report.
    public var personaNoteIDs: [String: String] = [:]
    /// The persona ids of accounts (user id → persona user id).
    public var personaUserIDs: [String: String] = [:]

    /// A seed from its parts.
    public init(
        now: Date, host: String = "misskey.example", accounts: [Account], notes: [Note] = [],
        reactions: [String: [(noteID: String, reaction: String)]] = [:], follows: [String: [String]] = [:]
    ) {
        self.now = now
        self.host = host
        self.accounts = accounts
        self.notes = notes
        self.reactions = reactions
        self.follows = follows
    }

    /// An `aidx` id for a note made at `date`: 8 base-36 digits of milliseconds since 2000, a 4-digit node and a
    /// 4-digit counter, as Misskey makes them.
    public static func aidx(at date: Date, node: String = "fake", counter: Int) -> String {
        let milliseconds = max(0, Int64(((date.timeIntervalSince1970 - 946_684_800) * 1000).rounded(.down)))
        let time = String(milliseconds, radix: 36)
        let count = String(counter % 1_679_616, radix: 36)
        return String(repeating: "0", count: max(0, 8 - time.count)) + time + node.prefix(4) + String(repeating: "0", count: max(0, 4 - count.count))
            + count
    }
}
