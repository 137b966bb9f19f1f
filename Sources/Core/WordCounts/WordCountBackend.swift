/// Where the favorite filter's word counts live: Redis (`RedisWordCounts`, the original's layout) or the embedded
/// SQLite file (`SQLiteWordCounts`), each in a module of its own. Both behave the same; each reads or learns a batch
/// in one round trip or one transaction, and says a store it cannot reach with `WordCountsUnavailable`.
public protocol WordCountBackend: Sendable {
    /// The counts for several posts at once (one entry per post, in order).
    func counts(forEach posts: [[String]]) async throws -> [FeatureCounts]
    /// Learns several posts, each with its category.
    func learn(batch: [(features: [String], category: Category)]) async throws
    /// Moves several posts from `normal` to `favorite`, never taking a count below zero.
    func moveToFavorite(batch: [[String]]) async throws
    /// Learns liked posts as favorites (moving them out of `normal`), each id at most once ever; how many were new.
    @discardableResult func learnFavoritesOnce(_ posts: [(id: String, features: [String])]) async throws -> Int
    /// Learns posts seen but not liked as `normal`, each id at most once within `LearnedMarkers.normalWeeks` (the
    /// markers of older ones are let go, so that they do not grow without end); how many were new.
    @discardableResult func learnNormalsOnce(_ posts: [(id: String, features: [String])]) async throws -> Int
    /// Lets go of the `normal` markers older than `LearnedMarkers.normalWeeks` that do not expire by themselves;
    /// how many were let go.
    @discardableResult func forgetOldNormalMarkers() async throws -> Int
    /// Takes one learned post back out of `category` (`mirror_bot forget`), never taking a count below zero. Its
    /// learned-id marker stays, so that it is not learned again.
    func unlearn(_ features: [String], from category: Category) async throws
    /// Whether a liked post was already learned by `learnFavoritesOnce`.
    func wasLearnedAsFavorite(_ id: String) async throws -> Bool
    /// Whether the one-time training `name` has run.
    func isTrained(_ name: String) async throws -> Bool
    /// Records that the one-time training `name` has run.
    func markTrained(_ name: String) async throws
    /// Deletes every count, learned id and training flag of this store; how many entries were deleted.
    @discardableResult func removeAll() async throws -> Int
}

extension WordCountBackend {
    /// The counts to classify one post with these features.
    public func counts(for features: [String]) async throws -> FeatureCounts { try await counts(forEach: [features])[0] }
    /// Learns one post with these features as `category`.
    public func learn(_ features: [String], as category: Category) async throws { try await learn(batch: [(features, category)]) }
    /// Learns a post as `favorite` that was first learned as `normal`.
    public func moveToFavorite(_ features: [String]) async throws { try await moveToFavorite(batch: [features]) }
}
