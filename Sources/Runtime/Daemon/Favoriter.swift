public import BotClock
import BotCore
public import Classifier
public import Consent
public import Foundation
public import Logging
import Schedule
public import ServiceLifecycle
public import SocialNetwork
public import Stores
import Training

/// Likes, on the bot's home timeline, what the human would like: as many a day as they like, at their kind of
/// minutes, the best of what they would like.
///
/// Two loops. One polls the bot's home timeline with a stored `since_id` (only what is new), classifies each page in
/// one Redis round trip and keeps the posts above the keeping bar (`like_candidates`; the calibration's cut that lets
/// through about twice the person's share of their timeline, never above the like threshold, so a busy day's slots
/// still find good posts). The other draws each local day's like plan (`LikePlanner`: a count from the person's own
/// days of liking, minutes from when they like), stores it (a restart the same day keeps it), and at each planned
/// minute likes the best post kept (highest score, then newest) not older than a day; a slot with none waits for one
/// (`waitForPost`, looking after each poll), then is skipped saying so. It never likes the bot's own posts, the
/// human's, reposts, a post already liked, nor anything while the filter has not learned both sides (the original's
/// formula would then like everything), nor anyone who opted out or is in `BLOCKED_ACCOUNTS` (checked again at the
/// slot), nor anything while the person has paused everything. Each like and each skipped slot is stored with its
/// reason.
///
/// It runs only while the liking policy is active. When the network refuses the likes endpoints (403 client-forbidden: the
/// app is not enrolled), the client stores the refusal and the favoriter stops reading the timeline; once a day it
/// checks with one call that reads and changes nothing (taking back a like the bot never made, of the human's
/// newest post) and starts afresh when X accepts it.
public struct Favoriter: Service {
    /// How the favoriter behaves.
    public struct Settings: Sendable {
        /// Time between polls of the home timeline. 5 minutes uses 3 of the 180 reads per 15 minutes X allows.
        public var pollInterval: TimeInterval
        /// Log what would be liked without liking (`--dry-run`).
        public var dryRun: Bool
        /// A like slot this late is skipped (`MISSED_SLOT_GRACE`, as posts).
        public var missedSlotGrace: TimeInterval
        /// Oldest post liked, by its age at the slot: a day.
        public var oldestLiked: TimeInterval
        /// How long a slot with nothing kept to like waits for a post (looking again after each poll), never past the
        /// end of its day: two hours. 0 skips it at once.
        public var waitForPost: TimeInterval

        /// Settings.
        public init(
            pollInterval: TimeInterval = 300, dryRun: Bool = false, missedSlotGrace: TimeInterval = 600, oldestLiked: TimeInterval = 86_400,
            waitForPost: TimeInterval = 7_200
        ) {
            self.pollInterval = pollInterval
            self.dryRun = dryRun
            self.missedSlotGrace = missedSlotGrace
            self.oldestLiked = oldestLiked
            self.waitForPost = waitForPost
        }
    }

    static let sinceIDKey = "home.since_id"
    private var cursor: SinceCursor { SinceCursor(state: state, key: Self.sinceIDKey) }

    let clock: any BotClock
    let likes: any LikeLog
    let state: any BotState
    let archive: any PostArchive
    let policy: LikingPolicy
    let classifier: FavoriteClassifier
    let network: any MirrorNetwork
    let botUserID: String
    let humanUserID: String
    let settings: Settings
    let contact: ContactRules
    let control: OwnerControl
    let logger: Logger
    let seed: UInt64?

    /// A favoriter for the bot `botUserID`, mirroring the human `humanUserID`, liking while `policy` is active, never
    /// an account `contact` leaves alone (by default: the opt-out list in `state`); `seed` makes its plans repeatable
    /// (tests), nil draws a fresh one.
    public init(
        clock: any BotClock, likes: any LikeLog, state: any BotState, archive: any PostArchive, policy: LikingPolicy, classifier: FavoriteClassifier,
        network: any MirrorNetwork, botUserID: String, humanUserID: String, settings: Settings = Settings(), contact: ContactRules? = nil,
        logger: Logger, seed: UInt64? = nil
    ) {
        self.clock = clock
        self.likes = likes
        self.state = state
        self.archive = archive
        self.policy = policy
        self.classifier = classifier
        self.network = network
        self.botUserID = botUserID
        self.humanUserID = humanUserID
        self.settings = settings
        self.logger = logger
        self.seed = seed
        self.contact = contact ?? ContactRules(state: state)
        self.control = OwnerControl(state: state)
    }

