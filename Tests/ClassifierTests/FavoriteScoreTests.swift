import Foundation
import Testing
import WordCounts

@testable import Classifier

/// The original formula transcribed as it was written: plain products, no logarithms.
func naiveOriginalRatio(features: [String], counts: FeatureCounts) -> Double {
    let favoriteTotal = Double(counts.count(of: .favorite))
    let normalTotal = Double(counts.count(of: .normal))
    let total = favoriteTotal + normalTotal
    func weighted(_ feature: String, _ category: Category, _ categoryTotal: Double) -> Double {
        let n = Double(counts.count(of: feature, in: .favorite) + counts.count(of: feature, in: .normal))
        let p = categoryTotal > 0 ? Double(counts.count(of: feature, in: category)) / categoryTotal : 0
        return (0.1 * 5 + n * p) / (n + 5)
    }
    var favorite = favoriteTotal / total
    var normal = normalTotal / total
    for feature in features {
        favorite *= weighted(feature, .favorite, favoriteTotal)
        normal *= weighted(feature, .normal, normalTotal)
    }
    return favorite / normal
}

@Suite("The original favorite formula, in logarithms")
struct FavoriteScoreTests {
    /// Counts of a small vocabulary, as a trained filter might hold them.
    static let counts = FeatureCounts(
        features: [
            "寿司": [.favorite: 40, .normal: 10], "ラーメン": [.favorite: 25, .normal: 30], "会議": [.favorite: 1, .normal: 60],
            "猫": [.favorite: 30, .normal: 5], "電車": [.favorite: 3, .normal: 45], "@alice": [.favorite: 12, .normal: 2],
            "@bob": [.favorite: 0, .normal: 20], "天気": [.favorite: 8, .normal: 9],
        ],
        categories: [.favorite: 120, .normal: 400])

    static let fixtures: [[String]] = [
        ["寿司"], ["会議"], ["猫", "@alice"], ["電車", "@bob"], ["ラーメン", "天気"], ["寿司", "会議"], ["未知"],
        ["猫", "寿司", "ラーメン"], ["会議", "電車", "天気", "@bob"], ["天気"], ["寿司", "@bob"], ["ラーメン", "@alice"], [],
    ]

    @Test("Same decisions as the naive original on fixtures where nothing underflows, at several thresholds")
    func sameDecisionsAsTheOriginal() {
        for features in Self.fixtures {
            let score = FavoriteScore(features: features, counts: Self.counts)
            let naive = naiveOriginalRatio(features: features, counts: Self.counts)
            #expect(abs(score.logRatio - log(naive)) < 1e-9, "\(features)")
            for threshold in [0.5, 1.0, 2.0, 3.0, 10.0] {
                #expect(score.isFavorite(threshold: threshold) == (naive > threshold), "\(features) at \(threshold)")
            }
        }
        // The fixtures do exercise both outcomes at the original's default threshold.
        let decisions = Self.fixtures.map { FavoriteScore(features: $0, counts: Self.counts).isFavorite(threshold: 3) }
        #expect(decisions.contains(true) && decisions.contains(false))
    }

    @Test("A long text underflows the naive products to 0/0 but not the logarithms")
    func noUnderflow() {
        var features: [String: [Category: Int]] = [:]
        let words = (0..<400).map { "語\($0)" }
        for word in words { features[word] = [.favorite: 0, .normal: 500] }
        let counts = FeatureCounts(features: features, categories: [.favorite: 100_000, .normal: 100_000])
        #expect(naiveOriginalRatio(features: words, counts: counts).isNaN)  // 0 / 0: the original could not decide
        let score = FavoriteScore(features: words, counts: counts)
        #expect(score.logRatio.isFinite)
        #expect(score.logRatio < 0)
        #expect(!score.isFavorite(threshold: 3))
    }

    @Test("An untrained filter likes nothing; one that learned only favorites likes everything, as the original")
    func edgeCases() {
        let empty = FavoriteScore(features: ["寿司"], counts: FeatureCounts(features: [:], categories: [:]))
        #expect(empty.logRatio.isNaN)
        #expect(!empty.isFavorite(threshold: 0.1))
        let onlyFavorites = FavoriteScore(features: ["寿司"], counts: FeatureCounts(features: ["寿司": [.favorite: 3]], categories: [.favorite: 3]))
        #expect(onlyFavorites.logRatio == .infinity)
        #expect(onlyFavorites.isFavorite(threshold: 3))
    }

    @Test("The strongest features on each side are named")
    func explanation() {
        let score = FavoriteScore(features: ["寿司", "会議", "猫", "@bob", "天気"], counts: Self.counts)
        let strongest = score.strongestContributions(limit: 2)
        // 猫: 30/120 vs 5/400 outweighs 寿司: 40/120 vs 10/400.
        #expect(strongest.towardFavorite.map(\.feature) == ["猫", "寿司"])
        #expect(strongest.towardNormal.map(\.feature) == ["会議", "@bob"])
    }
}
