public import Classifier
import Foundation
public import Stores
import WordCounts

/// `mirror_bot train rebuild`: recomputes every word count from the stored training examples, in one pass, in the
/// order they were learned and with the same operations, so the counts come out exactly as incremental learning
/// made them (with today's tokenizer). The one-time training flags are kept.
public struct CountsRebuilder: Sendable {
    /// What a rebuild did.
    public struct Report: Sendable, Equatable {
        /// Examples replayed.
        public var examples: Int
        /// Posts counted as liked.
        public var favorites: Int
        /// Posts counted as not liked.
        public var normals: Int
    }

    /// The examples.
    public let examples: any TrainingExamples
    /// The classifier whose counts are rebuilt (its tokenizer makes the features).
    public let classifier: FavoriteClassifier
    /// How many posts go to the store per write.
    public var batchSize = 1_000

    /// A rebuilder of `classifier`'s counts from `examples`.
    public init(examples: any TrainingExamples, classifier: FavoriteClassifier) {
        self.examples = examples
        self.classifier = classifier
    }

    /// Replaces the counts by those the stored examples give. Refuses (and changes nothing) when no example is
    /// stored, since the counts then come from before examples were kept.
    public func rebuild(progress: @Sendable (String) -> Void = { _ in }) async throws -> Report {
        let stored = try await examples.all()
        guard !stored.isEmpty else { throw NoExamples() }
        // Tokenized before anything is deleted: a tokenizer failure leaves the counts as they were.
        let featured = try stored.map { example in
            (
                id: example.postID, label: example.label,
                features: try classifier.features(of: .init(text: example.text, authorUsername: example.author))
            )
        }
        let store = classifier.store
        let flags = ["scheduler", "classifier"]
        var kept: [String] = []
        for flag in flags where try await store.isTrained(flag) { kept.append(flag) }
        try await store.removeAll()
        var report = Report(examples: stored.count, favorites: 0, normals: 0)
        // Consecutive examples of one label go together: within such a run, a batch equals one at a time.
        var start = 0
        while start < featured.count {
            let label = featured[start].label
            var end = start
            while end < featured.count, end - start < batchSize, featured[end].label == label { end += 1 }
            let batch = featured[start..<end].map { (id: $0.id, features: $0.features) }
            if label == Category.favorite.rawValue {
                report.favorites += try await store.learnFavoritesOnce(batch)
            } else {
                report.normals += try await store.learnNormalsOnce(batch)
            }
            progress("\(end) of \(featured.count) examples replayed")
            start = end
        }
        for flag in kept { try await store.markTrained(flag) }
        return report
    }

    /// There is nothing to rebuild from.
    public struct NoExamples: Error, CustomStringConvertible {
        /// One readable line.
        public var description: String {
            "No training examples are stored, so the counts cannot be rebuilt (they were learned before examples were kept). "
                + "Run `mirror_bot train classifier --force` or `mirror_bot import` to learn again; the counts are unchanged."
        }
    }
}
