public import BotClock
public import Classifier
import Consent
public import Foundation
public import Logging
public import ServiceLifecycle
public import SocialNetwork
public import Stores
public import Training

/// Keeps learning from the human: their new posts into the archive, their home timeline as `normal`, their new
/// likes as `favorite` (moving them out of `normal`). Every read asks only for what is new, and every post is
/// learned at most once. The timeline and the likes serve liking only: while the liking policy is not active they
/// are not read (and the like threshold is not recalibrated). Every read is budgeted as learning, the first work
/// the day's budget sheds.
public struct Learner: Service {
    /// How often each source is read. The defaults use a handful of the calls X allows per 15 minutes.
    public struct Settings: Sendable {
        /// Time between polls (posts, timeline and likes are read in one poll).
        public var pollInterval: TimeInterval
        /// Likes read per page (the likes endpoint has no `since_id`: the first page is read, and the next only
        /// while every like on it is new). 5 is the API's smallest page.
        public var likesPerPage: Int
        /// Likes are read every this many polls: every read of them is billed even when nothing is new.
        public var likesEveryPolls: Int

        /// Settings: posts and timeline every 15 minutes, likes every hour, 5 a page.
        public init(pollInterval: TimeInterval = 900, likesPerPage: Int = 5, likesEveryPolls: Int = 4) {
            self.pollInterval = pollInterval
            self.likesPerPage = max(5, min(100, likesPerPage))
            self.likesEveryPolls = max(1, likesEveryPolls)
        }
    }

    static let tweetsSinceIDKey = "human.tweets.since_id"
    static let homeSinceIDKey = "human.home.since_id"

    let clock: any BotClock
    let state: any BotState
    let archive: any PostArchive
    let classifier: FavoriteClassifier
    let network: any MirrorNetwork
    let liking: LikingPolicy
    let humanUserID: String
    let settings: Settings
    let calibrator: Calibrator?
    let personLikes: (any LikeLog)?
    let logger: Logger

    /// How often the like threshold is calibrated again on the examples learned since (bot time).
    static let calibrationInterval: TimeInterval = 86_400

    /// A learner for the human `humanUserID`; with a `calibrator` (`FAVORITE_RATE_THRESHOLD=auto`), it calibrates the
    /// like threshold again once a day as examples accumulate, and the classifier decides with the new choice; the
    /// person's new likes and their times go to `personLikes` (what the day's likes are planned from).
    public init(
        clock: any BotClock, state: any BotState, archive: any PostArchive, classifier: FavoriteClassifier, network: any MirrorNetwork,
        liking: LikingPolicy, humanUserID: String, settings: Settings = Settings(), calibrator: Calibrator? = nil,
        personLikes: (any LikeLog)? = nil, logger: Logger
    ) {
        self.clock = clock
        self.state = state
        self.archive = archive
        self.classifier = classifier
        self.network = network
        self.liking = liking
        self.humanUserID = humanUserID
        self.settings = settings
        self.calibrator = calibrator
        self.personLikes = personLikes
        self.logger = logger
    }

    /// Polls until cancelled or the group's graceful shutdown.
    public func run() async throws {
        try await PollingLoop.run("Learner", on: network.name, clock: clock, logger: logger, interval: .seconds(settings.pollInterval)) { number in
            try await pollOnce(includingLikes: number % settings.likesEveryPolls == 0)
            return .seconds(settings.pollInterval)
        }
    }

    /// Reads the human's new posts, new timeline posts and (when asked) new likes, and learns them.
    func pollOnce(includingLikes: Bool = true) async throws {
        // Nothing more of the person is learned once they ended the mirror, or while their sign-in is lapsed.
        guard try await !OwnerControl(state: state).waitsForSignIn() else { return }
        try await learnNewPosts()
        guard liking.isActive else { return }
        try await learnTimeline()
        if includingLikes { try await learnLikes() }
        try await recalibrateIfDue()
    }

    /// Calibrates the like threshold again when the stored calibration is a day old (or missing).
    private func recalibrateIfDue() async throws {
        guard let calibrator else { return }
        let now = clock.now()
        if let stored = try await calibrator.stored(), now.timeIntervalSince(stored.calibratedAt) < Self.calibrationInterval { return }
        let calibration = try await calibrator.calibrate(at: now)
        classifier.decide(by: calibration.result)
        logger.notice("recalibrated the like \(calibration.result.summary)")
    }

    private func learnNewPosts() async throws {
        let cursor = SinceCursor(state: state, key: Self.tweetsSinceIDKey)
        var sinceID: String?
        switch try await cursor.position() {
        case .after(let id): sinceID = id
        case .notStarted: sinceID = try await archive.newestPostID()?.text
        }
        var stored = 0
        try await cursor.readNew(network.posts(of: humanUserID, since: sinceID, maxPosts: 3_200, for: .learning), after: sinceID) { page in
            stored += try await archive.insert(page.posts.compactMap(ArchivedPost.init))
        }
        if stored > 0 { logger.info("archived \(stored) new posts of the human") }
    }

    private func learnTimeline() async throws {
        let cursor = SinceCursor(state: state, key: Self.homeSinceIDKey)
        guard case .after(let sinceID) = try await cursor.position() else {
            // First start: what the timeline held before was learned by `train classifier`, if at all.
            try await cursor.start(
                at: network.homeTimeline(
                    of: humanUserID, as: .human, since: nil, maxPosts: 1, perPage: 1,
                    includingReposts: true, for: .learning))
            return
        }
        var learned = 0
        let pages = network.homeTimeline(
            of: humanUserID, as: .human, since: sinceID, maxPosts: 800, perPage: 100, includingReposts: false,
            for: .learning)
        try await cursor.readNew(pages, after: sinceID) { page in
            let seen = page.posts.filter { !$0.isRepost && $0.authorID != humanUserID }
            learned += try await classifier.learnOnce(
                seen.map { ($0.id, FavoriteClassifier.Post($0)) }, as: .normal, source: .timeline,
                at: clock.now())
        }
        if learned > 0 { logger.info("learned \(learned) timeline posts of the human as not liked") }
    }

    private func learnLikes() async throws {
        var learned = 0
        var pages = 0
        for try await page in network.likes(of: humanUserID, perPage: settings.likesPerPage, maxPosts: nil, for: .learning) {
            pages += 1
            let likes = page.posts.filter { !$0.isRepost }
            let new = try await classifier.learnOnce(
                likes.map { ($0.id, FavoriteClassifier.Post($0)) }, as: .favorite, source: .likes,
                at: clock.now())
            try await personLikes?.recordPersonLikes(page.posts.compactMap(PersonLike.init(liked:)))
            learned += new
            // Likes come most recent first: a page with a like learned before means the rest are known.
            if new < likes.count || pages >= 8 { break }
        }
        if learned > 0 { logger.info("learned \(learned) new likes of the human") }
    }
}
