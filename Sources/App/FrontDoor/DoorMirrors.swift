public import Foundation
public import SocialNetwork

/// What an account's sign-in at the front door gave: the variables to set (secrets), and for a network that keeps its
/// sign-in in the store rather than in variables (Bluesky's OAuth session), how it is kept there.
public struct DoorSignIn: Sendable {
    /// The variables and their values.
    public var variables: [(name: String, value: String)]
    /// How the sign-in is kept in the mirror's store, sealed; nil where the variables are all of it.
    public var keeping: SignInKeeping?
    /// Takes the sign-in's grant back on the network, where it can be: what becomes of a sign-in no mirror was made with.
    public var release: (@Sendable () async -> Bool)?

    /// A sign-in from its parts.
    public init(variables: [(name: String, value: String)], keeping: SignInKeeping? = nil, release: (@Sendable () async -> Bool)? = nil) {
        self.variables = variables
        self.keeping = keeping
        self.release = release
    }
}

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
    /// Who sees its posts, where the network's posts say so (Mastodon, Misskey); nil elsewhere.
    public var visibility: Visibility?
    /// Words it never posts or answers with (`BLOCKED_WORDS`).
    public var blockedWords: [String]

    /// Who sees the bot's posts: `POST_VISIBILITY`'s values as Mastodon names them (Misskey reads `unlisted` as its
    /// home, `private` as followers).
    public enum Visibility: String, Sendable, CaseIterable {
        /// Anyone on its profile, not in the public timelines (the default).
        case unlisted
        /// Anyone, in the public timelines too.
        case `public`
        /// Its followers only.
        case `private`
    }

    /// The most blocked words a person gives, and the longest.
    public static let blockedWordsLimit = (count: 100, length: 60)

    /// Choices from their parts.
    public init(timeZone: String, style: Style, likes: Bool, visibility: Visibility? = nil, blockedWords: [String] = []) {
        self.timeZone = timeZone
        self.style = style
        self.likes = likes
        self.visibility = visibility
        self.blockedWords = blockedWords
    }

    /// The blocked words in what a person typed: separated by commas (`,`, `、`, `，`) or lines, trimmed, each once;
    /// nil when there are more or longer ones than `blockedWordsLimit`.
    public static func blockedWords(in text: String) -> [String]? {
        var words: [String] = []
        for part in text.split(whereSeparator: { ",、，\n\r".contains($0) }) {
            let word = part.trimmingCharacters(in: .whitespaces)
            guard !word.isEmpty, !words.contains(word) else { continue }
            guard word.count <= blockedWordsLimit.length else { return nil }
            words.append(word)
        }
        return words.count <= blockedWordsLimit.count ? words : nil
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
    /// Whether its person may pause it now: it runs, or someone else paused it and they have not (theirs stays after).
    public var canPause = true
    /// Whether its person may start it now: the pause is theirs alone.
    public var canStart = false
    /// The person's consent as it is recorded, in a sentence.
    public var consent: String?
    /// What it did lately, newest first.
    public var lately: [Action]
    /// The person's choices as its settings hold them now.
    public var choices: MirrorChoices?

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
    public init(bot: String, pausedBecause: String?, isRunning: Bool, consent: String?, lately: [Action] = [], choices: MirrorChoices? = nil) {
        self.choices = choices
        self.bot = bot
        self.pausedBecause = pausedBecause
        self.isRunning = isRunning
        self.consent = consent
        self.lately = lately
    }
}

/// What a deletion removed, for the person's receipt.
public struct DoorDeletion: Sendable, Equatable {
    /// The schema its stores were in (`bot_7`).
    public var schema: String
    /// How many word-count keys went from Redis.
    public var keys: Int
    /// The network whose sign-ins are still approved there (`Mastodon`).
    public var networkName: String
    /// When.
    public var at: Date
    /// Whether the network took both sign-ins back (their grants revoked there); else they are still approved.
    public var revoked: Bool

    /// A receipt from its parts.
    public init(schema: String, keys: Int, networkName: String, at: Date, revoked: Bool = false) {
        self.schema = schema
        self.keys = keys
        self.networkName = networkName
        self.at = at
        self.revoked = revoked
    }

