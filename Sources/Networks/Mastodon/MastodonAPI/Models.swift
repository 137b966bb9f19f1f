import BotClock
public import Foundation

/// A status (`Status` in the API reference), with the fields mirror_bot decides by. Its `content` is HTML.
public struct MastodonStatus: Codable, Sendable, Equatable {
    /// The status's id (a string of digits, newer is larger on one instance).
    public var id: String
    /// When it was posted.
    public var createdAt: Date
    /// The HTML text.
    public var content: String
    /// Who may see it.
    public var visibility: MastodonVisibility
    /// The content warning ("" when none).
    public var spoilerText: String
    /// Its author.
    public var account: MastodonAccount
    /// The status it answers.
    public var inReplyToID: String?
    /// The author of the status it answers.
    public var inReplyToAccountID: String?
    /// The status it boosts, for a boost.
    public var reblog: MastodonReblog?
    /// The accounts it mentions.
    public var mentions: [MastodonMention]

    /// A status from its parts.
    public init(
        id: String, createdAt: Date, content: String, visibility: MastodonVisibility, spoilerText: String = "",
        account: MastodonAccount, inReplyToID: String? = nil, inReplyToAccountID: String? = nil,
        reblog: MastodonReblog? = nil, mentions: [MastodonMention] = []
    ) {
        self.id = id
        self.createdAt = createdAt
        self.content = content
        self.visibility = visibility
        self.spoilerText = spoilerText
        self.account = account
        self.inReplyToID = inReplyToID
        self.inReplyToAccountID = inReplyToAccountID
        self.reblog = reblog
        self.mentions = mentions
    }

    enum CodingKeys: String, CodingKey {
        case id, content, visibility, account, reblog, mentions
        case createdAt = "created_at"
        case spoilerText = "spoiler_text"
        case inReplyToID = "in_reply_to_id"
        case inReplyToAccountID = "in_reply_to_account_id"
    }
}

/// The boosted status inside a boost: only its id is kept (mirror_bot never copies a boost).
public struct MastodonReblog: Codable, Sendable, Equatable {
    /// The boosted status's id.
    public var id: String
    /// A boosted status from its id.
    public init(id: String) { self.id = id }
}

/// Who may see a status.
public enum MastodonVisibility: String, Codable, Sendable, Comparable, CaseIterable {
    /// Everyone, in public timelines.
    case `public`
    /// Everyone, out of public timelines.
    case unlisted
    /// Followers only.
    case `private`
    /// The mentioned accounts only.
    case direct

    /// Unknown values (a newer server's) decode as the narrowest.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = MastodonVisibility(rawValue: text) ?? .direct
    }

    /// Wider first: public < unlisted < private < direct.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// An account (`Account`), with what mirror_bot uses.
public struct MastodonAccount: Codable, Sendable, Equatable {
    /// The account's id on the instance that answered.
    public var id: String
    /// The username, without a domain.
    public var username: String
    /// `username` for a local account, `username@domain` for a remote one.
    public var acct: String
    /// Whether the account says it is automated (the bot flag).
    public var bot: Bool
    /// The profile text, HTML.
    public var note: String
    /// The address of its profile page.
    public var url: String?
    /// The profile's extra fields ("metadata"), each with whether the instance verified its link.
    public var fields: [Field]?

    /// A profile field: a name, a value (HTML), and when the instance found a `rel="me"` link back on the page it
    /// links to (nil: not verified).
    public struct Field: Codable, Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its value, HTML (a link is an `<a href>`).
        public var value: String
        /// When its link was verified, nil when it was not.
        public var verifiedAt: String?

        enum CodingKeys: String, CodingKey {
            case name, value
            case verifiedAt = "verified_at"
        }

        /// A field from its parts.
        public init(name: String, value: String, verifiedAt: String? = nil) {
            self.name = name
            self.value = value
            self.verifiedAt = verifiedAt
        }

        /// Whether its value links to `address` (the `href` of a link, or the value itself).
        public func links(to address: String) -> Bool {
            value.contains("href=\"\(address)\"") || value == address
        }
    }

    /// An account from its parts.
    public init(id: String, username: String, acct: String, bot: Bool = false, note: String = "", url: String? = nil, fields: [Field]? = nil) {
        self.id = id
        self.username = username
        self.acct = acct
        self.bot = bot
        self.note = note
        self.url = url
        self.fields = fields
    }
}

/// A mention inside a status (`StatusMention`).
public struct MastodonMention: Codable, Sendable, Equatable {
    /// The mentioned account's id.
    public var id: String
    /// Its username.
    public var username: String
    /// Its `acct`.
    public var acct: String
    /// A mention from its parts.
    public init(id: String, username: String, acct: String) {
        self.id = id
        self.username = username
        self.acct = acct
    }
}

