import ArgumentParser
import BotAssembly
import Classifier
import Foundation
import Stores
import Training

/// `mirror_bot classify`: says whether the bot would like each post read from standard input, and why.
struct ClassifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Says, for each line of standard input, whether the bot would like that post.",
        discussion: """
            Each line is a post: plain text, or JSON {"text": ..., "author": "username"}. Prints per line the \
            decision and the natural log of score(favorite) / score(normal); a post is liked when that ratio exceeds \
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
            let decision = try await LikeDecision.apply(
                to: classifier, settings: configuration.likeSettings, database: parts.database, calibrateIfMissing: stats)
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
        // A pipeline: while the word counts answer for one batch, the next batch's lines are read and tokenized (on every
        // core); each batch's lines are written out at once.
        var reader = LineReader(handle: FileHandle.standardInput)
        var current: (posts: [FavoriteClassifier.Post], prepared: Task<FavoriteClassifier.PreparedBatch, Never>)?
        while true {
            var batch: [FavoriteClassifier.Post] = []
            while batch.count < Self.batchSize, let line = try reader.nextLine() { batch.append(Self.post(fromLine: line)) }
            let next = batch.isEmpty ? nil : (batch, Task { [batch] in await classifier.prepare(batch) })
            if let current {
                let verdicts = try await classifier.decide(await current.prepared.value)
                FileHandle.standardOutput.write(Data(output(current.posts, verdicts).utf8))
            }
            guard let next else { break }
            current = next
        }
    }

    /// Lines classified together: one read of the word counts each.
    static let batchSize = 2_000

    /// A batch's lines of output.
    private func output(_ posts: [FavoriteClassifier.Post], _ verdicts: [FavoriteClassifier.Verdict]) -> String {
        var text = ""
        text.reserveCapacity(posts.count * 96)
        for (post, verdict) in zip(posts, verdicts) {
            text += json ? Self.jsonLine(verdict, explain: explain) : Self.textLine(post, verdict, explain: explain)
            text += "\n"
        }
        return text
    }

    /// A line of JSON input: its text and, when given, its author.
    private struct JSONLine: Decodable {
        var text: String
        var author: String?
    }

    /// A line as a post: JSON with `text` (and `author`) when it parses as such, else the line itself.
    static func post(fromLine line: String) -> FavoriteClassifier.Post {
        if line.hasPrefix("{"), let object = try? JSONDecoder().decode(JSONLine.self, from: Data(line.utf8)) {
            let author = object.author.map { $0.hasPrefix("@") ? String($0.dropFirst()) : $0 }
            return FavoriteClassifier.Post(text: object.text, authorUsername: author)
        }
        return FavoriteClassifier.Post(text: line)
    }

    static func textLine(_ post: FavoriteClassifier.Post, _ verdict: FavoriteClassifier.Verdict, explain: Bool) -> String {
        var line = (verdict.isFavorite ? "like " : "skip ") + String(format: "%+8.3f  ", verdict.score.logRatio) + post.text
        if explain {
            let strongest = verdict.score.strongestContributions()
            let toward = strongest.towardFavorite.map { String(format: "%@ %+.2f", $0.feature, $0.logRatio) }
            let against = strongest.towardNormal.map { String(format: "%@ %+.2f", $0.feature, $0.logRatio) }
            line +=
                "\n      for: " + (toward.isEmpty ? "-" : toward.joined(separator: ", "))
                + "\n      against: " + (against.isEmpty ? "-" : against.joined(separator: ", "))
        }
        return line
    }

    static func jsonLine(_ verdict: FavoriteClassifier.Verdict, explain: Bool) -> String {
        // JSON has no infinity or NaN: an untrained or one-sided filter gives null.
        let ratio = verdict.score.logRatio
        guard explain else {
            // The common case written directly, keys in the order `.sortedKeys` gives them.
            var line = verdict.isFavorite ? #"{"favorite":true,"features":["# : #"{"favorite":false,"features":["#
            for (index, feature) in verdict.features.enumerated() {
                if index > 0 { line += "," }
                JSONText.appendString(feature, to: &line)
            }
            line += #"],"log_ratio":"# + (ratio.isFinite ? "\(ratio)" : "null") + "}"
            return line
        }
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

/// Lines of a file handle, read a megabyte at a time (standard input of any length, in little memory).
struct LineReader {
    let handle: FileHandle
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false

    init(handle: FileHandle) { self.handle = handle }

    /// The next line without its line break (a `\r\n` as `\n`), or nil after the last.
    mutating func nextLine() throws -> String? {
        while true {
            if let end = buffer[position...].firstIndex(of: 0x0A) {
                var line = buffer[position..<end]
                if line.last == 0x0D { line = line.dropLast() }
                position = end + 1
                return String(decoding: line, as: UTF8.self)
            }
            if atEnd {
                guard position < buffer.count else { return nil }
                defer { position = buffer.count }
                return String(decoding: buffer[position...], as: UTF8.self)
            }
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            if chunk.isEmpty { atEnd = true }
            buffer.removeFirst(position)
            position = 0
            buffer.append(contentsOf: chunk)
        }
    }
}

/// JSON text written by hand, for output read by machines in bulk.
enum JSONText {
    /// Appends `value` as a JSON string: quotes, backslashes and control characters escaped.
    static func appendString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case let control where control.value < 0x20: text += String(format: "\\u%04x", control.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
