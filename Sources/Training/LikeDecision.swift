public import Stores
public import BotConfiguration
public import Classifier
public import Foundation

/// How the bot decides likes, from the configuration: a fixed `FAVORITE_RATE_THRESHOLD` with the original formula
/// (or `CLASSIFIER=binary`), or, with `auto` (the default), the model and threshold the cross-validation chose.
public enum LikeDecision {
    /// The models `CLASSIFIER` lets the calibration choose among.
    public static func models(for choice: Configuration.ClassifierChoice) -> [ClassifierModel] {
        switch choice {
        case .auto: [.original, .binary]
        case .original: [.original]
        case .binary: [.binary]
        }
    }

    /// The calibrator for `classifier` over `database`'s training examples, as `configuration` asks.
    public static func calibrator(for classifier: FavoriteClassifier, configuration: Configuration, database: any StoreSet) -> Calibrator {
        Calibrator(examples: database.examples, state: database.state, classifier: classifier,
                   models: models(for: configuration.classifier), fallbackThreshold: configuration.favoriteRateThreshold)
    }

    /// Sets `classifier`'s model and threshold as `configuration` asks and returns a line saying which. With `auto`,
    /// the stored calibration is used; when there is none, one is made now (and stored) if `calibrateIfMissing`,
    /// else the original threshold is used until there is one.
    @discardableResult
    public static func apply(to classifier: FavoriteClassifier, configuration: Configuration, database: any StoreSet,
                             calibrateIfMissing: Bool, at date: Date = Date()) async throws -> String {
        guard configuration.calibratesFavoriteThreshold else {
            let model: ClassifierModel = configuration.classifier == .binary ? .binary : .original
            classifier.decide(with: model, threshold: configuration.favoriteRateThreshold)
            return "like threshold \(configuration.favoriteRateThreshold) (FAVORITE_RATE_THRESHOLD), \(model.rawValue) model"
        }
        let calibrator = calibrator(for: classifier, configuration: configuration, database: database)
        var stored = try await calibrator.stored()
        if stored == nil, calibrateIfMissing { stored = try await calibrator.calibrate(at: date) }
        guard let stored else {
            classifier.decide(with: .original, threshold: configuration.favoriteRateThreshold)
            return "like threshold \(configuration.favoriteRateThreshold): not calibrated yet (FAVORITE_RATE_THRESHOLD=auto), so the original's"
        }
        classifier.decide(with: stored.result.model, threshold: stored.result.threshold)
        return "like " + stored.result.summary
    }
}
