public import Archive
public import Classifier
public import Foundation
public import WordCounts

// The archive's training examples are where the classifier records what it learns.
extension TrainingExamples: TrainingExampleLog {
    /// Records learned tweets as training examples, in order.
    public func record(_ tweets: [(id: String, tweet: FavoriteClassifier.Tweet)], as category: Category, source: ExampleSource,
                       at date: Date) async throws {
        try await record(tweets.map {
            TrainingExample(tweetID: $0.id, text: $0.tweet.text, author: $0.tweet.authorUsername, label: category.rawValue,
                            source: source.rawValue, learnedAt: date)
        })
    }
}
