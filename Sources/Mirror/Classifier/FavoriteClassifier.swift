public import Foundation
public import Logging
import Synchronization
public import Tokenizer
public import WordCounts

/// Decides which posts the human would like, and learns from the ones they did and did not, with the original
/// bot's naive Bayes filter over the counts in Redis. Features of a post: the tokenizer's nouns plus the author
/// as `@username` when known. Classifying or learning a batch is one Redis round trip. A text the tokenizer refuses
/// skips that one post, with a log line saying why: it is not liked and not learned.
public struct FavoriteClassifier: Sendable {
    /// A post as the classifier sees it.
    public struct Post: Sendable, Equatable {
        /// The text (HTML entities and all; the tokenizer normalises it).
        public var text: String
        /// The author's @handle without `@`, when known (archive exports have none for likes).
        public var authorUsername: String?

        /// A post from its parts.
        public init(text: String, authorUsername: String? = nil) {
            self.text = text
            self.authorUsername = authorUsername
        }
    }

    /// The decision for one post.
    public struct Verdict: Sendable, Equatable {
        /// Whether to like it.
        public var isFavorite: Bool
        /// Whether to keep it for the day's like slots, which like the best kept: above the keeping bar (at most the
        /// threshold, so every favorite is kept).
        public var isCandidate: Bool
        /// The score behind the decision.
        public var score: FavoriteScore
        /// The features it was judged by.
        public var features: [String]
        /// Why it was not judged (the tokenizer refused its text); it is then not a favorite.
        public var refusal: String?
    }

    /// Where the counts are.
    public let store: any WordCountBackend
    /// How texts become nouns.
    public let tokenizer: any NounTokenizer
    /// Where learned posts are recorded (the archive's training examples), if anywhere.
    public let examples: (any TrainingExampleLog)?
    /// The model and threshold, shared by every copy of this classifier, so a recalibration reaches them all.
    private let decision: Decision
    private let logger: Logger

    /// Like when score(favorite) / score(normal) exceeds this (`FAVORITE_RATE_THRESHOLD`, or the calibrated value).
    public var threshold: Double { decision.state.withLock { $0.threshold } }
    /// Posts scoring above this are kept for the like slots (the calibrated keeping bar; else the threshold).
    public var keepingThreshold: Double { decision.state.withLock { $0.keepingThreshold } }
    /// The formula (`CLASSIFIER`, or the calibrated choice).
    public var model: ClassifierModel { decision.state.withLock { $0.model } }

