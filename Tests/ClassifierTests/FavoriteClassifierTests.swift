import Classifier
import Foundation
import RedisClient
import Testing
import TestSupport
import Tokenizer
import WordCounts

@Suite("The favorite classifier on Redis and MeCab", .serialized)
struct FavoriteClassifierTests {
    static let tokenizer: TweetTokenizer = try! TweetTokenizer()

    func makeClassifier(threshold: Double = 3) throws -> FavoriteClassifier {
        let store = WordCountStore(connection: try TestServers.redisConnection(), keyPrefix: TestServers.uniqueName("classifier") + ":")
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
        let liked = (0..<30).map { FavoriteClassifier.Tweet(text: "美味しい寿司とラーメン \($0 % 3 == 0 ? "猫" : "犬")", authorUsername: "alice") }
        let seen = (0..<60).map { FavoriteClassifier.Tweet(text: "明日の会議の資料 \($0 % 2 == 0 ? "電車" : "遅延")", authorUsername: "bob") }
        try await classifier.learn(liked, as: .favorite)
        try await classifier.learn(seen, as: .normal)

        let before = (try #require(classifier.store as? WordCountStore)).connection.statistics.roundTrips
        let verdicts = try await classifier.classify([
            .init(text: "寿司が食べたい", authorUsername: "alice"),
            .init(text: "会議が長い", authorUsername: "bob"),
            .init(text: "寿司屋で会議", authorUsername: "carol"),
        ])
        #expect((try #require(classifier.store as? WordCountStore)).connection.statistics.roundTrips - before == 1)
        #expect(verdicts.map(\.isFavorite) == [true, false, false])
        #expect(verdicts[0].score.logRatio > log(3))
        #expect(verdicts[1].score.logRatio < 0)
        #expect(verdicts[0].features.contains("@alice"))
        try await classifier.store.removeAll()
    }

    @Test("Learning a favorite takes it out of normal, in one round trip for the batch")
    func favoriteMovesOutOfNormal() async throws {
        let classifier = try makeClassifier()
        let tweet = FavoriteClassifier.Tweet(text: "新しいカメラ", authorUsername: "dave")
        try await classifier.learn([tweet], as: .normal)
        let before = (try #require(classifier.store as? WordCountStore)).connection.statistics.roundTrips
        try await classifier.learn([tweet, .init(text: "桜の写真")], as: .favorite)
        #expect((try #require(classifier.store as? WordCountStore)).connection.statistics.roundTrips - before == 1)
        let counts = try await classifier.store.counts(for: ["カメラ", "@dave", "写真"])
        #expect(counts.count(of: "カメラ", in: .normal) == 0)
        #expect(counts.count(of: "カメラ", in: .favorite) == 1)
        #expect(counts.count(of: "@dave", in: .favorite) == 1)
        #expect(counts.count(of: .normal) == 0)
        #expect(counts.count(of: .favorite) == 2)
        try await classifier.store.removeAll()
    }
}
