import Foundation
import SeededRandom
import WordCounts

/// Chooses the like threshold (and the model) by k-fold cross-validation on the stored training examples
/// (`FAVORITE_RATE_THRESHOLD=auto`).
///
/// Each example is scored by a filter trained on the other folds. Precision, recall and the predicted like share
/// are then taken as they would be on the human's timeline, where the human likes a share `s` of the posts (the
/// examples themselves are about half likes, as the original trains on 800 of each): with TPR the share of likes
/// the cut keeps and FPR the share of non-likes it keeps, precision = TPR·s / (TPR·s + FPR·(1−s)) and the predicted
/// share = TPR·s + FPR·(1−s). The chosen cut maximises F0.5 (a wrong like is worse than a missed one) among those
/// whose predicted share is within ±50% of `s`.
public enum ThresholdCalibration {
    /// One learned post, by its final label (liked if the human ever liked it).
    public struct Example: Sendable, Equatable {
        /// The post's id (folds are drawn by example, so a post is never on both sides).
        public var postID: String
        /// Its distinct features.
        public var features: [String]
        /// Whether the human liked it.
        public var isFavorite: Bool

        /// An example from its parts.
        public init(postID: String, features: [String], isFavorite: Bool) {
            self.postID = postID
            self.features = features
            self.isFavorite = isFavorite
        }
    }

    /// What a cut of the scores gives, as on the human's timeline.
    public struct Figures: Sendable, Equatable, Codable {
        /// Of the posts it would like, the share the human likes.
        public var precision: Double
        /// Of the posts the human likes, the share it would like.
        public var recall: Double
        /// The share of timeline posts it would like.
        public var likeShare: Double

        /// Figures from their parts.
        public init(precision: Double, recall: Double, likeShare: Double) {
            self.precision = precision
            self.recall = recall
            self.likeShare = likeShare
        }

        /// F-beta of precision and recall; 0 when both are 0.
        public func f(beta: Double) -> Double {
            let b2 = beta * beta
            let denominator = b2 * precision + recall
            return denominator > 0 ? (1 + b2) * precision * recall / denominator : 0
        }
    }

    /// The outcome: the model and threshold to use, and why.
    public struct Result: Sendable, Equatable, Codable {
        /// The model chosen.
        public var model: ClassifierModel
        /// Like when score(favorite) / score(normal) exceeds this.
        public var threshold: Double
        /// Posts scoring above this are kept for the day's like slots, which like the best kept (`keepingCut`); nil
        /// on a fallback and in a calibration stored before there was one: `threshold`.
        public var keepingThreshold: Double?
        /// The cross-validated figures of that choice (nil on a fallback).
        public var figures: Figures?
        /// The share of their timeline the human likes, as estimated.
        public var humanLikeShare: Double?
        /// Examples used, by final label.
        public var favorites: Int
        /// Examples used that the human did not like.
        public var normals: Int
        /// Folds of the cross-validation.
        public var folds: Int
        /// Why the original threshold was kept instead, when it was.
        public var fallbackReason: String?

        /// A result from its parts.
        public init(
            model: ClassifierModel, threshold: Double, keepingThreshold: Double? = nil, figures: Figures? = nil, humanLikeShare: Double? = nil,
            favorites: Int, normals: Int, folds: Int, fallbackReason: String? = nil
        ) {
            self.model = model
            self.threshold = threshold
            self.keepingThreshold = keepingThreshold
            self.figures = figures
            self.humanLikeShare = humanLikeShare
            self.favorites = favorites
            self.normals = normals
            self.folds = folds
            self.fallbackReason = fallbackReason
        }

        /// One line for logs and `classify --stats`.
        public var summary: String {
            if let fallbackReason { return "threshold \(Self.format(threshold)) (\(model.rawValue) model): \(fallbackReason)" }
            let share = humanLikeShare.map { String(format: "%.0f%%", $0 * 100) } ?? "?"
            guard let figures else { return "threshold \(Self.format(threshold)) (\(model.rawValue) model)" }
            let keeping = keepingThreshold.flatMap {
                $0 < threshold ? "; posts above \(Self.format($0)) are kept for the day's like slots, which like the best kept" : nil
            }
            return String(
                format: "threshold %@ (%@ model), chosen by %d-fold cross-validation on %d liked and %d not liked posts: "
                    + "precision %.2f, recall %.2f, F0.5 %.2f, likes %.0f%% of the timeline (the human likes %@)",
                Self.format(threshold), model.rawValue, folds, favorites, normals, figures.precision, figures.recall,
                figures.f(beta: 0.5), figures.likeShare * 100, share) + (keeping ?? "")
        }