    /// Each thing removed, then what was not done, in a line each, in English or Japanese (`language`).
    public func lines(language: String) -> [String] {
        language == "ja"
            ? [
                "ミラーの設定(両アカウントのサインインを含む。暗号化して保管していたもの)",
                "ストア(スキーマ \(schema) のすべての表):アーカイブ、学習の例、予定、いいね、返信、同意の記録",
                "Redis の単語の数のキー \(keys) 個",
                revoked
                    ? "\(networkName) での2つのサインイン(承認は \(networkName) で取り消しました)"
                    : "未実施:2つのサインインは \(networkName) で承認されたままです。各アカウントの連携アプリから mirror_bot を削除してください",
            ]
            : [
                "the mirror's settings, with both accounts' sign-ins (kept sealed)",
                "its stores (the schema \(schema), every table): your archive, the training examples, the plans, the likes, the answers and the consent record",
                "\(keys) word-count keys in Redis",
                revoked
                    ? "the two sign-ins on \(networkName): their approvals were taken back there"
                    : "not done: the two sign-ins are still approved on \(networkName): remove mirror_bot from the authorized apps of each account there",
            ]
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

/// What a mirror would do, shown to its person before it posts: today's plan beside their hours, posts as they would go
/// out (each with the posts of theirs it comes from), how it would answer the people they talk to, and its likes.
public struct DoorPreview: Sendable, Equatable {
    /// One post as it would go out.
    public struct Sample: Sendable, Equatable {
        /// When, in the mirror's zone (`2026-11-29 08:05`).
        public var at: String
        /// What it would post; nil when it would post nothing then (`reason` says why).
        public var text: String?
        /// The person's posts it comes from: the one it copies, or a remix's sources.
        public var sources: [String]
        /// Why nothing would go out then.
        public var reason: String?

        /// A sample from its parts.
        public init(at: String, text: String?, sources: [String], reason: String? = nil) {
            self.at = at
            self.text = text
            self.sources = sources
            self.reason = reason
        }
    }

    /// How it would answer someone the person talks to.
    public struct Reply: Sendable, Equatable {
        /// Whom (`@taro`, or their id where the archive names no handle).
        public var to: String
        /// What it would answer.
        public var text: String

        /// A reply from its parts.
        public init(to: String, text: String) {
            self.to = to
            self.text = text
        }
    }

    /// The day planned (`2026-11-29`) and its zone.
    public var day: String
    /// The mirror's time zone.
    public var timeZone: String
    /// The person's posts it learned from.
    public var postsLearned: Int
    /// The person's posts in each hour of the day (0–23), as counted in their archive.
    public var hours: [Int]
    /// The minutes of today's plan (minute of the day).
    public var planned: [Int]
    /// Copies or remixes.
    public var style: MirrorChoices.Style
    /// Posts as they would go out (up to a dozen, today's slots first).
    public var samples: [Sample]
    /// How it would answer the people the person answers most.
    public var replies: [Reply]
    /// Its likes in a sentence ("about 4 a day, as you like"); nil when it does not like.
    public var likes: String?

    /// A preview from its parts.
    public init(
        day: String, timeZone: String, postsLearned: Int, hours: [Int], planned: [Int], style: MirrorChoices.Style, samples: [Sample],
        replies: [Reply], likes: String?
    ) {
        self.day = day
        self.timeZone = timeZone
        self.postsLearned = postsLearned
        self.hours = hours
        self.planned = planned
        self.style = style
        self.samples = samples
        self.replies = replies
        self.likes = likes
    }
}

/// A mirror refused a change, in a sentence for its person.
public struct DoorMirrorRefused: Error, CustomStringConvertible {
    /// The sentence.
    public var description: String

    /// An invitation used already, withdrawn or expired.
    public static let invitationNotOpen = DoorMirrorRefused(
        "This invitation was used already, withdrawn, or has expired: ask whoever gave it to you for another.")

    /// A refusal saying `description`.
    public init(_ description: String) { self.description = description }
}

/// Where the front door makes, shows, pauses and deletes people's mirrors: the fleet's bots (`FleetDoorMirrors`). A
/// mirror is found by its person's account alone, never by anything a browser sends: each person reaches only their
/// own.
public protocol DoorMirrors: Sendable {
    /// The mirror of `person`, nil when they have none.
    func mirror(of person: DoorAccount) async throws -> DoorMirror?
    /// Makes `person`'s mirror, posting as `bot`, with the accounts' sign-ins (`personSignIn`, `botSignIn`: what each
    /// flow gave, secrets) and `choices`; records the person's consent (signed in at the door `how`); the mirror is
    /// paused until its person starts it. Throws `DoorMirrorRefused` when it cannot be made.
    /// With `invitation` (a door by invitation), that invitation is used for it, once: a used, withdrawn or expired one
    /// throws `DoorMirrorRefused`, and one used for a mirror that could not be made is given back.
    func create(
        person: DoorAccount, personSignIn: DoorSignIn, bot: DoorAccount, botSignIn: DoorSignIn, choices: MirrorChoices, invitation: String?,
        how: String, now: Date
    ) async throws -> DoorMirror
    /// Changes `person`'s choices (their consent record says what they now agree to); the fleet starts it again with
    /// them. Nil when they have none.
    func change(_ choices: MirrorChoices, of person: DoorAccount) async throws -> DoorMirror?
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
    /// How many posts `person`'s mirror's archive holds now (what an import's progress shows); nil when they have none.
    func archiveCount(of person: DoorAccount) async throws -> Int?
    /// What `person`'s mirror would do from `now`, drawn from what it has learned (nothing is sent, nothing is kept):
    /// the same every time it is asked on one day; nil when they have none.
    func preview(of person: DoorAccount, now: Date) async throws -> DoorPreview?
    /// Deletes `person`'s mirror and everything it keeps of them; nil when they have none.
    func delete(of person: DoorAccount, now: Date) async throws -> DoorDeletion?
}
