public import Foundation
import Synchronization
public import WordCounts

/// The favorite filter's word counts in memory, under the rules of the Redis and SQLite stores: counts never below
/// zero, a liked post learned once ever, a seen post once within `LearnedMarkers.normalWeeks`.
public final class InMemoryWordCounts: WordCountBackend, Sendable {
    struct Counts {
        var features: [String: [Category: Int]] = [:]
        var categories: [Category: Int] = [:]
        /// Learned ids by category, with the week each was learned in.
        var learned: [Category: [String: Int]] = [:]
        var trained: Set<String> = []
    }

    private let counts: Mutex<Counts>
    private let now: @Sendable () -> Date
    private let shared: InMemoryWordCounts?

    /// Empty counts; markers are filed under the week of `now()`.
    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        counts = Mutex(Counts())
        self.now = now
        shared = nil
    }

    private init(sharing store: InMemoryWordCounts, now: @escaping @Sendable () -> Date) {
        counts = Mutex(Counts())
        self.now = now
        shared = store
    }

    /// The same counts, filing markers under the week of another clock's `now()`.
    public func with(now: @escaping @Sendable () -> Date) -> InMemoryWordCounts { InMemoryWordCounts(sharing: shared ?? self, now: now) }

    private func withCounts<Result: Sendable>(_ body: (inout Counts) -> Result) -> Result {
        if let shared { return shared.counts.withLock { body(&$0) } }
        return counts.withLock { body(&$0) }
    }

    private static func distinct(_ features: [String]) -> [String] {
        var seen = Set<String>()
        return features.filter { seen.insert($0).inserted }
    }

    public func counts(forEach posts: [[String]]) async throws -> [FeatureCounts] {
        withCounts { counts in
            let totals: [Category: Int] = [.favorite: counts.categories[.favorite] ?? 0, .normal: counts.categories[.normal] ?? 0]
            return posts.map { features in
                var known: [String: [Category: Int]] = [:]
                for feature in Self.distinct(features) {
                    known[feature] = [.favorite: counts.features[feature]?[.favorite] ?? 0, .normal: counts.features[feature]?[.normal] ?? 0]
                }
                return FeatureCounts(features: known, categories: totals)
            }
        }
    }

    private static func add(_ features: [String], to category: Category, in counts: inout Counts) {
        for feature in distinct(features) { counts.features[feature, default: [:]][category, default: 0] += 1 }
        counts.categories[category, default: 0] += 1
    }

    private static func moveToFavorite(_ features: [String], in counts: inout Counts) {
        add(features, to: .favorite, in: &counts)
        for feature in distinct(features) {
            let normal = counts.features[feature]?[.normal] ?? 0
            counts.features[feature]?[.normal] = max(0, normal - 1)
        }
        counts.categories[.normal] = max(0, (counts.categories[.normal] ?? 0) - 1)
    }

    public func learn(batch: [(features: [String], category: Category)]) async throws {
        withCounts { counts in for (features, category) in batch { Self.add(features, to: category, in: &counts) } }
    }

    public func moveToFavorite(batch: [[String]]) async throws {
        withCounts { counts in for features in batch { Self.moveToFavorite(features, in: &counts) } }
    }

    public func learnFavoritesOnce(_ posts: [(id: String, features: [String])]) async throws -> Int {
        let week = LearnedMarkers.week(of: now())
        return withCounts { counts in
            var learned = 0
            for (id, features) in posts where counts.learned[.favorite, default: [:]][id] == nil {
                counts.learned[.favorite, default: [:]][id] = week
                Self.moveToFavorite(features, in: &counts)
                learned += 1
            }
            return learned
        }
    }

    public func learnNormalsOnce(_ posts: [(id: String, features: [String])]) async throws -> Int {
        let week = LearnedMarkers.week(of: now())
        return withCounts { counts in
            var learned = 0
            for (id, features) in posts where counts.learned[.normal, default: [:]][id] == nil {
                counts.learned[.normal, default: [:]][id] = week
                Self.add(features, to: .normal, in: &counts)
                learned += 1
            }
            return learned
        }
    }

    public func forgetOldNormalMarkers() async throws -> Int {
        let oldest = LearnedMarkers.week(of: now()) - LearnedMarkers.normalWeeks + 1
        return withCounts { counts in
            let old = (counts.learned[.normal] ?? [:]).filter { $0.value < oldest }.map(\.key)
            for id in old { counts.learned[.normal]?[id] = nil }
            return old.count
        }
    }

    public func unlearn(_ features: [String], from category: Category) async throws {
        withCounts { counts in
            for feature in Self.distinct(features) {
                guard let count = counts.features[feature]?[category] else { continue }
                counts.features[feature]?[category] = max(0, count - 1)
            }
            counts.categories[category] = max(0, (counts.categories[category] ?? 0) - 1)
        }
    }

    public func wasLearnedAsFavorite(_ id: String) async throws -> Bool { withCounts { $0.learned[.favorite]?[id] != nil } }
    public func isTrained(_ name: String) async throws -> Bool { withCounts { $0.trained.contains(name) } }
    public func markTrained(_ name: String) async throws { _ = withCounts { $0.trained.insert(name) } }

    public func removeAll() async throws -> Int {
        withCounts { counts in
            let removed =
                counts.features.values.map(\.count).reduce(0, +) + counts.categories.count
                + counts.learned.values.map(\.count).reduce(0, +) + counts.trained.count
            counts = Counts()
            return removed
        }
    }
}
