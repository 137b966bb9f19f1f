public import Foundation

/// What a fake Mastodon instance holds at start: accounts with their tokens, statuses (HTML, as instances store
/// them), favourites and follows. Written by tests and by the generated persona.
public struct FakeMastodonSeed: Sendable {
    /// An account, and the token that acts as it (nil: an account of the instance nobody here logs in as), and the
    /// password it signs in with on the authorization page (nil: it cannot sign in there).
    public struct Account: Sendable, Equatable {
        /// Its id.
        public var id: String
        /// Its username.
        public var username: String
        /// Its bearer token.
        public var token: String?
        /// The scopes of its token.
        public var scopes: Set<String>
        /// Whether it has the bot flag.
        public var bot: Bool
        /// Its profile text, HTML.
        public var note: String
        /// The domain of its home instance, for an account of another instance (nil: this instance's own).
        public var domain: String?
        /// The password it signs in with on `/oauth/authorize` (nil: it cannot sign in; another instance's never can).
        public var password: String?
        /// Its profile's extra fields: a name and a value (plain text or an address); a field whose address is another
        /// account's profile page here is verified when that profile's fields link back (as Mastodon finds `rel="me"`).
        public var fields: [Field] = []

        /// A profile field.
        public struct Field: Sendable, Equatable {
            /// Its name.
            public var name: String
            /// Its value: plain text, or an address (shown as a link).
            public var value: String
            /// A field from its parts.
            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        /// An account from its parts.
        public init(
            id: String, username: String, token: String? = nil, scopes: Set<String> = ["read", "write"], bot: Bool = false,
            note: String = "", domain: String? = nil, password: String? = nil
        ) {
            self.id = id
            self.username = username
            self.token = token
            self.scopes = scopes
            self.bot = bot
            self.note = note
            self.domain = domain
            self.password = password
        }

        /// `username` for this instance's own account, `username@domain` for another instance's.
        public var acct: String { domain.map { "\(username)@\($0)" } ?? username }
    }

    /// A status.
    public struct Status: Sendable, Equatable {
        /// Its id (decimal digits; larger is newer).
        public var id: String
        /// Its author.
        public var accountID: String
        /// Its HTML content.
        public var content: String
        /// When it was posted (hidden until the clock reaches it).
        public var createdAt: Date
        /// `public`, `unlisted`, `private` or `direct`.
        public var visibility: String
        /// The content warning, "" when none.
        public var spoilerText: String
        /// The status it answers.
        public var inReplyToID: String?
        /// The accounts it mentions.
        public var mentionIDs: [String]
        /// The status it boosts.
        public var reblogOf: String?

        /// A status from its parts.
        public init(
            id: String, accountID: String, content: String, createdAt: Date, visibility: String = "public",
            spoilerText: String = "", inReplyToID: String? = nil, mentionIDs: [String] = [], reblogOf: String? = nil
        ) {
            self.id = id
            self.accountID = accountID
            self.content = content
            self.createdAt = createdAt
            self.visibility = visibility
            self.spoilerText = spoilerText
            self.inReplyToID = inReplyToID
            self.mentionIDs = mentionIDs
            self.reblogOf = reblogOf
        }
    }

    /// The instance's clock at start.
    public var now: Date
    /// The instance's domain.
    public var domain: String
    /// The accounts.
    public var accounts: [Account]
    /// The statuses.
    public var statuses: [Status]
    /// Each account's favourites, most recent first.
    public var favourites: [String: [String]]
    /// Whom each account follows.
    public var follows: [String: [String]]
    /// Accounts that answer every status mentioning them or answering them, 30 seconds later (a bot that talks
    /// forever, to prove the bot's limits).
    public var autoRepliers: [String] = []

    /// A seed from its parts.
    public init(
        now: Date, domain: String = "mastodon.example", accounts: [Account], statuses: [Status] = [],
        favourites: [String: [String]] = [:], follows: [String: [String]] = [:]
    ) {
        self.now = now
        self.domain = domain
        self.accounts = accounts
        self.statuses = statuses
        self.favourites = favourites
        self.follows = follows
    }
}
