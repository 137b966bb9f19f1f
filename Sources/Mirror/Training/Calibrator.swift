public import Classifier
public import Foundation
public import Stores
import WordCounts

/// Runs the threshold calibration on the stored training examples and keeps its result in the bot's state
/// (`FAVORITE_RATE_THRESHOLD=auto`).
public struct Calibrator: Sendable {
    /// A stored calibration and when it was made.
    public struct Stored: Sendable, Equatable, Codable {
        /// What was chosen, and its figures.
        public var result: ThresholdCalibration.Result
        /// When it was made.
        public var calibratedAt: Date
    }

    /// Where the result is kept in `bot_state`.
    public static let stateKey = "classifier.calibration"

    /// The examples.
    public let examples: any TrainingExamples
    /// The bot's state, where the result is kept.
    public let state: any BotState
    /// The classifier whose tokenizer makes the features.
    public let classifier: FavoriteClassifier
    /// The models to choose among (`CLASSIFIER`: one, or both).
    public let models: [ClassifierModel]
    /// The threshold kept when there are too few examples (the original's).
    public let fallbackThreshold: Double

    /// A calibrator for `classifier`, over `examples`, keeping its result in `state`.
    public init(
        examples: any TrainingExamples, state: any BotState, classifier: FavoriteClassifier, models: [ClassifierModel], fallbackThreshold: Double
    ) {
        self.examples = examples
        self.state = state
        self.classifier = classifier
        self.models = models
        self.fallbackThreshold = fallbackThreshold
    }

    /// The most examples a calibration reads (the newest): enough for any human's recent taste, and a bounded
    /// daily cost however long the bot has been learning.
    public static let exampleLimit = 50_000

    /// Calibrates now on the newest stored examples, stores the result and returns it.
    @discardableResult
    public func calibrate(at date: Date = Date()) async throws -> Stored {
        let stored = try await examples.recent(limit: Self.exampleLimit)
        // One example per post, liked if the human ever liked it.
        var order: [String] = []
        var byPost: [String: (text: String, author: String?, isFavorite: Bool)] = [:]
        for example in stored {
            let isFavorite = example.label == Category.favorite.rawValue
            if let known = byPost[example.postID] {
                byPost[example.postID]?.isFavorite = known.isFavorite || isFavorite
            } else {
                order.append(example.postID)
                byPost[example.postID] = (example.text, example.author, isFavorite)
            }
        }
        let calibrationExamples = try order.map { id in
            let post = byPost[id]!
            return ThresholdCalibration.Example(
                postID: id, features: try classifier.features(of: .init(text: post.text, authorUsername: post.author)),
                isFavorite: post.isFavorite)
        }
        let timeline = try await examples.timelineLikes()
        let share = timeline.seen >= ThresholdCalibration.minimumPerLabel ? Double(timeline.liked) / Double(timeline.seen) : nil
        let result = ThresholdCalibration.calibrate(calibrationExamples, humanLikeShare: share, models: models, fallbackThreshold: fallbackThreshold)
        let calibration = Stored(result: result, calibratedAt: date)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try await state.setValue(String(decoding: try encoder.encode(calibration), as: UTF8.self), of: Self.stateKey)
        return calibration
    }

    /// The stored calibration, if any (nil also when it was made for other models).
    public func stored() async throws -> Stored? {
        guard let text = try await state.value(of: Self.stateKey) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let stored = try? decoder.decode(Stored.self, from: Data(text.utf8)), models.contains(stored.result.model) else { return nil }
        return stored
    }
}
