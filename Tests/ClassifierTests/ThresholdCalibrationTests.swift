import Classifier
import Foundation
import Testing
import WordCounts

@Suite("Calibrating the like threshold")
struct ThresholdCalibrationTests {
    /// Scored examples: each log ratio with whether the human liked it.
    func scored(favorites: [Double], normals: [Double]) -> [(logRatio: Double, isFavorite: Bool)] {
        favorites.map { ($0, true) } + normals.map { ($0, false) }
    }

    @Test("The cut with the best F0.5 on the timeline is chosen, halfway between two scores")
    func bestF05() {
        // Six likes score above every non-like; the rest are mixed in below.
        let examples = scored(favorites: [10, 9, 8, 7, 6, 5.8, 2, 1, 0.5, -2], normals: [5.5, 3, 1.5, -0.5, -3, -4, -5, -6, -7, -8])
        let cut = ThresholdCalibration.bestCut(examples, likeShare: 0.25)
        // Liking the top six: recall 0.6, no false like: precision 1, F0.5 = 1.25 * 0.6 / (0.25 + 0.6).
        #expect(cut.logThreshold == (5.8 + 5.5) / 2)
        #expect(abs(cut.figures.precision - 1) < 1e-12 && abs(cut.figures.recall - 0.6) < 1e-12)
        #expect(abs(cut.figures.f(beta: 0.5) - 0.75 / 0.85) < 1e-12)
        #expect(abs(cut.figures.likeShare - 0.15) < 1e-12)
    }

    @Test("A cut that would like too few posts (under half the human's share) is not chosen")
    func shareWithinHalf() {
        // Liking only the top three has the best F0.5 (0.68) but likes 7.5% of the timeline, under half of 25%.
        let examples = scored(favorites: [10, 9, 8, -1, -2, -3, -4, -5, -6, -7], normals: [7, 6, 5, 4, 3, 2.5, -10, -11, -12, -13])
        let cut = ThresholdCalibration.bestCut(examples, likeShare: 0.25)
        #expect(cut.logThreshold == 6.5)  // also likes the non-like at 7: 15% of the timeline, precision 0.5
        #expect(cut.figures.likeShare >= 0.125 && cut.figures.likeShare <= 0.375)
        #expect(abs(cut.figures.precision - 0.5) < 1e-12)
    }

    @Test("The keeping bar lets through about twice the human's share, and never less than the threshold likes")
    func keepingBar() {
        // Twenty examples, half liked; the human likes 10% of the timeline.
        let examples = scored(favorites: [10, 9, 8, 7, 6, 4, 2, 0, -2, -4], normals: [8.5, 5, 3, 1, -1, -3, -5, -6, -7, -8])
        let share = 0.1
        let like = ThresholdCalibration.bestCut(examples, likeShare: share)
        let keeping = ThresholdCalibration.keepingCut(examples, likeShare: share, likeCut: like.logThreshold)
        #expect(keeping < like.logThreshold, "the bar is lower than the threshold: \(keeping) against \(like.logThreshold)")
        // The threshold likes above 5.5 (5 likes, 1 other: a share of 0.5·0.1 + 0.1·0.9 = 0.14). Keeping everything above
        // 4.5 (5 likes, 2 others): a share of 0.5·0.1 + 0.2·0.9 = 0.23, the closest of all the cuts to twice 0.1.
        #expect(like.logThreshold == 5.5)
        #expect(keeping == 4.5)
        // A threshold already below that bar stays the bar: whatever would be liked is kept.
        #expect(ThresholdCalibration.keepingCut(examples, likeShare: share, likeCut: 0.5) == 0.5)
        #expect(ThresholdCalibration.keepingCut([], likeShare: share, likeCut: 1.25) == 1.25)
    }

    @Test("A calibration carries its keeping bar (at most its threshold); a fallback has none")
    func calibrationKeepingBar() {
        let result = ThresholdCalibration.calibrate(
            topicExamples(favorites: 200, normals: 300), humanLikeShare: 0.1,
            models: [.original, .binary], fallbackThreshold: 3)
        let keeping = try! #require(result.keepingThreshold)
        #expect(keeping < result.threshold && keeping > 0)
        #expect(result.summary.contains("are kept for the day's like slots"), "\(result.summary)")
        let fallback = ThresholdCalibration.calibrate(
            topicExamples(favorites: 10, normals: 10), humanLikeShare: 0.1, models: [.original], fallbackThreshold: 3)
        #expect(fallback.keepingThreshold == nil && fallback.threshold == 3)
        // A calibration stored before there was a keeping bar reads back without one.
        let stored = #"{"model":"original","threshold":2.5,"favorites":100,"normals":100,"folds":5}"#
        let decoded = try! JSONDecoder().decode(ThresholdCalibration.Result.self, from: Data(stored.utf8))
        #expect(decoded.keepingThreshold == nil && decoded.threshold == 2.5)
    }

