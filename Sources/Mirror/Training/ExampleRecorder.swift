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

    /// Records learned posts as training examples, in order.
    public func record(
        _ posts: [(id: String, post: FavoriteClassifier.Post)], as category: Category, source: ExampleSource,
        at date: Date
    ) async throws {
        try await examples.record(
            posts.map {
                TrainingExample(
                    postID: $0.id, text: $0.post.text, author: $0.post.authorUsername, label: category.rawValue,
                    source: source.rawValue, learnedAt: date)
            })
    }
}