        static func format(_ threshold: Double) -> String { String(format: threshold >= 100 ? "%.0f" : "%.3g", threshold) }
    }

    /// The fewest examples per label worth calibrating on; with fewer, the original threshold is kept.
    public static let minimumPerLabel = 50

    /// Calibrates on `examples`: for each model in `models`, pooled out-of-fold scores, then the best cut; the model
    /// with the better F0.5 wins (the first on a tie). `humanLikeShare` is the share of their timeline the human
    /// likes (nil: the examples' own share). With fewer than `minimumPerLabel` examples of a label, returns
    /// `fallbackThreshold` with the first model and says why.
    public static func calibrate(
        _ examples: [Example], humanLikeShare: Double?, models: [ClassifierModel], folds: Int = 5, fallbackThreshold: Double
    ) -> Result {
        let favorites = examples.filter(\.isFavorite).count
        let normals = examples.count - favorites
        let model = models.first ?? .original
        guard favorites >= minimumPerLabel, normals >= minimumPerLabel else {
            return Result(
                model: model, threshold: fallbackThreshold, figures: nil, humanLikeShare: humanLikeShare, favorites: favorites,
                normals: normals, folds: folds,
                fallbackReason:
                    "too few examples to calibrate (\(favorites) liked, \(normals) not liked; \(minimumPerLabel) of each are needed), so the original threshold"
            )
        }
        let share = humanLikeShare.flatMap { $0 > 0 && $0 < 1 ? $0 : nil } ?? Double(favorites) / Double(examples.count)
        func calibrated(_ candidate: ClassifierModel) -> (result: Result, score: Double) {
            let scored = outOfFoldScores(examples, model: candidate, folds: folds)
            let cut = bestCut(scored, likeShare: share)
            let keeping = keepingCut(scored, likeShare: share, likeCut: cut.logThreshold)
            return (
                Result(
                    model: candidate, threshold: Foundation.exp(cut.logThreshold), keepingThreshold: Foundation.exp(keeping),
                    figures: cut.figures, humanLikeShare: share,
                    favorites: favorites, normals: normals, folds: folds, fallbackReason: nil), cut.figures.f(beta: 0.5)
            )
        }
        // The first model (the original's when none is asked for), replaced only by a strictly better one.
        var best = calibrated(model)
        for candidate in models.dropFirst() {
            let next = calibrated(candidate)
            if next.score > best.score { best = next }
        }
        return best.result
    }

    /// Each example's log ratio from a filter trained on the other folds (folds drawn by a fixed seed).
    public static func outOfFoldScores(_ examples: [Example], model: ClassifierModel, folds: Int) -> [(logRatio: Double, isFavorite: Bool)] {
        var order = Array(examples.indices)
        var generator = SplitMix64(seed: 0x6d69_7272_6f72)
        order.shuffle(using: &generator)
        var fold = [Int](repeating: 0, count: examples.count)
        for (position, index) in order.enumerated() { fold[index] = position % max(1, folds) }

        var all = InMemoryCounts()
        for example in examples { all.add(example) }
        var scores = [(logRatio: Double, isFavorite: Bool)](repeating: (0, false), count: examples.count)
        for held in 0..<max(1, folds) {
            // The other folds' counts: everything minus this fold.
            var training = all
            for index in examples.indices where fold[index] == held { training.remove(examples[index]) }
            for index in examples.indices where fold[index] == held {
                let example = examples[index]
                scores[index] = (model.score(features: example.features, counts: training.counts(for: example.features)).logRatio, example.isFavorite)
            }
        }
        return scores
    }

    /// The cut of log ratios ("like when the log ratio exceeds it") with the best F0.5 on the timeline among cuts
    /// whose predicted like share is within ±50% of `likeShare`; when none is, the cut whose share is closest.
    public static func bestCut(_ scored: [(logRatio: Double, isFavorite: Bool)], likeShare share: Double) -> (logThreshold: Double, figures: Figures)
    {
        let candidates = cuts(scored, likeShare: share)
        let allowed = candidates.filter { $0.figures.likeShare >= share * 0.5 && $0.figures.likeShare <= share * 1.5 }
        if let best = allowed.max(by: { $0.figures.f(beta: 0.5) < $1.figures.f(beta: 0.5) }) { return best }
        return candidates.min { abs($0.figures.likeShare - share) < abs($1.figures.likeShare - share) }!
    }

