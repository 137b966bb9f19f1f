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
    /// Like when score(favorite) / score(normal) exceeds this (`FAVORITE_RATE_THRESHOLD`).
    public let threshold: Double

    /// A classifier over `store`'s counts.
    public init(store: any WordCountBackend, tokenizer: TweetTokenizer, threshold: Double) {
        self.store = store
        self.tokenizer = tokenizer
        self.threshold = threshold
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
        return zip(featureSets, counts).map { features, counts in
            let score = FavoriteScore(features: features, counts: counts)
            return Verdict(isFavorite: score.isFavorite(threshold: threshold), score: score, features: features)
        }
    }

    /// Learns tweets with ids as `category`, each id at most once ever (re-reading a timeline or re-importing
    /// changes nothing), in one round trip. Returns how many were new.
    @discardableResult
    public func learnOnce(_ tweets: [(id: String, tweet: Tweet)], as category: Category) async throws -> Int {
        guard !tweets.isEmpty else { return 0 }
        let featured = try tweets.map { (id: $0.id, features: try features(of: $0.tweet)) }
        switch category {
        case .favorite: return try await store.learnFavoritesOnce(featured)
        case .normal: return try await store.learnNormalsOnce(featured)
        }
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
