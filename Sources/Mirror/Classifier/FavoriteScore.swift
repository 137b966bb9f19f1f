import Foundation
public import WordCounts

/// The original bot's naive Bayes decision for one post, computed with logarithms.
///
/// The original (see shared/MISSION.md): for each feature, n = its count over both categories and
/// p = count(feature, category) / count(category); its weighted probability is (0.1 * 5 + n * p) / (n + 5).
/// A category's score is the product of the weighted probabilities times count(category) / total. A post is a
/// favorite when score(favorite) / score(normal) exceeds the threshold. Products of many probabilities underflow
/// to 0 on long texts; sums of logarithms do not, and give the same decisions.
public struct FavoriteScore: Sendable, Equatable {
    /// How one feature pushes the decision.
    public struct Contribution: Sendable, Equatable {
        /// The feature (a noun, or `@username`).
        public var feature: String
        /// log(weighted probability in favorite) − log(weighted probability in normal): positive pushes toward a like.
        public var logRatio: Double
    }

    /// log score(favorite).
    public var logFavorite: Double
    /// log score(normal).
    public var logNormal: Double
    /// Each feature's push, in the order the features were given.
    public var contributions: [Contribution]

    /// log(score(favorite) / score(normal)); +∞ when nothing normal was ever learned, NaN when nothing was.
    public var logRatio: Double { logFavorite - logNormal }

    /// Whether the ratio exceeds `threshold` (NaN, from an untrained filter, is never a favorite, as in the original).
    public func isFavorite(threshold: Double) -> Bool { logRatio > Foundation.log(threshold) }

    /// A score from its parts (the models compute them).
    init(logFavorite: Double, logNormal: Double, contributions: [Contribution]) {
        self.logFavorite = logFavorite
        self.logNormal = logNormal
        self.contributions = contributions
    }

    /// The original's assumed probability of a feature never seen, and its weight in sightings.
    static let assumedProbability = 0.1
    static let assumedWeight = 5.0

    /// The score of a post with `features` (distinct) given the counts read for them.
    public init(features: [String], counts: FeatureCounts) {
        let favoriteTotal = Double(counts.count(of: .favorite))
        let normalTotal = Double(counts.count(of: .normal))
        let total = favoriteTotal + normalTotal
        // 0 / 0 is NaN, as in the original: an untrained filter likes nothing.
        var logFavorite = Foundation.log(total > 0 ? favoriteTotal / total : .nan)
        var logNormal = Foundation.log(total > 0 ? normalTotal / total : .nan)
        var contributions: [Contribution] = []
        contributions.reserveCapacity(features.count)
        for feature in features {
            let inFavorite = Double(counts.count(of: feature, in: .favorite))
            let inNormal = Double(counts.count(of: feature, in: .normal))
            let favorite = Self.weightedProbability(count: inFavorite, categoryTotal: favoriteTotal, sightings: inFavorite + inNormal)
            let normal = Self.weightedProbability(count: inNormal, categoryTotal: normalTotal, sightings: inFavorite + inNormal)
            let logFavoriteFeature = Foundation.log(favorite)
            let logNormalFeature = Foundation.log(normal)
            logFavorite += logFavoriteFeature
            logNormal += logNormalFeature
            contributions.append(Contribution(feature: feature, logRatio: logFavoriteFeature - logNormalFeature))
        }
        self.logFavorite = logFavorite
        self.logNormal = logNormal
        self.contributions = contributions
    }

    /// (0.1 * 5 + n * p) / (n + 5), with p = count / categoryTotal (0 when the category is empty). Always > 0.
    static func weightedProbability(count: Double, categoryTotal: Double, sightings: Double) -> Double {
        let basic = categoryTotal > 0 ? count / categoryTotal : 0
        return (assumedProbability * assumedWeight + sightings * basic) / (sightings + assumedWeight)
    }

    /// The features pushing most toward a like (first) and toward no like (second), at most `limit` each.
    public func strongestContributions(limit: Int = 5) -> (towardFavorite: [Contribution], towardNormal: [Contribution]) {
        let sorted = contributions.sorted { $0.logRatio > $1.logRatio }
        return (
            Array(sorted.prefix { $0.logRatio > 0 }.prefix(limit)),
            Array(sorted.reversed().prefix { $0.logRatio < 0 }.prefix(limit))
        )
    }
}
