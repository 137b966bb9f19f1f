import Foundation
public import WordCounts

/// Which naive Bayes formula turns word counts into a decision (`CLASSIFIER`).
public enum ClassifierModel: String, Sendable, CaseIterable, Codable {
    /// The original bot's formula: weighted probabilities (0.1 * 5 + n * p) / (n + 5) over the post's features.
    case original
    /// Binary naive Bayes as Rspamd does it: each feature seen at least `minimumSightings` times counts with its
    /// add-one-smoothed share of favorite and normal posts; rarer features are ignored.
    case binary

    /// Features seen fewer times than this (in both categories together) do not count in the binary model: words
    /// seen once or twice are mostly noise. On the features of `script/bench-likes`' eight people, the mean F1 for a
    /// minimum of 1 to 5 was 0.59, 0.61, 0.62, 0.61, 0.60.
    public static let minimumSightings = 3

    /// The score of a post with `features` (distinct) given the counts read for them.
    public func score(features: [String], counts: FeatureCounts) -> FavoriteScore {
        switch self {
        case .original: FavoriteScore(features: features, counts: counts)
        case .binary: FavoriteScore(binaryFeatures: features, counts: counts, minimumSightings: Self.minimumSightings)
        }
    }
}

extension FavoriteScore {
    /// The binary model's score: log prior plus, for each feature seen at least `minimumSightings` times,
    /// log((count in category + 1) / (posts in category + 2)). An untrained filter gives NaN (likes nothing).
    public init(binaryFeatures features: [String], counts: FeatureCounts, minimumSightings: Int) {
        let favoriteTotal = Double(counts.count(of: .favorite))
        let normalTotal = Double(counts.count(of: .normal))
        let total = favoriteTotal + normalTotal
        var logFavorite = Foundation.log(total > 0 ? favoriteTotal / total : .nan)
        var logNormal = Foundation.log(total > 0 ? normalTotal / total : .nan)
        var contributions: [Contribution] = []
        for feature in features {
            let inFavorite = counts.count(of: feature, in: .favorite)
            let inNormal = counts.count(of: feature, in: .normal)
            guard inFavorite + inNormal >= minimumSightings else { continue }
            let favorite = Foundation.log((Double(inFavorite) + 1) / (favoriteTotal + 2))
            let normal = Foundation.log((Double(inNormal) + 1) / (normalTotal + 2))
            logFavorite += favorite
            logNormal += normal
            contributions.append(Contribution(feature: feature, logRatio: favorite - normal))
        }
        self.init(logFavorite: logFavorite, logNormal: logNormal, contributions: contributions)
    }
}
