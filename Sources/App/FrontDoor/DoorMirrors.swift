public import Foundation

/// An account signed in at the front door: the person's, or their bot's.
public struct DoorAccount: Sendable, Equatable {
    /// The network's key (`mastodon`).
    public var network: String
    /// The network's name (`Mastodon`).
    public var networkName: String
    /// The handle, without the @.
    public var handle: String
    /// The account as the network identifies it (`id@instance`, a DID): what a consent record names.
    public var account: String

    /// An account from its parts.
    public init(network: String, networkName: String, handle: String, account: String) {
        self.network = network
        self.networkName = networkName
        self.handle = handle
        self.account = account
    }
}

/// What a person chose for their mirror on its page.
public struct MirrorChoices: Sendable, Equatable {
    /// How its posts are made.
    public enum Style: String, Sendable, CaseIterable {
        /// Their posts as they wrote them.
        case copy
        /// New posts from their words.
        case remix
    }

    /// The time zone of their hours (`Asia/Tokyo`).
    public var timeZone: String
    /// Copies or remixes.
    public var style: Style
    /// Whether it likes what they would like (where the network allows and welcomes it).
    public var likes: Bool

    /// Choices from their parts.
    public init(timeZone: String, style: Style, likes: Bool) {
        self.timeZone = timeZone
        self.style = style
        self.likes = likes
    }

    /// The time zones the page offers: the one a browser's language suggests first.
    public static let timeZones = [
        "Asia/Tokyo", "UTC", "Europe/London", "Europe/Berlin", "America/New_York", "America/Chicago", "America/Los_Angeles",
        "Asia/Seoul", "Asia/Shanghai", "Asia/Kolkata", "Australia/Sydney", "America/Sao_Paulo",
    ]
}

/// A person's mirror as its page shows it.
public struct DoorMirror: Sendable, Equatable {
    /// The bot account it posts as, as its consent record names it (`@mirror (200@example.social)`).
    public var bot: String
    /// Why it is paused, nil while it runs.
    public var pausedBecause: String?
    /// Whether a process of the fleet runs it now.
    public var isRunning: Bool
    /// The person's consent as it is recorded, in a sentence.
    public var consent: String?
    /// What it did lately, newest first.
    public var lately: [Action]

    /// One thing a mirror did, as its person reads it: texts and links, not ids.
    public struct Action: Sendable, Equatable {
        /// What it did.
        public enum Kind: String, Sendable {
            /// Posted (a copy of `text`, or a remix).
            case posted
            /// Did not post at a slot (`reason` says why).
            case skipped
            /// Answered a mention.
            case answered
            /// Did not answer a mention (`reason` says why).
            case notAnswered
            /// Liked a post.
            case liked
        }

        /// What it did.
        public var kind: Kind
        /// When, in the mirror's time zone (`2026-11-22 08:05`).
        public var at: String
        /// The person's post it copied, when it was a copy still in their archive.
        public var text: String?
        /// Where to see the bot's post (or the post it liked), when the network gives an address.
        public var link: String?
        /// Why it did not, for a skip.
        public var reason: String?

        /// An action from its parts.
        public init(kind: Kind, at: String, text: String?, link: String?, reason: String?) {
            self.kind = kind
            self.at = at
            self.text = text
            self.link = link
            self.reason = reason
        }
    }

    /// A mirror from its parts.
    public init(bot: String, pausedBecause: String?, isRunning: Bool, consent: String?, lately: [Action] = []) {
        self.bot = bot
        self.pausedBecause = pausedBecause
        self.isRunning = isRunning
        self.consent = consent
        self.lately = lately
    }
}

/// What a deletion removed, for the person's receipt.
public struct DoorDeletion: Sendable, Equatable {
    /// Each thing removed, in a line ("the settings and tokens of the bot @mirror").
    public var removed: [String]
    /// When.
    public var at: Date

    /// A receipt from its parts.
    public init(removed: [String], at: Date) {
        self.removed = removed
        self.at = at
    }
}

/// What an archive's import did, for the person who uploaded it.
public struct DoorImport: Sendable, Equatable {
    /// What was read and kept, in the importer's words ("Imported 2,499 of 2,612 posts…").
    public var summary: String
    /// How many of their posts the mirror's archive holds now.
    public var archived: Int

    /// A result from its parts.
    public init(summary: String, archived: Int) {
        self.summary = summary
        self.archived = archived
    }
}

/// A mirror refused a change, in a sentence for its person.
public struct DoorMirrorRefused: Error, CustomStringConvertible {
    /// The sentence.
    public var description: String

    /// A refusal saying `description`.
    public init(_ description: String) { self.description = description }
}

/// Where the front door makes, shows, pauses and deletes people's mirrors: the fleet's bots (`FleetDoorMirrors`). A
/// mirror is found by its person's account alone, never by anything a browser sends: each person reaches only their
/// own.
public protocol DoorMirrors: Sendable {
    /// The mirror of `person`, nil when they have none.
    func mirror(of person: DoorAccount) async throws -> DoorMirror?
    /// Makes `person`'s mirror, posting as `bot`, with the accounts' sign-ins (`personVariables`, `botVariables`: what
    /// each flow gave, secrets) and `choices`; records the person's consent (signed in at the door `how`); the mirror
    /// is paused until its person starts it. Throws `DoorMirrorRefused` when it cannot be made.
    func create(
        person: DoorAccount, personVariables: [(name: String, value: String)], bot: DoorAccount, botVariables: [(name: String, value: String)],
        choices: MirrorChoices, how: String, now: Date
    ) async throws -> DoorMirror
    /// Starts (`paused` false) or pauses `person`'s mirror; nil when they have none.
    func setPaused(_ paused: Bool, of person: DoorAccount) async throws -> DoorMirror?
    /// Everything `person`'s mirror keeps of them, as one JSON document (their posts, what it learned from, what it
    /// did, their consent); nil when they have none.
    func download(of person: DoorAccount, now: Date) async throws -> Data?
    /// Imports the archive export at `path` (a file the person uploaded: its zip, or one data file) into `person`'s
    /// mirror, as `mirror_bot import` does: their posts into its archive, their likes into its word counts; nil when
    /// they have none. Throws `DoorMirrorRefused`, with nothing stored, for a file it cannot read or another person's
    /// archive.
    func importArchive(of person: DoorAccount, at path: String, now: Date) async throws -> DoorImport?
    /// Deletes `person`'s mirror and everything it keeps of them; nil when they have none.
    func delete(of person: DoorAccount, now: Date) async throws -> DoorDeletion?
}
