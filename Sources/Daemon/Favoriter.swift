public import BotCore
public import Stores
public import BotClock
public import Classifier
public import Foundation
public import Logging
public import Consent
public import ServiceLifecycle
public import SocialNetwork
import Training


/// Likes, on the bot's home timeline, what the human would like.
///
/// It polls the bot's home timeline with a stored `since_id` (only what is new) and classifies each page in one
/// Redis round trip. It never likes the bot's own tweets, the human's tweets, retweets, or a tweet already liked,
/// and likes nothing while the filter has not learned both sides (the original's formula would then like
/// everything), nor anyone who opted out or is in `BLOCKED_ACCOUNTS`, nor anything while the person has paused
/// everything. Each like is logged with its reason.
///
/// It runs only while the liking policy is active. When the network refuses the likes endpoints (403 client-forbidden: the
/// app is not enrolled), the client stores the refusal and the favoriter stops reading the timeline; once a day it
/// checks with one call that reads and changes nothing (taking back a like the bot never made, of the human's
/// newest tweet) and starts afresh when X accepts it.
public struct Favoriter: Service {
    /// How the favoriter behaves.
    public struct Settings: Sendable {
        /// Time between polls of the home timeline. 5 minutes uses 3 of the 180 reads per 15 minutes X allows.
        public var pollInterval: TimeInterval
        /// Log what would be liked without liking (`--dry-run`).
        public var dryRun: Bool

        /// Settings.
        public init(pollInterval: TimeInterval = 300, dryRun: Bool = false) {
            self.pollInterval = pollInterval; self.dryRun = dryRun
        }
    }

    static let sinceIDKey = "home.since_id"
    private var cursor: SinceCursor { SinceCursor(state: state, key: Self.sinceIDKey) }

    let clock: any BotClock
    let likes: any LikeLog
    let state: any BotState
    let archive: any TweetArchive
    let policy: LikingPolicy
    let classifier: FavoriteClassifier
    let network: any MirrorNetwork
    let botUserID: String
    let humanUserID: String
    let settings: Settings
    let contact: ContactRules
    let control: OwnerControl
    let logger: Logger

    /// A favoriter for the bot `botUserID`, mirroring the human `humanUserID`, liking while `policy` is active, never
    /// an account `contact` leaves alone (by default: the opt-out list in `state`).
    public init(clock: any BotClock, likes: any LikeLog, state: any BotState, archive: any TweetArchive, policy: LikingPolicy, classifier: FavoriteClassifier,
                network: any MirrorNetwork, botUserID: String, humanUserID: String, settings: Settings = Settings(), contact: ContactRules? = nil,
                logger: Logger) {
        self.clock = clock; self.likes = likes; self.state = state; self.archive = archive; self.policy = policy; self.classifier = classifier; self.network = network
        self.botUserID = botUserID; self.humanUserID = humanUserID; self.settings = settings; self.logger = logger
        self.contact = contact ?? ContactRules(state: state); self.control = OwnerControl(state: state)
    }

    /// Polls and likes until cancelled or the group's graceful shutdown.
    public func run() async throws {
        let interval = Duration.seconds(settings.pollInterval)
        try await PollingLoop.run("Favoriter", on: network.name, clock: clock, logger: logger, interval: interval) { _ in
            try await round() ?? interval
        }
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
        guard let newest = try await archive.newestTweetID() else { return false }
        do {
            try await network.checkLikes(as: botUserID, on: String(newest), for: .liking)
        } catch let error as NetworkError where error.isRefusal {
            return false
        }
        try await cursor.forget()
        return true
    }

    static func duration(until date: Date, from now: Date) -> Duration {
        .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000) + 1)
    }

    /// One poll: the new tweets of the home timeline, classified page by page, the favorites liked.
    func pollOnce() async throws {
        guard case .after(let sinceID) = try await cursor.position() else {
            // First start: remember where the timeline stands; what came before is not liked.
            // Reposts count here: the newest post of any kind marks where the timeline stands.
            try await cursor.start(at: network.homeTimeline(of: botUserID, as: .bot, since: nil, maxPosts: 1, perPage: 1, includingReposts: true,
                                                            for: .liking))
            return
        }
        let pages = network.homeTimeline(of: botUserID, as: .bot, since: sinceID, maxPosts: nil, perPage: 100, includingReposts: false, for: .liking)
        try await cursor.readNew(pages, after: sinceID) { page in try await like(page.posts) }
    }

    /// Classifies a page's posts in one round trip and likes the favorites.
    func like(_ posts: [NetworkPost]) async throws {
        if let paused = try await control.current(), paused.pause == .everything {
            logger.debug("not liking \(posts.count) posts: the person paused everything")
            return
        }
        let leftAlone = try await contact.leftAlone()
        let candidates = posts.filter {
            !$0.isRepost && $0.authorID != botUserID && $0.authorID != humanUserID && !$0.authorAsksNoBots
                && !leftAlone.contains(id: $0.authorID, handle: $0.authorHandle)
        }
        guard !candidates.isEmpty else { return }
        let liked = try await likes.likedAmong(candidates.compactMap { Int64($0.id) })
        let fresh = candidates.filter { !liked.contains(Int64($0.id) ?? -1) }
        let verdicts = try await classifier.classify(fresh.map(FavoriteClassifier.Tweet.init))
        for (tweet, verdict) in zip(fresh, verdicts) where verdict.isFavorite {
            guard verdict.score.logRatio.isFinite else {
                logger.notice("not liking \(tweet.id): the filter has not learned both liked and not-liked tweets yet (run `mirror_bot train classifier`)")
                return
            }
            let who = "@" + (tweet.authorHandle ?? tweet.authorID ?? "?")
            let reasons = verdict.score.strongestContributions(limit: 3).towardFavorite.map(\.feature).joined(separator: ", ")
            let reason = String(format: "log ratio %.2f > %.2f", verdict.score.logRatio, Foundation.log(classifier.threshold)) + " (\(reasons))"
            if settings.dryRun {
                logger.info("dry run: would like \(tweet.id) by \(who): \(reason)")
                continue
            }
            do {
                try await network.like(tweet.id, as: botUserID, for: .liking)
                _ = try await likes.recordLike(tweetID: Int64(tweet.id) ?? 0, authorID: tweet.authorID.flatMap { Int64($0) },
                                             logRatio: verdict.score.logRatio, reason: reason, at: clock.now())
                logger.info("liked \(tweet.id) by \(who): \(reason)")
                DaemonMetrics.liked()
            } catch let error as NetworkError where error.isRefusal {
                throw error  // the whole round stops: the network refused liking
            } catch NetworkError.shed(let reason) {
                throw NetworkError.shed(reason)  // the budget shed liking for the day
            } catch let error as NetworkError {
                logger.warning("could not like \(tweet.id) by \(who): \(error)")
            }
        }
    }
}