/// A notification (`Notification`); mirror_bot asks only for mentions.
public struct MastodonNotification: Codable, Sendable, Equatable {
    /// The notification's id (not the status's).
    public var id: String
    /// `mention`, `favourite`, ...
    public var type: String
    /// Who caused it.
    public var account: MastodonAccount
    /// The status, for a mention.
    public var status: MastodonStatus?

    /// A notification from its parts.
    public init(id: String, type: String, account: MastodonAccount, status: MastodonStatus?) {
        self.id = id
        self.type = type
        self.account = account
        self.status = status
    }
}

/// What `GET /api/v2/instance` says that mirror_bot uses: the longest status it takes.
public struct MastodonInstance: Codable, Sendable, Equatable {
    /// The instance's domain.
    public var domain: String
    /// `configuration`.
    public var configuration: Configuration

    /// The instance's limits.
    public struct Configuration: Codable, Sendable, Equatable {
        /// `statuses`.
        public var statuses: Statuses
        /// A configuration from its parts.
        public init(statuses: Statuses) { self.statuses = statuses }
    }

    /// Limits on statuses.
    public struct Statuses: Codable, Sendable, Equatable {
        /// The most characters a status may have.
        public var maxCharacters: Int
        /// A limit from its parts.
        public init(maxCharacters: Int) { self.maxCharacters = maxCharacters }
        enum CodingKeys: String, CodingKey { case maxCharacters = "max_characters" }
    }

    /// An instance from its parts.
    public init(domain: String, maxCharacters: Int) {
        self.domain = domain
        configuration = Configuration(statuses: Statuses(maxCharacters: maxCharacters))
    }
}

/// An error answer's body (`Error`).
public struct MastodonErrorBody: Codable, Sendable, Equatable {
    /// What went wrong.
    public var error: String
    /// More, for OAuth errors.
    public var errorDescription: String?
    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }
}

/// The JSON Mastodon writes: snake_case fields given by each type's keys, ISO 8601 times with milliseconds.
public enum MastodonJSON {
    /// A decoder for Mastodon API responses.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
        return decoder
    }
}

/// The thread around a status (`Context`): only the ancestors' ids are kept, oldest (the root) first.
public struct MastodonContext: Codable, Sendable, Equatable {
    /// The statuses above, oldest first.
    public var ancestors: [MastodonStatusReference]

    /// A thread from its ancestors.
    public init(ancestors: [MastodonStatusReference]) { self.ancestors = ancestors }
}

/// A status known by its id only.
public struct MastodonStatusReference: Codable, Sendable, Equatable {
    /// The status's id.
    public var id: String
    /// A reference to `id`.
    public init(id: String) { self.id = id }
}

/// An application a token was made with (`Application`).
public struct MastodonApplication: Codable, Sendable, Equatable {
    /// Its name.
    public var name: String
    /// Its registered scopes (instances before Mastodon 4.3 do not say them).
    public var scopes: [String]?

    /// An application from its parts.
    public init(name: String, scopes: [String]?) {
        self.name = name
        self.scopes = scopes
    }
}

/// An application just registered, with its OAuth 2 credentials (`CredentialApplication`, from `POST /api/v1/apps`).
public struct MastodonCredentialApplication: Codable, Sendable, Equatable {
    /// Its id.
    public var id: String
    /// Its name.
    public var name: String
    /// `client_id`: names the application in the authorization request and the token request.
    public var clientID: String
    /// `client_secret`: proves the token request comes from the application; a secret.
    public var clientSecret: String
    /// Where the instance may send a code.
    public var redirectURIs: [String]
    /// The most an authorization of it may grant.
    public var scopes: [String]

    /// An application from its parts.
    public init(id: String, name: String, clientID: String, clientSecret: String, redirectURIs: [String], scopes: [String]) {
        self.id = id
        self.name = name
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURIs = redirectURIs
        self.scopes = scopes
    }

    enum CodingKeys: String, CodingKey {
        case id, name, scopes
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case redirectURIs = "redirect_uris"
    }
}

/// An access token (`Token`, from `POST /oauth/token`).
public struct MastodonToken: Codable, Sendable, Equatable {
    /// The bearer token: it acts as the account that approved, a secret.
    public var accessToken: String
    /// `Bearer`.
    public var tokenType: String
    /// The scopes it was granted, space-separated.
    public var scope: String
    /// When it was made, in seconds since 1970.
    public var createdAt: Double

    /// A token from its parts.
    public init(accessToken: String, tokenType: String, scope: String, createdAt: Double) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.scope = scope
        self.createdAt = createdAt
    }

    /// The granted scopes, one by one.
    public var scopes: [String] { scope.split(separator: " ").map(String.init) }

    enum CodingKeys: String, CodingKey {
        case scope
        case accessToken = "access_token"
        case tokenType = "token_type"
        case createdAt = "created_at"
    }
}

/// The empty object some endpoints answer with (`POST /oauth/revoke`).
public struct MastodonEmptyObject: Codable, Sendable, Equatable {
    /// The empty object.
    public init() {}
}
