public import Classifier
public import Foundation
public import Stores

/// How the bot decides likes, from its settings: a fixed `FAVORITE_RATE_THRESHOLD` with the original formula
/// (or `CLASSIFIER=binary`), or, with `auto` (the default), the model and threshold the cross-validation chose.
public enum LikeDecision {
    /// The calibrator for `classifier` over `database`'s training examples, as `settings` ask.
    public static func calibrator(for classifier: FavoriteClassifier, settings: LikeSettings, database: any StoreSet) -> Calibrator {
        Calibrator(
            examples: database.examples, state: database.state, classifier: classifier, models: settings.models,
            fallbackThreshold: settings.threshold)
    }

    /// Sets `classifier`'s model and threshold as `settings` ask and returns a line saying which. With `auto`,
    /// the stored calibration is used; when there is none, one is made now (and stored) if `calibrateIfMissing`,
    /// else the original threshold is used until there is one.
    @discardableResult
    public static func apply(
        to classifier: FavoriteClassifier, settings: LikeSettings, database: any StoreSet,
        calibrateIfMissing: Bool, at date: Date = Date()
    ) async throws -> String {
        guard settings.calibrates else {
            let model = settings.models.count == 1 ? settings.models[0] : .original
            classifier.decide(with: model, threshold: settings.threshold)
            return "like threshold \(settings.threshold) (FAVORITE_RATE_THRESHOLD), \(model.rawValue) model"
        }
        let calibrator = calibrator(for: classifier, settings: settings, database: database)
        var stored = try await calibrator.stored()
        if stored == nil, calibrateIfMissing { stored = try await calibrator.calibrate(at: date) }
        guard let stored else {
            classifier.decide(with: .original, threshold: settings.threshold)
            return "like threshold \(settings.threshold): not calibrated yet (FAVORITE_RATE_THRESHOLD=auto), so the original's"
        }
        classifier.decide(by: stored.result)
        return "like " + stored.result.summary
    }
}
