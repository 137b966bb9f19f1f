import Stores
import ArgumentParser
import Classifier
import Foundation
import Training
import BotAssembly

/// `mirror_bot classify`: says whether the bot would like each tweet read from standard input, and why.
struct ClassifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Says, for each line of standard input, whether the bot would like that tweet.",
        discussion: """
            Each line is a tweet: plain text, or JSON {"text": ..., "author": "username"}. Prints per line the \
            decision and the natural log of score(favorite) / score(normal); a tweet is liked when that ratio exceeds \
            the like threshold: FAVORITE_RATE_THRESHOLD, or with auto (the default) the calibrated one, whose model \
            and figures --stats prints. Lines are classified in batches, one read of the word counts per batch.
            """
    )

    @Flag(help: "Print how likes are decided (the model, the threshold and its cross-validated figures) and the training examples, then exit.")
    var stats = false

    @Flag(help: "Print one JSON object per line: {\"favorite\", \"log_ratio\", \"features\"}.")
    var json = false

    @Flag(help: "Add the five features pushing most toward each side.")
    var explain = false

    func run() async throws {
        let context = try CommandContext.load(requiring: [])
        let configuration = context.configuration
        let parts = try BotParts(configuration: configuration, logger: context.logger)
        let classifier = try parts.classifier()
        let stats = stats
        let (decision, examples, timeline) = try await parts.withRunning { parts in
            let decision = try await LikeDecision.apply(to: classifier, settings: configuration.likeSettings, database: parts.database, calibrateIfMissing: stats)
            let examples = parts.examples
            return (decision, try await examples.count(), try await examples.timelineLikes())
        }
        if stats {
            print("Likes: \(decision).")
            let share = timeline.seen > 0 ? String(format: " (%.0f%%)", Double(timeline.liked) / Double(timeline.seen) * 100) : ""
            print("Training examples: \(examples) stored; of \(timeline.seen) timeline posts the human saw, they liked \(timeline.liked)\(share).")
            return
        }
        FileHandle.standardError.write(Data("Deciding with the \(decision).\n".utf8))
        var batch: [FavoriteClassifier.Tweet] = []
        while let line = readLine() {
            batch.append(Self.tweet(fromLine: line))
            if batch.count == 500 {
                try await printVerdicts(for: batch, classifier: classifier)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try await printVerdicts(for: batch, classifier: classifier)
    }

    private func printVerdicts(for tweets: [FavoriteClassifier.Tweet], classifier: FavoriteClassifier) async throws {
        for (tweet, verdict) in zip(tweets, try await classifier.classify(tweets)) {
            print(json ? Self.jsonLine(verdict, explain: explain) : Self.textLine(tweet, verdict, explain: explain))
        }
    }

    /// A line as a tweet: JSON with `text` (and `author`) when it parses as such, else the line itself.
    static func tweet(fromLine line: String) -> FavoriteClassifier.Tweet {
        if line.hasPrefix("{"), let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
           let text = object["text"] as? String {
            let author = (object["author"] as? String).map { $0.hasPrefix("@") ? String($0.dropFirst()) : $0 }
            return FavoriteClassifier.Tweet(text: text, authorUsername: author)
        }
        return FavoriteClassifier.Tweet(text: line)
    }

    static func textLine(_ tweet: FavoriteClassifier.Tweet, _ verdict: FavoriteClassifier.Verdict, explain: Bool) -> String {
        var line = (verdict.isFavorite ? "like " : "skip ") + String(format: "%+8.3f  ", verdict.score.logRatio) + tweet.text
        if explain {
            let strongest = verdict.score.strongestContributions()
            let toward = strongest.towardFavorite.map { String(format: "%@ %+.2f", $0.feature, $0.logRatio) }
            let against = strongest.towardNormal.map { String(format: "%@ %+.2f", $0.feature, $0.logRatio) }
            line += "\n      for: " + (toward.isEmpty ? "-" : toward.joined(separator: ", "))
                + "\n      against: " + (against.isEmpty ? "-" : against.joined(separator: ", "))
        }
        return line
    }

    static func jsonLine(_ verdict: FavoriteClassifier.Verdict, explain: Bool) -> String {
        // JSON has no infinity or NaN: an untrained or one-sided filter gives null.
        let ratio = verdict.score.logRatio
        var object: [String: Any] = [
            "favorite": verdict.isFavorite, "log_ratio": ratio.isFinite ? ratio : NSNull(), "features": verdict.features,
        ]
        if explain {
            let strongest = verdict.score.strongestContributions()
            object["toward_favorite"] = strongest.towardFavorite.map { ["feature": $0.feature, "log_ratio": $0.logRatio] }
            object["toward_normal"] = strongest.towardNormal.map { ["feature": $0.feature, "log_ratio": $0.logRatio] }
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