    /// How many times the human's like share the bar for keeping posts lets through: the day's like slots then
    /// choose the best of about twice what they use.
    public static let keepingShareFactor = 2.0

    /// The bar for keeping timeline posts for the day's like slots: the cut whose predicted like share is closest to
    /// `keepingShareFactor` times `likeShare`, never above `likeCut` (a post the threshold likes is always kept).
    /// The like planner decides how many are liked and each slot takes the best kept, so the bar only has to let
    /// through enough good posts: the threshold alone, chosen to like about the human's share, leaves a busy day's
    /// slots with nothing to like.
    public static func keepingCut(_ scored: [(logRatio: Double, isFavorite: Bool)], likeShare share: Double, likeCut: Double) -> Double {
        guard !scored.isEmpty else { return likeCut }
        let target = share * keepingShareFactor
        let closest = cuts(scored, likeShare: share).min { abs($0.figures.likeShare - target) < abs($1.figures.likeShare - target) }
        return min(closest?.logThreshold ?? likeCut, likeCut)
    }

    /// Every distinct cut of `scored`, from the one above everything (likes nothing) down, with its figures on a
    /// timeline where the human likes `share`.
    static func cuts(_ scored: [(logRatio: Double, isFavorite: Bool)], likeShare share: Double) -> [(logThreshold: Double, figures: Figures)] {
        let positives = Double(scored.filter(\.isFavorite).count)
        let negatives = Double(scored.count) - positives
        // NaN (no counts at all) never likes; sorted from the most to the least liked.
        let sorted = scored.filter { !$0.logRatio.isNaN }.sorted { $0.logRatio > $1.logRatio }
        func figures(truePositives: Double, falsePositives: Double) -> Figures {
            let tpr = positives > 0 ? truePositives / positives : 0
            let fpr = negatives > 0 ? falsePositives / negatives : 0
            let liked = tpr * share + fpr * (1 - share)
            return Figures(precision: liked > 0 ? tpr * share / liked : 0, recall: tpr, likeShare: liked)
        }
        // The cut above everything likes nothing.
        let top = sorted.first.map { $0.logRatio.isFinite ? $0.logRatio + 1 : Double.greatestFiniteMagnitude } ?? 0
        var candidates: [(logThreshold: Double, figures: Figures)] = [(top, figures(truePositives: 0, falsePositives: 0))]
        var truePositives = 0.0
        var falsePositives = 0.0
        var index = 0
        while index < sorted.count {
            let value = sorted[index].logRatio
            while index < sorted.count, sorted[index].logRatio == value {
                if sorted[index].isFavorite { truePositives += 1 } else { falsePositives += 1 }
                index += 1
            }
            // Like everything scoring at least `value`: cut halfway to the next lower score.
            let next = index < sorted.count ? sorted[index].logRatio : value - 1
            let cut = value.isFinite && next.isFinite ? (value + next) / 2 : (next.isFinite ? next + 1 : -Double.greatestFiniteMagnitude)
            candidates.append((cut, figures(truePositives: truePositives, falsePositives: falsePositives)))
        }
        return candidates
    }
}

/// Word counts kept in memory for cross-validation: each example's distinct features once in its label.
struct InMemoryCounts {
    var features: [String: (favorite: Int, normal: Int)] = [:]
    var favorites = 0
    var normals = 0

    mutating func add(_ example: ThresholdCalibration.Example) { change(example, by: 1) }
    mutating func remove(_ example: ThresholdCalibration.Example) { change(example, by: -1) }

    private mutating func change(_ example: ThresholdCalibration.Example, by step: Int) {
        if example.isFavorite { favorites += step } else { normals += step }
        for feature in Set(example.features) {
            var counts = features[feature, default: (0, 0)]
            if example.isFavorite { counts.favorite += step } else { counts.normal += step }
            features[feature] = counts
        }
    }

    func counts(for wanted: [String]) -> FeatureCounts {
        var result: [String: [Category: Int]] = [:]
        for feature in wanted {
            let counts = features[feature] ?? (0, 0)
            result[feature] = [.favorite: counts.favorite, .normal: counts.normal]
        }
        return FeatureCounts(features: result, categories: [.favorite: favorites, .normal: normals])
    }
}
