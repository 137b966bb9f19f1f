public import Foundation
public import WordCounts

/// Where a learned post came from.
public enum ExampleSource: String, Sendable, CaseIterable {
    /// The human's likes (read from X).
    case likes
    /// The human's home timeline: seen (normal), or seen and liked (favorite).
    case timeline
    /// The human's downloaded archive (`mirror_bot import`).
    case `import`
}

/// Where the classifier records every post it learns, so that the counts can be rebuilt and the threshold
/// calibrated from them (the archive's `training_examples`).
public protocol TrainingExampleLog: Sendable {
    /// Records `posts`, learned as `category` from `source` at `date`, in order; posts already recorded with the
    /// same label and source are skipped.
    func record(_ posts: [(id: String, post: FavoriteClassifier.Post)], as category: Category, source: ExampleSource, at date: Date) async throws
}
