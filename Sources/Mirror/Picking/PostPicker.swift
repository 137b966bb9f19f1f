import BotClock
public import BotCore
public import Consent
public import Foundation
public import Logging
import PostText
public import Remix
public import Stores

/// Chooses what the bot posts at a given moment: one of the human's own posts written around the same time of day.
///
/// Rules: a non-reply post (reposts are never archived) written within ±30 minutes of the current minute of the
/// day, circularly; when there is none, the window widens step by step (±60, ±120, ±240, ±480 minutes, then the
/// whole day) instead of failing, as the original did. Never a post the bot posted in the last
/// `repostAfterDays`, nor another with the same text (a person repeats themselves; a network that refuses no
/// duplicates, as Mastodon, would show the copy saying it twice); never a post that @-mentions someone unless `allowsMentions` (a copy must not ping strangers);
/// never one that contains a link unless `allowsLinks` (on X a post with a link costs $0.200 instead of $0.015).
/// Never one with a word of `blockedWords` (`BLOCKED_WORDS`, case- and width-insensitive).
/// On a network that refuses a repeat within a window (X: a day), nothing posted within that window either, even with
/// a shorter `repostAfterDays`: the bot knows its own posts and never asks for what would be refused.
public struct PostPicker: Sendable {
    /// A chosen post and how wide the window had to be; with `POST_STYLE=remix`, the remix written from posts near it.
    public struct Pick: Sendable, Equatable {
        /// The human's post to post again; for a remix, the source that gave its longest run.
        public var post: ArchivedPost
        /// The window's half-width in minutes when it was found.
        public var radius: Int
        /// The remix to post instead of the post, when the style is `remix`.
        public var remix: Remix?

        /// A pick from its parts.
        public init(post: ArchivedPost, radius: Int, remix: Remix? = nil) {
            self.post = post
            self.radius = radius
            self.remix = remix
        }

        /// What is posted: the remix, or the post's text.
        public var text: String { remix?.text ?? post.text }
        /// The content warning it is posted behind (a remix has none: its sources have none).
        public var contentWarning: String? { remix == nil ? post.contentWarning : nil }
        /// What the slot's record says it was: the post copied, or the remix's sources.
        public var origin: String {
            guard let remix else { return "the human's post \(post.postID)" }
            return
                "a remix of the human's posts \(remix.sourceIDs.map(String.init).joined(separator: ", ")) (longest run from one: \(Int((remix.overlap * 100).rounded()))% of its \(remix.morphemes) morphemes)"
        }
    }

    /// Why nothing was picked, for the slot's record.
    public struct NothingToPost: Error, Sendable, CustomStringConvertible {
        /// The reason, as the slot's record and the log say it.
        public var description: String

        /// The archive has nothing the rules let through.
        public static let emptyArchive = NothingToPost(description: "nothing to post: the archive has no postable tweet")
    }

    /// The window half-widths tried in order.
    public static let radii = [30, 60, 120, 240, 480, 720]

    /// The human's posts.
    public let archive: any PostArchive
    /// Days before the bot may post the same post again (`REPOST_AFTER_DAYS`).
    public let repostAfterDays: Int
    /// Whether posts with @-mentions may be posted (`POST_MENTIONS`).
    public let allowsMentions: Bool
    /// Whether posts with links may be posted (`POST_LINKS`).
    public let allowsLinks: Bool
    /// How long the network refuses a text the account already posted (`NetworkCapabilities.refusesRepeatsWithin`).
    public let repeatWindow: TimeInterval?
    /// Words a post must not contain (`BLOCKED_WORDS`).
    public let blockedWords: WordList
    /// Writes remixes instead of copies (`POST_STYLE=remix`); nil: copies.
    public let remixer: Remixer?
    /// The remixes posted lately, never written again.
    public let remixMemory: RemixMemory?
    private let logger: Logger