    /// Posts of a human who likes posts about cats and sushi from some authors, and not meetings.
    func topicExamples(favorites: Int, normals: Int) -> [ThresholdCalibration.Example] {
        let liked = [["猫", "写真"], ["寿司", "新宿"], ["猫", "@friend"], ["寿司", "ラーメン", "@friend"], ["写真", "猫", "公園"]]
        let other = [["会議", "資料"], ["電車", "遅延"], ["会議", "@boss"], ["天気", "公園"], ["資料", "@boss", "写真"]]
        return (0..<favorites).map { .init(postID: "f\($0)", features: liked[$0 % liked.count] + ["f\($0 % 7)"], isFavorite: true) }
            + (0..<normals).map { .init(postID: "n\($0)", features: other[$0 % other.count] + ["n\($0 % 7)"], isFavorite: false) }
    }

    @Test("On separable examples the calibration finds a threshold that likes the liked kind and not the rest")
    func calibratesOnExamples() {
        let result = ThresholdCalibration.calibrate(
            topicExamples(favorites: 200, normals: 300), humanLikeShare: 0.3,
            models: [.original, .binary], fallbackThreshold: 3)
        #expect(result.fallbackReason == nil)
        let figures = try! #require(result.figures)
        #expect(figures.precision > 0.95 && figures.recall > 0.95, "\(figures)")
        #expect(result.threshold.isFinite && result.threshold > 0)
        #expect(result.favorites == 200 && result.normals == 300 && result.folds == 5)
        #expect(result.summary.contains("5-fold cross-validation on 200 liked and 300 not liked posts"))
        // The same examples give the same choice (folds are drawn with a fixed seed).
        #expect(
            ThresholdCalibration.calibrate(
                topicExamples(favorites: 200, normals: 300), humanLikeShare: 0.3,
                models: [.original, .binary], fallbackThreshold: 3) == result)
    }

    @Test("With no model asked for, the original formula is calibrated (no trap on an empty list)")
    func noModelsMeansTheOriginal() {
        let result = ThresholdCalibration.calibrate(
            topicExamples(favorites: 200, normals: 300), humanLikeShare: 0.3, models: [], fallbackThreshold: 3)
        #expect(result.model == .original && result.fallbackReason == nil && result.figures != nil)
        #expect(
            result
                == ThresholdCalibration.calibrate(
                    topicExamples(favorites: 200, normals: 300), humanLikeShare: 0.3, models: [.original],
                    fallbackThreshold: 3))
    }

    @Test("With fewer than 50 examples of a label the original threshold is kept, and the result says why")
    func fallsBack() {
        let result = ThresholdCalibration.calibrate(
            topicExamples(favorites: 49, normals: 400), humanLikeShare: 0.3,
            models: [.original, .binary], fallbackThreshold: 3)
        #expect(result.threshold == 3 && result.model == .original && result.figures == nil)
        #expect(result.fallbackReason?.contains("too few examples to calibrate (49 liked, 400 not liked") == true)
        #expect(result.summary.hasPrefix("threshold 3 (original model): too few examples"))
    }

    @Test("The binary model counts only words seen twice, with add-one smoothing")
    func binaryModel() {
        let counts = FeatureCounts(
            features: ["猫": [.favorite: 3, .normal: 1], "珍": [.favorite: 1, .normal: 0]],
            categories: [.favorite: 8, .normal: 8])
        let score = FavoriteScore(binaryFeatures: ["猫", "珍"], counts: counts, minimumSightings: 2)
        #expect(score.contributions.map(\.feature) == ["猫"])
        #expect(abs(score.logRatio - log((3.0 + 1) / 10) + log((1.0 + 1) / 10)) < 1e-12)
        #expect(ClassifierModel.binary.score(features: ["猫", "珍"], counts: counts) == score)
    }
}
