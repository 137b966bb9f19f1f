import BotCore
public import Classifier
import Foundation
public import Logging
public import SocialNetwork
public import Stores
import WordCounts

/// The one-time trainings the post-deploy script runs: the archive from the human's recent posts, the favorite
/// filter from their likes and their home timeline. Each sets a `trained:<name>` flag and does nothing the next
/// time unless forced, so re-running the script costs no API calls.
public struct Trainer: Sendable {
    /// What a training did.
    public struct Report: Sendable, Equatable {
        /// Whether it was skipped because it had run before.
        public var skipped: Bool
        /// Pages fetched.
        public var pages = 0
        /// Posts read from the API.
        public var postsRead = 0
        /// Reposts left out.
        public var retweetsSkipped = 0
        /// Posts newly archived (scheduler) or posts learned (classifier, favorites then normal).
        public var stored = 0
        /// Posts learned as favorite (classifier).
        public var favorites = 0
        /// Posts learned as normal (classifier).
        public var normals = 0
    }

    /// Most of the human's posts the timeline endpoint returns.
    public static let schedulerPostLimit = 3_200
    /// Likes and home-timeline posts the classifier learns from, as the original.
    public static let classifierPostLimit = 800

    /// The network, read as the person.
    public let network: any MirrorNetwork
    /// Where the human's posts go.
    public let archive: any PostArchive
    /// What learns the likes.
    public let classifier: FavoriteClassifier
    /// Where the person's likes and their times go (what the day's likes are planned from); nil keeps none.
    public let personLikes: (any LikeLog)?
    /// Progress lines for a terminal ("page 3: ...").
    public let progress: @Sendable (String) -> Void
    private let logger: Logger

    /// A trainer; `progress` receives one line per page.
    public init(
        network: any MirrorNetwork, archive: any PostArchive, classifier: FavoriteClassifier, personLikes: (any LikeLog)? = nil, logger: Logger,
        progress: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.network = network
        self.personLikes = personLikes
        self.archive = archive
        self.classifier = classifier
        self.logger = logger
        self.progress = progress
    }

    private var store: any WordCountBackend { classifier.store }

    /// Whether a training would run: not when it ran before (its `trained:<name>` flag is set), unless forced.
    public func wouldRun(_ name: String, force: Bool) async throws -> Bool {
        if force { return true }
        return try await !store.isTrained(name)
    }

    /// `train scheduler`: the human's most recent posts (up to `maxPosts`, at most 3,200, reposts excluded, 100 per
    /// page) into the archive, replies with their `reply_user_id`; then sets `trained:scheduler`.
    public func trainScheduler(force: Bool, maxPosts: Int = Trainer.schedulerPostLimit) async throws -> Report {
        if !force, try await store.isTrained("scheduler") { return Report(skipped: true) }
        let human = try await authenticatedUser()
        var report = Report(skipped: false)
        for try await page in network.posts(of: human.id, since: nil, maxPosts: min(maxPosts, Self.schedulerPostLimit), for: .posts) {
            report.pages += 1
            report.postsRead += page.posts.count
            report.retweetsSkipped += page.posts.filter(\.isRepost).count
            report.stored += try await archive.insert(page.posts.compactMap(ArchivedPost.init))
            progress("page \(report.pages): \(report.postsRead) posts read, \(report.stored) new in the archive")
        }
        try await store.markTrained("scheduler")
        return report
    }

    /// `train classifier`: 800 of the human's likes learned as favorite, then 800 home-timeline posts that are
    /// not among them learned as normal; then sets `trained:classifier`.
    public func trainClassifier(force: Bool) async throws -> Report {
        if !force, try await store.isTrained("classifier") { return Report(skipped: true) }
        let human = try await authenticatedUser()
        var report = Report(skipped: false)
        var likedIDs = Set<String>()
        for try await page in network.likes(of: human.id, perPage: 100, maxPosts: Self.classifierPostLimit, for: .posts) {
            report.pages += 1
            report.postsRead += page.posts.count
            let liked = page.posts.filter { !$0.isRepost }
            likedIDs.formUnion(liked.map(\.id))
            report.favorites += try await classifier.learnOnce(liked.map { ($0.id, FavoriteClassifier.Post($0)) }, as: .favorite, source: .likes)
            try await personLikes?.recordPersonLikes(page.posts.compactMap(PersonLike.init(liked:)))
            progress("likes page \(report.pages): \(report.favorites) learned as favorite")
        }
        var timelinePages = 0
        for try await page in network.homeTimeline(
            of: human.id, as: .human, since: nil, maxPosts: Self.classifierPostLimit, perPage: 100,
            includingReposts: true, for: .posts)
        {
            report.pages += 1
            timelinePages += 1
            report.postsRead += page.posts.count
            // Reposts are never liked by the bot, so they are not learned from; the human's own posts neither.
            let normal = page.posts.filter { !$0.isRepost && !likedIDs.contains($0.id) && $0.authorID != human.id }
            report.retweetsSkipped += page.posts.filter(\.isRepost).count
            report.normals += try await classifier.learnOnce(normal.map { ($0.id, FavoriteClassifier.Post($0)) }, as: .normal, source: .timeline)
            // Timeline posts the human liked are already counted (from the likes): they are only recorded as liked
            // timeline posts, for the share of their timeline the human likes, which the threshold calibration aims at.
            let likedOnTimeline = page.posts.filter { !$0.isRepost && likedIDs.contains($0.id) && $0.authorID != human.id }
            if !likedOnTimeline.isEmpty {
                try await classifier.examples?.record(
                    likedOnTimeline.map { ($0.id, FavoriteClassifier.Post($0)) },
                    as: .favorite, source: .timeline, at: Date())
            }
            progress("timeline page \(timelinePages): \(report.normals) learned as normal")
        }
        report.stored = report.favorites + report.normals
        try await store.markTrained("classifier")
        return report
    }

    /// `train clear`: empties the archive and this bot's word counts and flags. Returns (posts, keys) deleted.
    public func clear() async throws -> (posts: Int, keys: Int) {
        let posts = try await archive.count()
        try await archive.removeAll()
        let keys = try await store.removeAll()
        return (posts, keys)
    }

    private func authenticatedUser() async throws -> NetworkUser { try await network.whoAmI(.human) }

}