    /// Most source posts a remix is written from, drawn near the minute.
    static let remixSources = 60
    /// The fewest: with fewer in the window, it is widened.
    static let remixMinimumSources = 20
    /// Remixes looked up in the archive before the slot gives up, when each says what another of the person's posts says.
    static let remixesLookedUp = 5

    /// Posts drawn per window before it is widened, when each one drawn has a blocked word.
    static let drawsPerWindow = 20

    /// A picker over `archive`.
    public init(
        archive: any PostArchive, repostAfterDays: Int, allowsMentions: Bool, allowsLinks: Bool = true,
        repeatWindow: TimeInterval? = nil, blockedWords: WordList = WordList([]), remixer: Remixer? = nil,
        remixMemory: RemixMemory? = nil, logger: Logger
    ) {
        self.archive = archive
        self.remixer = remixer
        self.remixMemory = remixMemory
        self.blockedWords = blockedWords
        self.repostAfterDays = repostAfterDays
        self.repeatWindow = repeatWindow
        self.allowsMentions = allowsMentions
        self.allowsLinks = allowsLinks
        self.logger = logger
    }

    /// A post to post at `now`, not one in `excluded` (for example one X just refused as a duplicate); nil, with
    /// a log line saying why, when the archive has nothing postable.
    public func pick(
        at now: Date, excluding excluded: Set<PostID> = [],
        using generator: inout some RandomNumberGenerator
    ) async throws -> Pick? {
        guard case .success(let pick) = try await choose(at: now, excluding: excluded, using: &generator) else { return nil }
        return pick
    }

    /// A post (or, with a remixer, a remix) to post at `now`, not from one in `excluded`; or why there is none, also
    /// logged.
    public func choose(
        at now: Date, excluding excluded: Set<PostID> = [],
        using generator: inout some RandomNumberGenerator
    ) async throws -> Result<Pick, NothingToPost> {
        if let remixer { return try await remix(at: now, excluding: excluded, with: remixer, using: &generator) }
        let minute = Self.minuteOfDay(now, in: archive.timeZone)
        let postedSince = now.addingTimeInterval(-max(Double(repostAfterDays) * 86_400, repeatWindow ?? 0))
        var excluded = excluded
        var blocked = 0
        for radius in Self.radii {
            for _ in 0..<Self.drawsPerWindow {
                guard
                    let post = try await archive.randomPost(
                        nearMinute: minute, radius: radius, excluding: excluded, allowingMentions: allowsMentions,
                        allowingLinks: allowsLinks, notPostedSince: postedSince, using: &generator)
                else { break }
                if let word = blockedWords.firstMatch(in: post.text) {
                    logger.debug("not posting the human's post \(post.postID): it contains the blocked word \"\(word)\"")
                    excluded.insert(post.postID)
                    blocked += 1
                    continue
                }
                if radius > Self.radii[0] {
                    logger.info("No post of the human within ±\(Self.radii[0]) minutes of \(LocalTime.clockTime(minute)); took one from ±\(radius)")
                }
                return .success(Pick(post: post, radius: radius))
            }
        }
        logger.notice(
            "Nothing to post at \(LocalTime.clockTime(minute)): the archive has no postable tweet (empty, all posted in the last \(repostAfterDays) days, or all mention someone\(allowsLinks ? "" : " or contain a link")\(blocked > 0 ? "; \(blocked) drawn had a blocked word" : "")). Run `mirror_bot train scheduler` or `mirror_bot import`."
        )
        return .failure(.emptyArchive)
    }

