public import Classifier
public import Foundation
public import Stores
public import WordCounts

/// The stores' training examples as the place the classifier records what it learns.
public struct ExampleRecorder: TrainingExampleLog {
    /// Where the examples are kept.
    public let examples: any TrainingExamples

    /// A recorder into `examples`.
    public init(_ examples: any TrainingExamples) { self.examples = examples }

    /// Records learned tweets as training examples, in order.
    public func record(
        _ tweets: [(id: String, tweet: FavoriteClassifier.Tweet)], as category: Category, source: ExampleSource,
        at date: Date
    ) async throws {
        try await examples.record(
            tweets.map {
                TrainingExample(
                    tweetID: $0.id, text: $0.tweet.text, author: $0.tweet.authorUsername, label: category.rawValue,
                    source: source.rawValue, learnedAt: date)
            })
    }
}
