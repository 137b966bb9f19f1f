import BotConfiguration
import Classifier
import FakeX
import Foundation
import Logging
import RedisClient
import Stores
import TestSupport
import Testing
import Tokenizer
import Training
import WordCounts
import XAPI
import XNetwork

@Suite("Training against the fake X server", .serialized)
struct TrainerTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let human = AccountCredentials(consumerKey: "hk", consumerSecret: "hs", accessToken: "100-t", accessTokenSecret: "hts")
    static let tokenizer: PostTokenizer = try! PostTokenizer()

    static var quiet: Logger { Logger(label: "training", factory: { _ in SwiftLogNoOpLogHandler() }) }

    /// 3,500 tweets of the human (every 7th a retweet, every 5th a reply to user 300), 60 of a friend the human
    /// follows, the human liking 20 of the friend's.
    static var seed: FakeXSeed {
        var tweets: [FakeXSeed.Tweet] = []
        for index in 0..<3_500 {
            let createdAt = start.addingTimeInterval(Double(index - 3_500) * 600)
            if index % 7 == 3 {
                tweets.append(.init(id: String(10_000 + index), authorID: "100", text: "RT @friend: 何か", createdAt: createdAt, retweetOf: "90000"))
            } else {
                tweets.append(
                    .init(
                        id: String(10_000 + index), authorID: "100", text: "寿司 &amp; ラーメン \(index) https://t.co/\(index)",
                        createdAt: createdAt, inReplyToUserID: index % 5 == 0 ? "300" : nil,
                        urls: [.init(url: "https://t.co/\(index)", expandedURL: "https://example.com/\(index)")]))
            }
        }
        for index in 0..<60 {
            tweets.append(
                .init(
                    id: String(20_000 + index), authorID: "300", text: index < 20 ? "猫の写真 \(index)" : "会議の資料 \(index)",
                    createdAt: start.addingTimeInterval(Double(index - 60) * 30)))
        }
        return FakeXSeed(
            now: start,
            users: [.init(id: "100", username: "human"), .init(id: "300", username: "friend")],
            accounts: [.init(userID: "100", consumerKey: "hk", consumerSecret: "hs", accessToken: "100-t", accessTokenSecret: "hts")],
            tweets: tweets, likes: ["100": (0..<20).map { String(20_000 + $0) }], follows: ["100": ["300"]])
    }

    func withTrainer(_ backends: StoreBackends, _ body: (Trainer, FakeXServer, XClient, any StoreSet) async throws -> Void) async throws {
        let server = FakeXServer(seed: Self.seed, logger: Self.quiet)
        try await server.withRunning { url in
            let client = XClient(configuration: .init(baseURL: url, credentials: [.human: Self.human]), logger: Self.quiet)
            try await TestServers.withStores(backends) { database, store async throws in
                let classifier = FavoriteClassifier(
                    store: store, tokenizer: Self.tokenizer, threshold: 3, examples: ExampleRecorder(database.examples))
                let archive = database.archive(timeZone: TimeZone(identifier: "UTC")!, rowLimit: 10_000)
                try await archive.prepare()
                try await body(
                    Trainer(network: XMirrorNetwork(client: client), archive: archive, classifier: classifier, logger: Self.quiet), server, client,
                    database)
            }
        }
    }

    @Test("train scheduler archives the 3,200 most recent tweets without retweets, keeps replies, and runs once", arguments: StoreBackends.all)
    func scheduler(_ backend: StoreBackends) async throws {
        try await withTrainer(backend) { trainer, server, _, _ in
            let report = try await trainer.trainScheduler(force: false)
            // The 3,200 most recent are indexes 300..<3500; of those, every 7th (index % 7 == 3) is a retweet.
            let expected = (300..<3_500).filter { $0 % 7 != 3 }
            #expect(report.stored == expected.count)
            #expect(report.pages == (expected.count + 99) / 100)  // retweets are excluded by the server, so fewer pages
            #expect(try await trainer.archive.count() == expected.count)
            let newest = try await trainer.archive.newest(limit: 1)[0]
            #expect(newest.postID == 13_499)
            #expect(newest.text == "寿司 & ラーメン 3499 https://example.com/3499")  // unescaped, links expanded
            var generator = SeededGenerator(seed: 1)
            #expect(try await trainer.archive.randomReply(toUser: 300, using: &generator) != nil)
            #expect(try await trainer.classifier.store.isTrained("scheduler"))

            let calls = await server.requestCounts()[GetUserTweets.name]
            let again = try await trainer.trainScheduler(force: false)
            #expect(again.skipped)
            #expect(await server.requestCounts()[GetUserTweets.name] == calls)
            let forced = try await trainer.trainScheduler(force: true)
            #expect(!forced.skipped)
            #expect(forced.stored == 0)
        }
    }

    @Test("train classifier learns the likes as favorite and the rest of the timeline as normal, once", arguments: StoreBackends.all)
    func classifier(_ backend: StoreBackends) async throws {
        try await withTrainer(backend) { trainer, server, client, _ in
            let report = try await trainer.trainClassifier(force: false)
            #expect(report.favorites == 20)
            #expect(report.normals == 40)  // the friend's 60 minus the 20 liked; the human's own tweets are not learned
            let counts = try await trainer.classifier.store.counts(for: ["猫", "会議", "@friend"])
            #expect(counts.count(of: "猫", in: .favorite) == 20)
            #expect(counts.count(of: "会議", in: .normal) == 40)
            #expect(counts.count(of: "@friend", in: .favorite) == 20)
            #expect(counts.count(of: .favorite) == 20)
            #expect(counts.count(of: .normal) == 40)
            let verdicts = try await trainer.classifier.classify([.init(text: "猫がかわいい", authorUsername: "friend"), .init(text: "会議室")])
            #expect(verdicts.map(\.isFavorite) == [true, false])
            let calls = client.usage.total.calls
            #expect(try await trainer.trainClassifier(force: false).skipped)
            #expect(client.usage.total.calls == calls)
            _ = server
        }
    }

    @Test("train clear empties the archive and the counts", arguments: StoreBackends.all)
    func clear(_ backend: StoreBackends) async throws {
        try await withTrainer(backend) { trainer, _, _, _ in
            _ = try await trainer.trainScheduler(force: false)
            _ = try await trainer.trainClassifier(force: false)
            let (tweets, keys) = try await trainer.clear()
            #expect(tweets > 2_000)
            #expect(keys > 5)
            #expect(try await trainer.archive.count() == 0)
            #expect(try await !trainer.classifier.store.isTrained("scheduler"))
        }
    }

    @Test(
        "rebuild reproduces the counts of incremental learning exactly from the stored examples, keeping the training flags",
        arguments: StoreBackends.all)
    func rebuild(_ backend: StoreBackends) async throws {
        try await withTrainer(backend) { trainer, _, _, database in
            _ = try await trainer.trainClassifier(force: false)
            // Then as the daemon learns: timeline tweets as normal, one of them liked later, a like never seen on the
            // timeline (it takes its words out of normal, never below zero), and a repeat that changes nothing.
            let classifier = trainer.classifier
            let cat = FavoriteClassifier.Post(text: "猫と会議の写真", authorUsername: "friend")
            let sushi = FavoriteClassifier.Post(text: "寿司の写真", authorUsername: "taro")
            try await classifier.learnOnce([("30001", cat), ("30002", sushi)], as: .normal, source: .timeline)
            try await classifier.learnOnce([("30001", cat)], as: .favorite, source: .likes)
            try await classifier.learnOnce([("30003", .init(text: "会議と電車", authorUsername: "boss"))], as: .favorite, source: .likes)
            try await classifier.learnOnce([("30002", sushi)], as: .normal, source: .timeline)

            let examples = database.examples
            let stored = try await examples.all()
            // 20 likes, 40 timeline tweets not liked, 20 liked on the timeline, then the five calls above (the repeat skipped).
            #expect(stored.count == 84)
            let sequences = stored.compactMap(\.sequence)
            #expect(sequences.count == stored.count)
            #expect(sequences == sequences.sorted())
            #expect(try await examples.recent(limit: 3) == Array(stored.suffix(3)))
            let timeline = try await examples.timelineLikes()
            #expect(timeline.seen == 62)  // 40 + 20 from training, then 30001 and 30002
            #expect(timeline.liked == 21)  // the 20 liked on the timeline, and 30001
            let features = try Set(stored.flatMap { try classifier.features(of: .init(text: $0.text, authorUsername: $0.author)) }).sorted()
            let incremental = try await classifier.store.counts(for: features)
            #expect(incremental.count(of: .favorite) == 22 && incremental.count(of: .normal) == 40)  // 42 seen, two moved to favorite

            let report = try await CountsRebuilder(examples: examples, classifier: classifier).rebuild()
            #expect(report.examples == stored.count)
            #expect(try await classifier.store.counts(for: features) == incremental)
            #expect(try await classifier.store.isTrained("classifier"))
            #expect(try await classifier.store.wasLearnedAsFavorite("30003"))
            #expect(try await examples.count() == stored.count)  // rebuilding records nothing new

            // With no examples, a rebuild refuses and leaves the counts as they are.
            try await examples.removeAll()
            await #expect(throws: CountsRebuilder.NoExamples.self) { try await CountsRebuilder(examples: examples, classifier: classifier).rebuild() }
            #expect(try await classifier.store.counts(for: features) == incremental)
        }
    }
}
