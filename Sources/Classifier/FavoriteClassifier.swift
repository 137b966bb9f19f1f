public import Foundation
import Synchronization
public import Tokenizer
public import WordCounts

/// Decides which tweets the human would like, and learns from the ones they did and did not, with the original
/// bot's naive Bayes filter over the counts in Redis. Features of a tweet: the tokenizer's nouns plus the author
/// as `@username` when known. Classifying or learning a batch is one Redis round trip.
public struct FavoriteClassifier: Sendable {
    /// A tweet as the classifier sees it.
    public struct Tweet: Sendable, Equatable {
        /// The text (HTML entities and all; the tokenizer normalises it).
        public var text: String
        /// The author's @handle without `@`, when known (archive exports have none for likes).
        public var authorUsername: String?

        /// A tweet from its parts.
        public init(text: String, authorUsername: String? = nil) {
            self.text = text
            self.authorUsername = authorUsername
        }
    }

    /// The decision for one tweet.
    public struct Verdict: Sendable, Equatable {
        /// Whether to like it.
        public var isFavorite: Bool
        /// The score behind the decision.
        public var score: FavoriteScore
        /// The features it was judged by.
        public var features: [String]
    }

    /// Where the counts are.
    public let store: any WordCountBackend
    /// How texts become nouns.
    public let tokenizer: TweetTokenizer
    /// Where learned tweets are recorded (the archive's training examples), if anywhere.
    public let examples: (any TrainingExampleLog)?
    /// The model and threshold, shared by every copy of this classifier, so a recalibration reaches them all.
    private let decision: Decision

    /// Like when score(favorite) / score(normal) exceeds this (`FAVORITE_RATE_THRESHOLD`, or the calibrated value).
    public var threshold: Double { decision.state.withLock { $0.threshold } }
    /// The formula (`CLASSIFIER`, or the calibrated choice).
    public var model: ClassifierModel { decision.state.withLock { $0.model } }

    /// A classifier over `store`'s counts; tweets it learns are also recorded in `examples`.
    public init(store: any WordCountBackend, tokenizer: TweetTokenizer, threshold: Double, model: ClassifierModel = .original,
                examples: (any TrainingExampleLog)? = nil) {
        self.store = store
        self.tokenizer = tokenizer
        self.examples = examples
        self.decision = Decision(model: model, threshold: threshold)
    }

    /// Decides from now on with `model` and `threshold` (a calibration's choice), in this classifier and its copies.
    public func decide(with model: ClassifierModel, threshold: Double) {
        decision.state.withLock { $0 = (model, threshold) }
    }

    private final class Decision: Sendable {
        let state: Mutex<(model: ClassifierModel, threshold: Double)>
        init(model: ClassifierModel, threshold: Double) { state = Mutex((model, threshold)) }
    }

    /// The features of a tweet: its distinct nouns, then `@username` when the author is known.
    public func features(of tweet: Tweet) throws -> [String] {
        var features = try tokenizer.nouns(in: tweet.text)
        if let username = tweet.authorUsername, !username.isEmpty {
            let author = "@" + username
            if !features.contains(author) { features.append(author) }
        }
        return features
    }

    /// Decides one tweet, reading its counts in one round trip.
    public func classify(_ tweet: Tweet) async throws -> Verdict {
        try await classify([tweet])[0]
    }

    /// Decides several tweets, reading all their counts in one round trip; verdicts come in the same order.
    public func classify(_ tweets: [Tweet]) async throws -> [Verdict] {
        guard !tweets.isEmpty else { return [] }
        let featureSets = try tweets.map(features(of:))
        let counts = try await store.counts(forEach: featureSets)
        let (model, threshold) = decision.state.withLock { ($0.model, $0.threshold) }
        return zip(featureSets, counts).map { features, counts in
            let score = model.score(features: features, counts: counts)
            return Verdict(isFavorite: score.isFavorite(threshold: threshold), score: score, features: features)
        }
    }

    /// Learns tweets with ids as `category`, each id at most once ever (re-reading a timeline or re-importing
    /// changes nothing), in one round trip; then records them as training examples from `source`. Returns how many
    /// were new to the counts.
    @discardableResult
    public func learnOnce(_ tweets: [(id: String, tweet: Tweet)], as category: Category, source: ExampleSource, at date: Date = Date()) async throws -> Int {
        guard !tweets.isEmpty else { return 0 }
        let featured = try tweets.map { (id: $0.id, features: try features(of: $0.tweet)) }
        let learned = switch category {
        case .favorite: try await store.learnFavoritesOnce(featured)
        case .normal: try await store.learnNormalsOnce(featured)
        }
        // After the counts: a crash in between leaves an example unrecorded, never a recorded one unlearned.
        try await examples?.record(tweets, as: category, source: source, at: date)
        return learned
    }

    /// Learns tweets as `category` in one round trip. Learning a favorite also takes it out of `normal`
    /// (never below zero): the human saw it on their timeline, where it was learned as normal first.
    public func learn(_ tweets: [Tweet], as category: Category) async throws {
        guard !tweets.isEmpty else { return }
        let featureSets = try tweets.map(features(of:))
        switch category {
        case .favorite: try await store.moveToFavorite(batch: featureSets)
        case .normal: try await store.learn(batch: featureSets.map { (features: $0, category: .normal) })
        }
    }
}