    /// A remix of the human's posts written near `now`'s minute of the day (up to `remixSources` of them, the window
    /// widened while there are fewer than `remixMinimumSources`, and again while no remix of them passes): its sources obey the copy's rules (no mention, no link where those are off,
    /// no blocked word, no content warning) and the remix itself is checked again, whole, and against the remixes
    /// posted lately.
    private func remix(
        at now: Date, excluding excluded: Set<PostID>, with remixer: Remixer,
        using generator: inout some RandomNumberGenerator
    ) async throws -> Result<Pick, NothingToPost> {
        let minute = Self.minuteOfDay(now, in: archive.timeZone)
        var drawn = excluded
        var sources: [ArchivedPost] = []
        var radius = Self.radii[0]
        var windows = Self.radii.makeIterator()
        var wanted = Self.remixMinimumSources
        let recent = try await remixMemory?.texts(since: now.addingTimeInterval(-max(Double(repostAfterDays) * 86_400, repeatWindow ?? 0))) ?? []
        var written: Result<Remix, RemixRefusal>?
        // The window is widened while there are too few sources, and by one more window each time no remix of the
        // sources so far passed, until one passes or the widest window has been drawn.
        while true {
            let had = sources.count
            var exhausted = false
            while sources.count < wanted {
                guard let window = windows.next() else {
                    exhausted = true
                    break
                }
                radius = window
                // Up to `remixSources` in all; after a refusal, up to as many again from the wider window.
                let count = written == nil ? Self.remixSources - sources.count : Self.remixSources
                let posts = try await archive.randomPosts(
                    nearMinute: minute, radius: window, count: count, excluding: drawn,
                    allowingMentions: allowsMentions, allowingLinks: allowsLinks, using: &generator)
                drawn.formUnion(posts.map(\.postID))
                sources += posts.filter { $0.contentWarning == nil && blockedWords.firstMatch(in: $0.text) == nil }
            }
            if written != nil && sources.count == had { break }  // nothing new to try
            written = try await writeRemix(of: sources, with: remixer, avoiding: recent, using: &generator)
            guard case .failure? = written, !exhausted else { break }
            wanted = sources.count + 1
        }
        switch written ?? .failure(RemixRefusal(sources: 0)) {
        case .success(let remix):
            guard let main = sources.first(where: { $0.postID == remix.mainSourceID }) else {
                return .failure(NothingToPost(description: "nothing to post: the remix lost its sources"))
            }
            return .success(Pick(post: main, radius: radius, remix: remix))
        case .failure(let refusal):
            let why = "nothing to post: \(refusal) within ±\(radius) min of \(LocalTime.clockTime(minute)) (REMIX_MAX_OVERLAP \(remixer.maxOverlap))"
            logger.notice("\(why)")
            return .failure(NothingToPost(description: why))
        }
    }

    /// One remix of `sources` that passes: not one of the person's own texts (looked up, up to `remixesLookedUp`),
    /// nor one posted lately (`recent`), nor one the copy's rules refuse.
    private func writeRemix(
        of sources: [ArchivedPost], with remixer: Remixer, avoiding recent: RemixTexts,
        using generator: inout some RandomNumberGenerator
    ) async throws -> Result<Remix, RemixRefusal> {
        let candidates = sources.map { RemixSource(id: $0.postID, text: $0.text) }
        // A remix that says what one of the person's other posts says (not among its sources) is a copy of that one.
        var personsTexts = Set<String>()
        var written: Result<Remix, RemixRefusal>
        repeat {
            written = remixer.remix(of: candidates, using: &generator) { text in
                !personsTexts.contains(text) && !recent.contains(text) && blockedWords.firstMatch(in: text) == nil
                    && (allowsMentions || !ArchiveRules.mentionsSomeone(text)) && (allowsLinks || !PostLinks.containsLink(text))
            }
            guard case .success(let remix) = written, try await archive.containsText(remix.text) else { break }
            personsTexts.insert(remix.text)
        } while personsTexts.count < Self.remixesLookedUp
        if case .success(let remix) = written, personsTexts.contains(remix.text) {
            var refusal = RemixRefusal(sources: candidates.count)
            refusal.copies = personsTexts.count
            written = .failure(refusal)
        }
        return written
    }

    /// The minute of the day (0–1439) of `date` in `timeZone`.
    public static func minuteOfDay(_ date: Date, in timeZone: TimeZone) -> Int {
        LocalTime(of: date, in: timeZone).minute
    }

}
