public import Classifier

/// How likes are decided, as the configuration says (`FAVORITE_RATE_THRESHOLD`, `CLASSIFIER`).
public struct LikeSettings: Sendable, Equatable {
    /// The threshold of score(favorite) / score(normal): the fixed one, or the one used until a calibration exists.
    public var threshold: Double
    /// Whether the threshold (and, with several models, the model) is calibrated on the training examples (`auto`).
    public var calibrates: Bool
    /// The models the calibration chooses among (`CLASSIFIER=auto`: both); with a fixed threshold, the first decides.
    public var models: [ClassifierModel]

    /// The threshold of the original bot's code.
    public static let originalThreshold = 3.0

    /// Settings; the defaults are `FAVORITE_RATE_THRESHOLD=auto` and `CLASSIFIER=auto`.
    public init(threshold: Double = LikeSettings.originalThreshold, calibrates: Bool = true, models: [ClassifierModel] = [.original, .binary]) {
        self.threshold = threshold
        self.calibrates = calibrates
        self.models = models.isEmpty ? [.original] : models
    }
}
