import Classifier
import Foundation
import SQLiteStores
import Tokenizer
import WordCounts

/// `likes-benchmark`: how well the bot's likes match a generated human's, for each way of deciding, on the same
/// training and held-out posts; writes the features for `script/likes_peer.py` (scikit-learn's naive Bayes).
/// Run it with `script/bench-likes`, which runs both and prints one table. `likes-benchmark days ...` runs
/// `LikeDaysBenchmark` instead.
@main
struct LikesBenchmark {
    struct Row: Codable {
        var decision: String
        var precision: Double
        var recall: Double
        var f1: Double
        var f05: Double
        var likeShare: Double
    }

    struct Output: Codable {
        var rows: [Row]
        var testLikeShare: Double
        var train: [[String]]
        var trainLabels: [Int]
        var test: [[String]]
        var testLabels: [Int]
    }

    static func main() async throws {
        if CommandLine.arguments.dropFirst().first == "days" { return try await LikeDaysBenchmark.main(Array(CommandLine.arguments.dropFirst(2))) }
        let arguments = CommandLine.arguments.dropFirst()
        let outputPath = arguments.first ?? "likes-benchmark.json"
        let seed = arguments.dropFirst().first.flatMap(UInt64.init) ?? 2026

        // The human: recent likes (including those on the timeline read) and a timeline read as the original trains.
        var persona = LikingPersona(seed: seed)
        var timeline: [LikingPersona.Post] = []
        while timeline.filter({ !$0.liked }).count < 800 { timeline.append(persona.post()) }
        let likedOnTimeline = timeline.filter(\.liked)
        let likes = likedOnTimeline + persona.likedPosts(800 - likedOnTimeline.count)
        let normals = timeline.filter { !$0.liked }
        let test = (0..<600).map { _ in persona.post() }
        let humanShare = Double(likedOnTimeline.count) / Double(timeline.count)

        let folder = FileManager.default.temporaryDirectory.appending(path: "likes-benchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let classifier = FavoriteClassifier(
            store: try SQLiteWordCounts(path: folder.appending(path: "counts.sqlite").path),
            tokenizer: try PostTokenizer(), threshold: 3)
        func post(_ post: LikingPersona.Post) -> FavoriteClassifier.Post { .init(text: post.text, authorUsername: post.author) }
        // As `train classifier`: the likes as favorite, then the timeline's other posts as normal.
        try await classifier.learnOnce(likes.map { ($0.id, post($0)) }, as: .favorite, source: .likes)
        try await classifier.learnOnce(normals.map { ($0.id, post($0)) }, as: .normal, source: .timeline)

        let testPosts = test.map(post)
        let truth = test.map(\.liked)
        var rows: [Row] = []
        func measure(_ name: String, _ model: ClassifierModel, _ threshold: Double) async throws {
            classifier.decide(with: model, threshold: threshold)
            let predicted = try await classifier.classify(testPosts).map(\.isFavorite)
            rows.append(Self.row(name, predicted: predicted, truth: truth))
        }
        for threshold in [3.0, 2.0, 1.0] {
            try await measure(
                "original formula, threshold \(threshold)\(threshold == 3 ? " (the original's default)" : threshold == 2 ? " (the original's deploy value)" : "")",
                .original, threshold)
        }
        let examples = try (likes + normals).map {
            ThresholdCalibration.Example(postID: $0.id, features: try classifier.features(of: post($0)), isFavorite: $0.liked)
        }
        for (name, models) in [
            ("auto: model and threshold by cross-validation (the default)", [ClassifierModel.original, .binary]),
            ("original formula, threshold by cross-validation", [.original]),
            ("binary naive Bayes, threshold by cross-validation", [.binary]),
        ] {
            let result = ThresholdCalibration.calibrate(examples, humanLikeShare: humanShare, models: models, fallbackThreshold: 3)
            try await measure(name + String(format: " [%@, %.3g]", result.model.rawValue, result.threshold), result.model, result.threshold)
        }

        let output = Output(
            rows: rows, testLikeShare: Double(truth.filter { $0 }.count) / Double(truth.count),
            train: examples.map(\.features), trainLabels: examples.map { $0.isFavorite ? 1 : 0 },
            test: try testPosts.map(classifier.features(of:)), testLabels: truth.map { $0 ? 1 : 0 })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        try encoder.encode(output).write(to: URL(fileURLWithPath: outputPath))
        print(
            String(
                format:
                    "Persona (seed %llu): the human likes %.0f%% of their timeline (%d of %d read); trained on %d likes and %d non-liked timeline posts; judged on %d unseen timeline posts (%.0f%% liked).",
                seed, humanShare * 100, likedOnTimeline.count, timeline.count, likes.count, normals.count, test.count, output.testLikeShare * 100))
        print("Features written to \(outputPath).")
    }

    static func row(_ decision: String, predicted: [Bool], truth: [Bool]) -> Row {
        let truePositives = Double(zip(predicted, truth).filter { $0 && $1 }.count)
        let predictedPositives = Double(predicted.filter { $0 }.count)
        let positives = Double(truth.filter { $0 }.count)
        let figures = ThresholdCalibration.Figures(
            precision: predictedPositives > 0 ? truePositives / predictedPositives : 0,
            recall: positives > 0 ? truePositives / positives : 0,
            likeShare: predictedPositives / Double(predicted.count))
        return Row(
            decision: decision, precision: figures.precision, recall: figures.recall, f1: figures.f(beta: 1), f05: figures.f(beta: 0.5),
            likeShare: figures.likeShare)
    }
}