    private var timeZone: TimeZone { archive.timeZone }

    /// Polls and likes until cancelled or the group's graceful shutdown.
    public func run() async throws {
        let interval = Duration.seconds(settings.pollInterval)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await PollingLoop.run("Favoriter", on: network.name, clock: clock, logger: logger, interval: interval) { _ in
                    try await round() ?? interval
                }
            }
            group.addTask { try await likeDays() }
            try await group.waitForAll()
        }
    }

    /// One round per local day: its like plan, each slot from its minute (a slot waiting for a post looks again a
    /// poll interval later), then a wait until the next day starts.
    func likeDays() async throws {
        var fresh = SplitMix64()
        let base = seed ?? fresh.next()
        try await PollingLoop.run("Liker", on: network.name, clock: clock, logger: logger, interval: .seconds(60)) { number in
            var generator = SplitMix64(seed: base &+ UInt64(number))
            let day = SchedulePlanner.day(of: clock.now(), in: timeZone)
            let endOfDay = Poster.startOfNextDay(after: clock.now(), in: timeZone)
            var open = try await likePlan(for: day, using: &generator).filter { $0.state == .planned }.map(\.minute)
            var waiting: Set<Int> = []  // slots this process has tried and that wait for a post
            // The likes still to make keep their room in what a billing network's reads for likes may spend.
            defer { network.keepAsideForLikes(at: []) }
            while !open.isEmpty {
                network.keepAsideForLikes(at: open.map { due($0, on: day) })
                let now = clock.now()
                for minute in open where due(minute, on: day) <= now {
                    switch try await useSlot(day: day, minute: minute, waiting: waiting.contains(minute)) {
                    case .waiting: waiting.insert(minute)
                    case .liked, .skipped:
                        open.removeAll { $0 == minute }
                        waiting.remove(minute)
                    }
                }
                guard !open.isEmpty else { break }
                var wake = open.map { due($0, on: day) }.filter { $0 > clock.now() }.min() ?? endOfDay
                if !waiting.isEmpty { wake = min(wake, clock.now().addingTimeInterval(settings.pollInterval)) }
                try await clock.sleep(until: min(wake, endOfDay))
            }
            network.keepAsideForLikes(at: [])
            // Until the next day of this plan (not of now: a slot that waited to the end of the day is used at midnight).
            try await clock.sleep(until: endOfDay)
            return .zero
        }
    }

    /// When the slot `minute` of `day` is due.
    private func due(_ minute: Int, on day: String) -> Date { LocalTime.date(of: minute, on: day, in: timeZone) ?? .distantPast }

    /// The stored like plan of `day`, drawing and storing it first if there is none.
    func likePlan(for day: String, using generator: inout SplitMix64) async throws -> [LikeSlot] {
        if let stored = try await likes.likeSlots(of: day) { return stored }
        let (drawn, basis) = try await LikePlanner(likes: likes, archive: archive).plan(for: day, using: &generator)
        let slots = try await likes.storeLikePlan(day: day, minutes: drawn.minutes, drawnAt: clock.now())
        logger.info(
            "planned \(slots.count) likes for \(day) (\(timeZone.identifier)) \(basis.summary): \(slots.map { LocalTime.clockTime($0.minute) }.joined(separator: ", "))"
        )
        return slots
    }

    /// What using a like slot came to.
    enum SlotOutcome: Equatable {
        /// A post was liked.
        case liked
        /// The slot was skipped, its reason stored.
        case skipped
        /// Nothing is kept to like yet: the slot waits for a post (it is still planned).
        case waiting
    }

    /// Uses the like slot `minute` of `day`, due now: likes the best post kept for it (under the threshold too: the
    /// minute is the person's kind of time, and waiting for a better post drew likes out of their hours in
    /// `script/bench-likes` without raising precision); with none kept, waits for one until `waitForPost` after its
    /// minute (never past its day); else skips the slot saying why. `waiting`: this process tried it before and it
    /// waits (a slot first tried this late was missed).
    @discardableResult
    func useSlot(day: String, minute: Int, waiting: Bool = false) async throws -> SlotOutcome {
        let clockTime = LocalTime.clockTime(minute)
        let due = self.due(minute, on: day)
        func skip(_ reason: String) async throws -> SlotOutcome {
            try await likes.markLikeSkipped(day: day, minute: minute, at: clock.now(), reason: reason)
            DaemonMetrics.likeSlotSkipped()
            logger.info("skipped like slot \(clockTime) of \(day): \(reason)")
            return .skipped
        }
        let lateness = clock.now().timeIntervalSince(due)
        if !waiting && lateness > settings.missedSlotGrace {
            return try await skip("missed: the bot was not running at \(clockTime) (\(Int(lateness / 60)) minutes ago)")
        }
        if let paused = try await control.current(), paused.pause.stopsEverything {
            return try await skip(
                paused.pause == .ended
                    ? "the person ended the mirror"
                    : paused.pause == .signInLapsed
                        ? "the person's sign-in lapsed: nothing is liked until they sign in again" : "the person paused everything")
        }
        if let refusal = policy.refusal { return try await skip("\(network.name) refuses liking (\(refusal.detail)) until it is checked again") }
        let since = clock.now().addingTimeInterval(-settings.oldestLiked)
        try await likes.forgetCandidates(postedBefore: since, postID: nil)
        let leftAlone = try await contact.leftAlone()
        var tried = 0
        for candidate in try await likes.candidates(postedSince: since) {
            // Someone who asked the bot to stop after their post was kept is left alone too.
            guard !leftAlone.contains(id: candidate.authorID.map(String.init), handle: candidate.authorHandle) else {
                try await likes.forgetCandidates(postedBefore: nil, postID: candidate.postID)
                continue
            }
            let who = "@" + (candidate.authorHandle ?? candidate.authorID.map(String.init) ?? "?")
            if settings.dryRun { return try await skip("dry run: would like \(candidate.postID) by \(who): \(candidate.reason)") }
            // Once the like leaves, it is finished and recorded even if the bot is stopped meanwhile (within the grace):
            // a like made on the network is never left out of the record.
            do {
                try await InFlight.finish { [network, likes, clock, botUserID] in
                    try await network.like(candidate.postID.text, as: botUserID, for: .liking)
                    let like = RecordedLike(
                        postID: candidate.postID, authorID: candidate.authorID, logRatio: candidate.logRatio,
                        reason: candidate.reason + " (best of the day's posts at \(clockTime))", likedAt: clock.now())
                    try await likes.markLiked(day: day, minute: minute, like: like)
                }
            } catch let error as NetworkError where error.isRefusal {
                return try await skip("\(network.name) refused liking: \(error)")
            } catch NetworkError.shed(let reason) {
                return try await skip("today's budget leaves no room for likes: \(reason)")
            } catch let error as NetworkError {
                // That post (deleted, or the network failing): the next best, twice at most.
                logger.warning("could not like \(candidate.postID) by \(who): \(error)")
                try await likes.forgetCandidates(postedBefore: nil, postID: candidate.postID)
                tried += 1
                if tried < 3 { continue }
                return try await skip("could not like \(tried) posts: \(error)")
            }
            logger.info(
                "liked \(candidate.postID) by \(who) at slot \(clockTime)\(waiting ? " (at \(LocalTime(of: clock.now(), in: timeZone).clockTime), once kept)" : ""): \(candidate.reason)"
            )
            DaemonMetrics.liked()
            return .liked
        }
        let until = min(due.addingTimeInterval(settings.waitForPost), Poster.startOfNextDay(after: due, in: timeZone))
        if clock.now() < until {
            if !waiting {
                logger.info(
                    "like slot \(clockTime) of \(day): nothing kept to like yet; it waits for a post until \(LocalTime(of: until, in: timeZone).clockTime)"
                )
            }
            return .waiting
        }
        let waited = waiting ? " (waited for one until \(LocalTime(of: clock.now(), in: timeZone).clockTime))" : ""
        return try await skip(
            "no post on the timeline since \(LocalTime(of: since, in: timeZone).clockTime) yesterday the person would like, not liked yet\(waited)")
    }

    /// One round: the daily check while X refuses likes, else one poll. Returns how long to wait when that is not
    /// the poll interval (a refusal's recheck).
    func round() async throws -> Duration? {
        guard policy.isChosen else { return .seconds(86_400) }
        if let refusal = policy.refusal {
            guard clock.now() >= refusal.recheckAt else { return Self.duration(until: refusal.recheckAt, from: clock.now()) }
            guard try await checkLikesAgain() else { return policy.refusal.map { Self.duration(until: $0.recheckAt, from: clock.now()) } }
        }
        do {
            try await pollOnce()
        } catch NetworkError.notEnrolled {
            // The client logged the refusal and stored it; what the timeline held meanwhile is not liked later.
            try await cursor.forget()
            return policy.refusal.map { Self.duration(until: $0.recheckAt, from: clock.now()) }
        }
        return nil
    }

    /// The daily check of a refused likes endpoint: one call that reads and changes nothing. True when X accepts
    /// it again (the client then forgets the refusal, and the favoriter starts afresh from the newest post).
    func checkLikesAgain() async throws -> Bool {
        guard let newest = try await archive.newestPostID() else { return false }
        do {
            try await network.checkLikes(as: botUserID, on: newest.text, for: .liking)
        } catch let error as NetworkError where error.isRefusal {
            return false
        }
        try await cursor.forget()
        return true
    }

    static func duration(until date: Date, from now: Date) -> Duration {
        .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000) + 1)
    }

    /// One poll: the new posts of the home timeline, classified page by page, the favorites liked.
    func pollOnce() async throws {
        // Once the person ended the mirror (or their sign-in lapsed), nothing is read for liking, nor its place kept.
        if try await control.waitsForSignIn() { return }
        guard case .after(let sinceID) = try await cursor.position() else {
            // First start: remember where the timeline stands; what came before is not liked.
            // Reposts count here: the newest post of any kind marks where the timeline stands.
            try await cursor.start(
                at: network.homeTimeline(
                    of: botUserID, as: .bot, since: nil, maxPosts: 1, perPage: 1, includingReposts: true,
                    for: .liking))
            return
        }
        let pages = network.homeTimeline(of: botUserID, as: .bot, since: sinceID, maxPosts: nil, perPage: 100, includingReposts: false, for: .liking)
        try await cursor.readNew(pages, after: sinceID) { page in try await keepFavorites(page.posts) }
    }

    /// Classifies a page's posts in one round trip and keeps those above the keeping bar for the like slots.
    func keepFavorites(_ posts: [NetworkPost]) async throws {
        if let paused = try await control.current(), paused.pause.stopsEverything {
            logger.debug("not keeping \(posts.count) posts to like: the person paused everything")
            return
        }
        let leftAlone = try await contact.leftAlone()
        let oldest = clock.now().addingTimeInterval(-settings.oldestLiked)
        let candidates = posts.filter {
            !$0.isRepost && $0.authorID != botUserID && $0.authorID != humanUserID && !$0.authorAsksNoBots
                && !leftAlone.contains(id: $0.authorID, handle: $0.authorHandle) && ($0.createdAt ?? clock.now()) >= oldest
        }
        guard !candidates.isEmpty else { return }
        let liked = try await likes.likedAmong(candidates.map { PostID($0.id) })
        let fresh = candidates.filter { !liked.contains(PostID($0.id)) }
        let verdicts = try await classifier.classify(fresh.map(FavoriteClassifier.Post.init))
        var kept: [LikeCandidate] = []
        let likeCut = Foundation.log(classifier.threshold)
        let keepingCut = Foundation.log(classifier.keepingThreshold)
        for (post, verdict) in zip(fresh, verdicts) where verdict.isCandidate {
            guard verdict.score.logRatio.isFinite else {
                logger.notice(
                    "not liking \(post.id): the filter has not learned both liked and not-liked posts yet (run `mirror_bot train classifier`)")
                return
            }
            let postID = PostID(post.id)
            let reasons = verdict.score.strongestContributions(limit: 3).towardFavorite.map(\.feature).joined(separator: ", ")
            // Above the threshold (a like on its own), or kept for a slot with nothing better (above the keeping bar).
            let reason =
                verdict.isFavorite || keepingCut >= likeCut
                ? String(format: "log ratio %.2f > %.2f", verdict.score.logRatio, likeCut) + " (\(reasons))"
                : String(format: "log ratio %.2f > %.2f, the bar for keeping (the threshold %.2f)", verdict.score.logRatio, keepingCut, likeCut)
                    + " (\(reasons))"
            kept.append(
                LikeCandidate(
                    postID: postID, authorID: post.authorID.map { AccountID($0) }, authorHandle: post.authorHandle,
                    logRatio: verdict.score.logRatio, reason: reason, postedAt: post.createdAt ?? clock.now()))
        }
        guard !kept.isEmpty else { return }
        try await likes.keepCandidates(kept)
        logger.debug("kept \(kept.count) posts to like: \(kept.map(\.postID.text).joined(separator: ", "))")
    }
}
