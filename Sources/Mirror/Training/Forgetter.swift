public import BotCore
public import Classifier
import Foundation
public import SocialNetwork
public import Stores
public import WordCounts

/// `mirror_bot forget`: takes one of the person's posts out of everything the bot keeps, at once, for the person
/// who asks: the archive (and so the reply pool, which is the archive's replies), the training examples and what
/// they taught the word counts, and the bot's copies on the network (its posts and answers made of that post).
/// Learned-id markers stay, so that the post is never learned again.
public struct Forgetter: Sendable {
    /// What forgetting one post did.
    public struct Report: Sendable, Equatable {
        /// Whether the post was in the archive.
        public var wasArchived = false
        /// The training examples removed, with their labels.
        public var examplesRemoved: [String] = []
        /// The label whose learning was taken back out of the word counts, if any.
        public var unlearned: Category?
        /// The bot's copies deleted on the network.
        public var copiesDeleted: [PostID] = []
        /// The bot's copies already gone from the network.
        public var copiesAlreadyGone: [PostID] = []
        /// The bot's copies that could not be deleted now, with why (a later `forget` tries them again).
        public var copiesFailed: [(id: PostID, why: String)] = []

        /// Whether anything of the post was found.
        public var foundAnything: Bool {
            wasArchived || !examplesRemoved.isEmpty || !copiesDeleted.isEmpty || !copiesAlreadyGone.isEmpty || !copiesFailed.isEmpty
        }

        /// Reports compare by what they say.
        public static func == (lhs: Report, rhs: Report) -> Bool {
            lhs.wasArchived == rhs.wasArchived && lhs.examplesRemoved == rhs.examplesRemoved && lhs.unlearned == rhs.unlearned
                && lhs.copiesDeleted == rhs.copiesDeleted && lhs.copiesAlreadyGone == rhs.copiesAlreadyGone
                && lhs.copiesFailed.map(\.id) == rhs.copiesFailed.map(\.id)
        }
    }

    /// The archive.
    public let archive: any PostArchive
    /// The training examples.
    public let examples: any TrainingExamples
    /// The classifier whose word counts are taken back (its tokenizer makes the features).
    public let classifier: FavoriteClassifier
    /// The network where the bot's copies are deleted.
    public let network: any MirrorNetwork

    /// A forgetter over these stores and this network.
    public init(archive: any PostArchive, examples: any TrainingExamples, classifier: FavoriteClassifier, network: any MirrorNetwork) {
        self.archive = archive
        self.examples = examples
        self.classifier = classifier
        self.network = network
    }

    /// The post id in `text`: the id itself (one word with a digit in it, as the network writes it: a handle typed by
    /// mistake is not taken for an id), or the last part of a post's
    /// address: x.com's and twitter.com's `/<user>/status/<id>`, a Mastodon instance's `/@user/<id>` or
    /// `/users/user/statuses/<id>`, a Misskey instance's `/notes/<id>`, bsky.app's `/profile/<handle>/post/<id>`;
    /// nil when there is none.
    public static func postID(in text: String) -> PostID? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: trimmed), url.scheme == "https" || url.scheme == "http" else {
            let isOneWord = !trimmed.contains { $0.isWhitespace || $0 == "/" } && !trimmed.hasPrefix("-")
            let hasDigit = trimmed.contains { $0.isASCII && $0.isNumber } && trimmed.contains { $0.isASCII && $0.isNumber && $0 != "0" }
            return isOneWord && hasDigit ? PostID(trimmed) : nil
        }
        let components = url.path.split(separator: "/").map(String.init)
        guard let last = components.last else { return nil }
        let before = components.dropLast().last ?? ""
        guard ["status", "statuses", "notes", "post"].contains(before) || before.hasPrefix("@") else { return nil }
        return PostID(last)
    }

    /// Forgets `postID` everywhere. The stores go first (one statement each); then the bot's copies are deleted on
    /// the network one by one, each failure said and left for a later run.
    public func forget(_ postID: PostID) async throws -> Report {
        var report = Report()
        let copies = try await archive.botCopies(of: postID)
        report.wasArchived = try await archive.remove(postID: postID)
        let removed = try await examples.remove(postID: postID.text)
        report.examplesRemoved = removed.map(\.label)
        // A liked post was counted as favorite (and taken out of normal when learned there first): the favorite
        // count goes; a post only seen goes from normal.
        if let example = removed.first(where: { $0.label == Category.favorite.rawValue }) ?? removed.first {
            let category = Category(rawValue: example.label) ?? .normal
            try await classifier.unlearn(.init(text: example.text, authorUsername: example.author), from: category)
            report.unlearned = category
        }
        for copy in copies {
            do {
                if try await network.deletePost(copy.text, for: .posts) {
                    report.copiesDeleted.append(copy)
                } else {
                    report.copiesAlreadyGone.append(copy)
                }
            } catch let error as NetworkError {
                report.copiesFailed.append((copy, error.description))
            }
        }
        return report
    }
}
