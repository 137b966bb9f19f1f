public import Foundation

/// Every post the favorite filter learned, in order (table `training_examples`): the word counts are derived from
/// them (`mirror_bot train rebuild`), and the like threshold is calibrated on them.
public protocol TrainingExamples: Sendable {
    /// Stores `examples` in order, skipping any already stored (same post, label and source); how many were new.
    @discardableResult func record(_ examples: [TrainingExample]) async throws -> Int
    /// The newest `limit` examples (all when nil), in learning order.
    func examples(newest limit: Int?) async throws -> [TrainingExample]
    /// How many examples are stored.
    func count() async throws -> Int
    /// Timeline posts the person saw (learned from the home timeline) and how many of them they liked.
    func timelineLikes() async throws -> (seen: Int, liked: Int)
    /// Deletes the examples of one post (`mirror_bot forget`); returns them, in learning order.
    @discardableResult func remove(postID: String) async throws -> [TrainingExample]
    /// Deletes every example (`mirror_bot train clear`).
    func removeAll() async throws
}

extension TrainingExamples {
    /// Every example in learning order.
    public func all() async throws -> [TrainingExample] { try await examples(newest: nil) }
    /// The newest `limit` examples, in learning order (what the calibration reads).
    public func recent(limit: Int) async throws -> [TrainingExample] { try await examples(newest: limit) }
}

/// One post the favorite filter learned: the row of `training_examples` it came from.
public struct TrainingExample: Sendable, Equatable {
    /// The learning order (nil before it is stored).
    public var sequence: Int64?
    /// The post's id.
    public var postID: String
    /// Its text, as it was learned (entities decoded, links expanded).
    public var text: String
    /// Its author's username, when known (a feature of the filter).
    public var author: String?
    /// `favorite` (the person liked it) or `normal` (seen, not liked).
    public var label: String
    /// Where it was learned from: `likes`, `timeline` or `import`.
    public var source: String
    /// When it was learned.
    public var learnedAt: Date

    /// An example from its parts.
    public init(sequence: Int64? = nil, postID: String, text: String, author: String?, label: String, source: String, learnedAt: Date) {
        self.sequence = sequence
        self.postID = postID
        self.text = text
        self.author = author
        self.label = label
        self.source = source
        self.learnedAt = learnedAt
    }
}
