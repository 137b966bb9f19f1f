import Classifier
import Foundation
import RedisClient
import RedisWordCounts
import TestSupport
import Testing
import Tokenizer
import WordCounts

@Suite("The favorite classifier on Redis and MeCab", .serialized)
struct FavoriteClassifierTests {
    static let tokenizer: PostTokenizer = try! PostTokenizer()

    func makeClassifier(threshold: Double = 3) throws -> FavoriteClassifier {
        let store = RedisWordCounts(connection: try TestServers.redisConnection(), keyPrefix: TestServers.uniqueName("classifier") + ":")
        return FavoriteClassifier(store: store, tokenizer: Self.tokenizer, threshold: threshold)
    }

    @Test("Features are the nouns plus @author")
    func features() throws {
        let classifier = try makeClassifier()
        #expect(try classifier.features(of: .init(text: "今日は寿司を食べた", authorUsername: "alice")) == ["今日", "寿司", "@alice"])
        #expect(try classifier.features(of: .init(text: "今日は寿司を食べた")) == ["今日", "寿司"])
    }

    @Test("Learns what the human likes and classifies a batch in one round trip")
    func learnsAndClassifies() async throws {
        let classifier = try makeClassifier()
        let liked = (0..<30).map { FavoriteClassifier.Post(text: "美味しい寿司とラーメン \($0 % 3 == 0 ? "猫" : "犬")", authorUsername: "alice") }
        let seen = (0..<60).map { FavoriteClassifier.Post(text: "明日の会議の資料 \($0 % 2 == 0 ? "電車" : "遅延")", authorUsername: "bob") }
        try await classifier.learn(liked, as: .favorite)
        try await classifier.learn(seen, as: .normal)

        let before = (try #require(classifier.store as? RedisWordCounts)).connection.statistics.roundTrips
        let verdicts = try await classifier.classify([
            .init(text: "寿司が食べたい", authorUsername: "alice"),
            .init(text: "会議が長い", authorUsername: "bob"),
            .init(text: "寿司屋で会議", authorUsername: "carol"),
        ])
        #expect((try #require(classifier.store as? RedisWordCounts)).connection.statistics.roundTrips - before == 1)
        #expect(verdicts.map(\.isFavorite) == [true, false, false])
        #expect(verdicts[0].score.logRatio > log(3))
        #expect(verdicts[1].score.logRatio < 0)
        #expect(verdicts[0].features.contains("@alice"))
        try await classifier.store.removeAll()
    }

    @Test("A verdict says whether to keep a post for the like slots: above the keeping bar, which is never above the threshold")
    func keepingBar() async throws {
        let classifier = try makeClassifier()
        try await classifier.learn((0..<30).map { _ in .init(text: "美味しい寿司とラーメン", authorUsername: "alice") }, as: .favorite)
        try await classifier.learn((0..<60).map { _ in .init(text: "明日の会議の資料", authorUsername: "bob") }, as: .normal)
        let posts: [FavoriteClassifier.Post] = [
            .init(text: "寿司が食べたい", authorUsername: "alice"), .init(text: "寿司屋で会議", authorUsername: "carol"),
            .init(text: "会議が長い", authorUsername: "bob"),
        ]
        let scores = try await classifier.classify(posts).map(\.score.logRatio)
        #expect(scores[0] > log(3) && scores[1] < log(3) && scores[1] > scores[2], "\(scores)")
        // Without a keeping bar, what is kept is what is liked.
        #expect(try await classifier.classify(posts).map(\.isCandidate) == [true, false, false])
        // A bar between the second and third: the second is kept, not liked.
        let bar = exp((scores[1] + scores[2]) / 2)
        classifier.decide(with: .original, threshold: 3, keepingThreshold: bar)
        #expect(classifier.keepingThreshold == bar)
        let verdicts = try await classifier.classify(posts)
        #expect(verdicts.map(\.isFavorite) == [true, false, false] && verdicts.map(\.isCandidate) == [true, true, false])
        // A bar above the threshold is the threshold: a post it likes is always kept.
        classifier.decide(with: .original, threshold: 3, keepingThreshold: 50)
        #expect(classifier.keepingThreshold == 3)
        // A calibration's choice, all at once.
        classifier.decide(
            by: ThresholdCalibration.Result(model: .binary, threshold: 2, keepingThreshold: 1.5, favorites: 100, normals: 100, folds: 5))
        #expect(classifier.model == .binary && classifier.threshold == 2 && classifier.keepingThreshold == 1.5)
        try await classifier.store.removeAll()
    }

    @Test("Learning a favorite takes it out of normal, in one round trip for the batch")
    func favoriteMovesOutOfNormal() async throws {
        let classifier = try makeClassifier()
        let post = FavoriteClassifier.Post(text: "新しいカメラ", authorUsername: "dave")
        try await classifier.learn([post], as: .normal)
        let before = (try #require(classifier.store as? RedisWordCounts)).connection.statistics.roundTrips
        try await classifier.learn([post, .init(text: "桜の写真")], as: .favorite)
        #expect((try #require(classifier.store as? RedisWordCounts)).connection.statistics.roundTrips - before == 1)
        let counts = try await classifier.store.counts(for: ["カメラ", "@dave", "写真"])
        #expect(counts.count(of: "カメラ", in: .normal) == 0)
        #expect(counts.count(of: "カメラ", in: .favorite) == 1)
        #expect(counts.count(of: "@dave", in: .favorite) == 1)
        #expect(counts.count(of: .normal) == 0)
        #expect(counts.count(of: .favorite) == 2)
        try await classifier.store.removeAll()
    }

    /// A tokenizer that refuses texts with 💥, as MeCab refuses a text it cannot parse; the others go to MeCab.
    struct RefusingTokenizer: NounTokenizer {
        struct Refused: Error, CustomStringConvertible { var description: String { "MeCab could not parse it" } }
        func nouns(in text: String) throws -> [String] {
            if text.contains("💥") { throw Refused() }
            return try FavoriteClassifierTests.tokenizer.nouns(in: text)
        }
    }

    @Test("A text the tokenizer refuses skips that one post with a reason: not liked, not learned; the rest of the batch goes on")
    func refusedTextSkipsOnePost() async throws {
        let store = RedisWordCounts(connection: try TestServers.redisConnection(), keyPrefix: TestServers.uniqueName("refused") + ":")
        let classifier = FavoriteClassifier(store: store, tokenizer: RefusingTokenizer(), threshold: 1.5)
        try await classifier.learn((0..<20).map { _ in .init(text: "寿司とラーメン") } + [.init(text: "寿司💥")], as: .favorite)
        try await classifier.learn((0..<20).map { _ in .init(text: "会議の資料") }, as: .normal)
        #expect(try await store.counts(for: ["寿司"]).count(of: .favorite) == 20)

        let verdicts = try await classifier.classify([.init(text: "寿司が食べたい"), .init(text: "寿司💥"), .init(text: "会議")])
        #expect(verdicts.map(\.isFavorite) == [true, false, false])
        #expect(verdicts.map { $0.refusal != nil } == [false, true, false])
        #expect(verdicts[1].refusal?.contains("the tokenizer refused its text (MeCab could not parse it)") == true)

        let learned = try await classifier.learnOnce([("a", .init(text: "猫の写真")), ("b", .init(text: "猫💥"))], as: .favorite, source: .likes)
        #expect(learned == 1)
        let (a, b) = (try await store.wasLearnedAsFavorite("a"), try await store.wasLearnedAsFavorite("b"))
        #expect(a && !b)
        _ = try await store.removeAll()
    }
}
