public import BotCore
public import Foundation
public import Stores

/// One network's archive export as `mirror_bot import` reads it: which of an archive's files are its, how they are
/// imported, and what the import did in words. Each network's folder has its own, listed by the registry; the importer
/// knows none by name.
public protocol ExportFormat: Sendable {
    /// The network whose export it is, as its folder names it ("Mastodon").
    var network: String { get }
    /// The data files it reads, for messages ("tweets.js / like.js").
    var fileNames: String { get }
    /// What `mirror_bot import --help` says of it: where the person gets their export, what is left out, what is learned.
    var help: String { get }
    /// Whether it reads the file at `path`: its path inside the zip or folder (`data/tweets.js`), or a single file's name.
    func reads(_ path: String) -> Bool
    /// The name a received file (a download, standard input) is given so that `reads` knows it, told by its first bytes;
    /// nil when they are not this format's.
    func fileName(forHead head: Data) -> String?
    /// Imports `files` (those it reads, in order): everything read and checked before anything is stored, the owner
    /// asked about before anything is stored.
    func importFiles(_ files: [ExportFiles.File], into destination: ImportDestination) async throws -> ImportReport
    /// What `report` says, in words for the person who ran the import; `archived` is what the archive holds now,
    /// `resolving` whether whom replies answered could be looked up on the person's instance.
    func summary(of report: ImportReport, archived: Int, resolving: Bool) -> String
}

/// Where an import puts what it reads, and what it asks on the way.
public struct ImportDestination: Sendable {
    /// The id the person's instance gives an account or what a note answered (`user@domain`, `note:<id>`), or nil
    /// when it does not know it: how an export's replies are filed under whom they answered.
    public typealias AccountResolver = @Sendable (_ name: String) async throws -> AccountID?
    /// Learns liked posts (id and text) as the person's likes, each at most once ever; how many were newly learned.
    public typealias LikeLearner = @Sendable (_ likes: [(id: String, text: String)]) async throws -> Int

    /// Where posts go.
    public var archive: any PostArchive
    /// Learns likes that carry their text; nil learns none.
    public var learnLikes: LikeLearner?
    /// Whether posts with a content warning or labels are kept, warning first (`POST_CW`).
    public var copyingWarnings: Bool
    /// Names whom a reply answered on the person's instance; nil when no account of theirs is configured.
    public var resolveAccount: AccountResolver?
    /// Where the person's likes go, dated; nil keeps none.
    public var personLikes: (any LikeLog)?
    /// Asked, once the archive is read and before anything is stored, whether the account it names may be imported;
    /// throws to refuse it. Nil imports any archive.
    public var checkOwner: (@Sendable (ArchiveOwner) async throws -> Void)?

    /// How many likes are learned in one round trip to the word counts.
    public static let likesPerBatch = 2_000

    /// A destination from its parts.
    public init(
        archive: any PostArchive, learnLikes: LikeLearner? = nil, copyingWarnings: Bool = false, resolveAccount: AccountResolver? = nil,
        personLikes: (any LikeLog)? = nil,
        checkOwner: (@Sendable (ArchiveOwner) async throws -> Void)? = nil
    ) {
        self.archive = archive
        self.learnLikes = learnLikes
        self.copyingWarnings = copyingWarnings
        self.resolveAccount = resolveAccount
        self.personLikes = personLikes
        self.checkOwner = checkOwner
    }
}

/// What an import did.
public struct ImportReport: Sendable, Equatable {
    /// The network whose export it was ("X").
    public var network: String
    /// Posts found.
    public var postsRead = 0
    /// Reposts (retweets, boosts, renotes) left out.
    public var repostsSkipped = 0
    /// Posts newly stored (before the archive's row limit is applied).
    public var postsStored = 0
    /// Likes found.
    public var likesRead = 0
    /// Likes newly learned as the person's.
    public var likesLearned = 0
    /// Likes without text, which cannot be learned from (an export that lists their addresses only).
    public var likesWithoutText = 0
    /// Posts never copied (not for everyone, behind a warning unless `POST_CW`, quotes, without text).
    public var notCopied = 0
    /// Replies stored without whom they answered (the person's instance could not name them).
    public var repliesWithoutTarget = 0
    /// The lookups made on the person's instance to name whom replies answered.
    public var lookups = 0
    /// Records the export named but did not hold (a partial export).
    public var recordsMissing = 0
    /// Whose archive it is, where it says.
    public var owner: ArchiveOwner?

    /// A report from its parts (all zero by default).
    public init(
        network: String, postsRead: Int = 0, repostsSkipped: Int = 0, postsStored: Int = 0, likesRead: Int = 0, likesLearned: Int = 0,
        likesWithoutText: Int = 0
    ) {
        self.network = network
        self.postsRead = postsRead
        self.repostsSkipped = repostsSkipped
        self.postsStored = postsStored
        self.likesRead = likesRead
        self.likesLearned = likesLearned
        self.likesWithoutText = likesWithoutText
    }

    /// The summary's line on replies stored without whom they answered, nil when there are none: `why` says why they
    /// could not be named when the person's instance was asked, `howToAsk` what to set for it to be asked.
    public func repliesWithoutTargetLine(resolving: Bool, why: String, howToAsk: String) -> String? {
        guard repliesWithoutTarget > 0 else { return nil }
        return "\(repliesWithoutTarget) replies are stored without whom they answered"
            + (resolving ? " (\(why))" : ": set \(howToAsk) before importing to look them up")
            + "; the bot answers no one with them (REPLY_FALLBACK=any may)."
    }
}

/// The newest posts of an import, as many as the archive keeps (its row limit keeps the newest by time, then id):
/// older ones could never stay, so they are not held.
public struct NewestPosts: Sendable {
    private let limit: Int
    private var posts: [ArchivedPost] = []

    /// Keeps the newest `limit` (at least one).
    public init(keeping limit: Int) { self.limit = max(1, limit) }

    /// Adds one; past twice the limit, only the newest `limit` are kept.
    public mutating func add(_ post: ArchivedPost) {
        posts.append(post)
        if posts.count >= 2 * limit { trim() }
    }

    /// The newest `limit`, newest first.
    public var kept: [ArchivedPost] {
        var copy = self
        copy.trim()
        return copy.posts
    }

    private mutating func trim() {
        posts.sort { ($0.createdAt, $0.postID) > ($1.createdAt, $1.postID) }
        if posts.count > limit { posts.removeLast(posts.count - limit) }
    }
}