    /// A classifier over `store`'s counts; posts it learns are also recorded in `examples`.
    public init(
        store: any WordCountBackend, tokenizer: any NounTokenizer, threshold: Double, model: ClassifierModel = .original,
        examples: (any TrainingExampleLog)? = nil, logger: Logger = Logger(label: "mirror_bot", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.store = store
        self.tokenizer = tokenizer
        self.examples = examples
        self.decision = Decision(model: model, threshold: threshold)
        self.logger = logger
    }

    /// Decides from now on with `model` and `threshold`, keeping posts above `keepingThreshold` for the like slots
    /// (nil: the threshold; never above it), in this classifier and its copies.
    public func decide(with model: ClassifierModel, threshold: Double, keepingThreshold: Double? = nil) {
        decision.state.withLock { $0 = (model, threshold, min(keepingThreshold ?? threshold, threshold)) }
    }

    /// Decides from now on as `calibration` chose, in this classifier and its copies.
    public func decide(by calibration: ThresholdCalibration.Result) {
        decide(with: calibration.model, threshold: calibration.threshold, keepingThreshold: calibration.keepingThreshold)
    }

    private final class Decision: Sendable {
        let state: Mutex<(model: ClassifierModel, threshold: Double, keepingThreshold: Double)>
        init(model: ClassifierModel, threshold: Double) { state = Mutex((model, threshold, threshold)) }
    }

    /// The features of a post: its distinct nouns, then `@username` when the author is known.
    public func features(of post: Post) throws -> [String] {
        var features = try tokenizer.nouns(in: post.text)
        if let username = post.authorUsername, !username.isEmpty {
            let author = "@" + username
            if !features.contains(author) { features.append(author) }
        }
        return features
    }

    /// Decides one post, reading its counts in one round trip.
    public func classify(_ post: Post) async throws -> Verdict {
        try await classify([post])[0]
    }

    /// Decides several posts, reading all their counts in one round trip; verdicts come in the same order. A post
    /// whose text the tokenizer refuses gets a verdict that is not a favorite, with the reason.
    public func classify(_ posts: [Post]) async throws -> [Verdict] {
        try await decide(await prepare(posts))
    }

    /// A batch's features, found before its counts are read: a caller with many batches finds the next batch's while
    /// the word counts answer for this one (`mirror_bot classify`).
    public struct PreparedBatch: Sendable {
        /// Each post's features, or why the tokenizer refused its text.
        let judged: [(features: [String]?, refusal: String?)]
        /// How many posts.
        public var count: Int { judged.count }
    }

    /// The features of each of `posts`, in order, found on up to `concurrency` tasks at once (MeCab lends each task a
    /// tagger of its own); a small batch on the caller's task.
    public func prepare(_ posts: [Post], concurrency: Int = ProcessInfo.processInfo.activeProcessorCount) async -> PreparedBatch {
        let chunks = max(1, min(concurrency, posts.count / 64))
        guard chunks > 1 else { return PreparedBatch(judged: posts.map(judgeableFeatures(of:))) }
        let size = (posts.count + chunks - 1) / chunks
        let classifier = self
        let parts = await withTaskGroup(of: (Int, [(features: [String]?, refusal: String?)]).self) { group in
            for start in stride(from: 0, to: posts.count, by: size) {
                let chunk = Array(posts[start..<min(start + size, posts.count)])
                group.addTask { (start, chunk.map(classifier.judgeableFeatures(of:))) }
            }
            var parts: [(Int, [(features: [String]?, refusal: String?)])] = []
            for await part in group { parts.append(part) }
            return parts
        }
        return PreparedBatch(judged: parts.sorted { $0.0 < $1.0 }.flatMap(\.1))
    }

    /// Decides a prepared batch, reading all its counts in one round trip; verdicts in the batch's order.
    public func decide(_ prepared: PreparedBatch) async throws -> [Verdict] {
        let judged = prepared.judged
        guard !judged.isEmpty else { return [] }
        let counts = try await store.counts(forEach: judged.map { $0.features ?? [] })
        let (model, threshold, keepingThreshold) = decision.state.withLock { ($0.model, $0.threshold, $0.keepingThreshold) }
        return zip(judged, counts).map { judged, counts in
            let features = judged.features ?? []
            let score = model.score(features: features, counts: counts)
            return Verdict(
                isFavorite: judged.refusal == nil && score.isFavorite(threshold: threshold),
                isCandidate: judged.refusal == nil && score.isFavorite(threshold: keepingThreshold), score: score, features: features,
                refusal: judged.refusal)
        }
    }

    /// The features of a post, or why the tokenizer refused its text (logged).
    private func judgeableFeatures(of post: Post) -> (features: [String]?, refusal: String?) {
        do {
            return (try features(of: post), nil)
        } catch {
            let reason = "the tokenizer refused its text (\(error))"
            logger.notice("skipped a post\(post.authorUsername.map { " by @" + $0 } ?? ""): \(reason)")
            return (nil, reason)
        }
    }

    /// Learns posts with ids as `category`, each id at most once ever (re-reading a timeline or re-importing
    /// changes nothing), in one round trip; then records them as training examples from `source`. Returns how many
    /// were new to the counts.
    @discardableResult
    public func learnOnce(_ posts: [(id: String, post: Post)], as category: Category, source: ExampleSource, at date: Date = Date()) async throws
        -> Int
    {
        // A text the tokenizer refuses is not learned (nor recorded as an example); the rest are.
        let judged = posts.map { (post: $0, features: judgeableFeatures(of: $0.post).features) }
        let featured = judged.compactMap { item in item.features.map { (id: item.post.id, features: $0) } }
        guard !featured.isEmpty else { return 0 }
        let posts = judged.filter { $0.features != nil }.map(\.post)
        let learned =
            switch category {
            case .favorite: try await store.learnFavoritesOnce(featured)
            case .normal: try await store.learnNormalsOnce(featured)
            }
        // After the counts: a crash in between leaves an example unrecorded, never a recorded one unlearned.
        try await examples?.record(posts, as: category, source: source, at: date)
        return learned
    }

    /// Takes a learned post back out of `category` (`mirror_bot forget`), never below zero.
    public func unlearn(_ post: Post, from category: Category) async throws {
        guard let features = judgeableFeatures(of: post).features else { return }
        try await store.unlearn(features, from: category)
    }

    /// Learns posts as `category` in one round trip. Learning a favorite also takes it out of `normal`
    /// (never below zero): the human saw it on their timeline, where it was learned as normal first.
    public func learn(_ posts: [Post], as category: Category) async throws {
        let featureSets = posts.compactMap { judgeableFeatures(of: $0).features }
        guard !featureSets.isEmpty else { return }
        switch category {
        case .favorite: try await store.moveToFavorite(batch: featureSets)
        case .normal: try await store.learn(batch: featureSets.map { (features: $0, category: .normal) })
        }
    }
}
