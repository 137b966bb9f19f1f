import BotClock
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

@testable import Daemon

@Suite("The learner", .serialized)
struct LearnerTests {
    static let start = Date(timeIntervalSince1970: 1_717_945_200)
    static let human = AccountCredentials(consumerKey: "hk", consumerSecret: "hs", accessToken: "100-t", accessTokenSecret: "hts")
    static let tokenizer: PostTokenizer = try! PostTokenizer()
    static var quiet: Logger { Logger(label: "learner", factory: { _ in SwiftLogNoOpLogHandler() }) }

    /// Liking chosen (`LIKES=on`) and not refused.
    static func likingOn(_ client: XClient) -> LikingPolicy {
        LikingPolicy(setting: .on, network: XMirrorNetwork(client: client))
    }

    @Test(
        "With liking off (LIKES=auto on X) only the human's new tweets are read: no timeline, no likes, nothing learned for the filter",
        arguments: StoreBackends.archives)
    func likingOffReadsOnlyPosts(_ backend: StoreBackends.ArchiveKind) async throws {
        let seed = FakeXSeed(
            now: Self.start, users: [.init(id: "100", username: "human"), .init(id: "300", username: "friend")],
            accounts: [.init(userID: "100", consumerKey: "hk", consumerSecret: "hs", accessToken: "100-t", accessTokenSecret: "hts")],
            tweets: [tweet(10_011, by: "100", "新しい投稿", minutesAgo: 30), tweet(20_001, by: "300", "猫の写真", minutesAgo: 50)],
            likes: ["100": ["20001"]], follows: ["100": ["300"]])
        let server = FakeXServer(seed: seed, logger: Self.quiet)
        try await TestServers.withStores(StoreBackends(archive: backend, counts: .sqlite)) { database, store async throws in
            let classifier = FavoriteClassifier(store: store, tokenizer: Self.tokenizer, threshold: 3)
            try await server.withRunning { url in
                let archive = database.archive(timeZone: .gmt, rowLimit: 100)
                let clock = ManualBotClock(now: Self.start)
                let client = XClient(configuration: .init(baseURL: url, credentials: [.human: Self.human]), clock: clock, logger: Self.quiet)
                let liking = LikingPolicy(setting: .auto, network: XMirrorNetwork(client: client))
                #expect(!liking.isActive)
                let learner = Learner(
                    clock: clock, state: database.state, archive: archive, classifier: classifier,
                    network: XMirrorNetwork(client: client), liking: liking, humanUserID: "100", logger: Self.quiet)
                try await learner.pollOnce()
                try await learner.pollOnce()
                #expect(try await archive.newest(limit: 5).map(\.postID) == [10_011])
                let requests = await server.requestCounts()
                #expect(requests[GetUserTweets.name] == 2)
                #expect(requests[GetHomeTimeline.name] == nil && requests[GetLikedTweets.name] == nil, "\(requests)")
                #expect(try await store.counts(for: ["猫"]).count(of: .favorite) == 0)
            }
        }
    }

    func tweet(_ id: Int, by author: String, _ text: String, minutesAgo: Double) -> FakeXSeed.Tweet {
        FakeXSeed.Tweet(id: String(id), authorID: author, text: text, createdAt: Self.start.addingTimeInterval(-minutesAgo * 60))
    }

    @Test(
        "New tweets go to the archive, new timeline tweets are learned as normal, new likes as favorite, each once",
        arguments: StoreBackends.all)
    func learnsWhatIsNew(_ backends: StoreBackends) async throws {
        let seed = FakeXSeed(
            now: Self.start,
            users: [.init(id: "100", username: "human"), .init(id: "300", username: "friend")],
            accounts: [.init(userID: "100", consumerKey: "hk", consumerSecret: "hs", accessToken: "100-t", accessTokenSecret: "hts")],
            tweets: [
                tweet(10_010, by: "100", "昨日の投稿", minutesAgo: 600), tweet(10_011, by: "100", "新しい投稿", minutesAgo: 30),
                tweet(10_012, by: "100", "もうひとつ &amp; 投稿", minutesAgo: 20),
                tweet(20_001, by: "300", "猫の写真", minutesAgo: 50), tweet(20_002, by: "300", "会議の資料", minutesAgo: 40),
            ],
            likes: ["100": ["20001"]], follows: ["100": ["300"]])
        let server = FakeXServer(seed: seed, logger: Self.quiet)
        try await TestServers.withStores(backends) { database, store async throws in
            let classifier = FavoriteClassifier(store: store, tokenizer: Self.tokenizer, threshold: 3)
            try await server.withRunning { url in
                let archive = database.archive(timeZone: TimeZone(identifier: "UTC")!, rowLimit: 1000)
                try await archive.insert([ArchivedPost(postID: 10_010, text: "昨日の投稿", createdAt: Self.start.addingTimeInterval(-36_000))])
                let clock = ManualBotClock(now: Self.start)
                let client = XClient(configuration: .init(baseURL: url, credentials: [.human: Self.human]), clock: clock, logger: Self.quiet)
                let learner = Learner(
                    clock: clock, state: database.state, archive: archive, classifier: classifier,
                    network: XMirrorNetwork(client: client), liking: Self.likingOn(client), humanUserID: "100", logger: Self.quiet)

                try await learner.pollOnce()
                #expect(try await archive.newest(limit: 5).map(\.postID) == [10_012, 10_011, 10_010])
                #expect(try await archive.newest(limit: 1).first?.text == "もうひとつ & 投稿")
                var counts = try await store.counts(for: ["猫", "会議"])
                #expect(counts.count(of: "猫", in: .favorite) == 1)  // the like
                #expect(counts.count(of: .normal) == 0)  // the first start only marks where the timeline stands

                await server.add(tweets: [tweet(20_003, by: "300", "猫のおもちゃ", minutesAgo: 5), tweet(20_004, by: "300", "会議室", minutesAgo: 4)])
                try await learner.pollOnce()
                counts = try await store.counts(for: ["猫", "会議", "おもちゃ"])
                #expect(counts.count(of: .normal) == 2)
                #expect(counts.count(of: "おもちゃ", in: .normal) == 1)
                #expect(counts.count(of: .favorite) == 1)  // the same like is not learned again

                // The human likes a tweet the timeline had taught as normal: it moves to favorite.
                await server.add(likes: ["20003"], by: "100")
                try await learner.pollOnce()
                counts = try await store.counts(for: ["おもちゃ"])
                #expect(counts.count(of: "おもちゃ", in: .favorite) == 1)
                #expect(counts.count(of: "おもちゃ", in: .normal) == 0)
                #expect(counts.count(of: .favorite) == 2)
                #expect(counts.count(of: .normal) == 1)
                try await learner.pollOnce()
                #expect(try await store.counts(for: ["おもちゃ"]) == counts)
            }
        }
    }

    @Test(
        "With FAVORITE_RATE_THRESHOLD=auto the learner calibrates again once a day of bot time, and the classifier follows",
        arguments: StoreBackends.archives)
    func recalibratesDaily(_ backend: StoreBackends.ArchiveKind) async throws {
        let seed = FakeXSeed(
            now: Self.start, users: [.init(id: "100", username: "human"), .init(id: "300", username: "friend")],
            accounts: [.init(userID: "100", consumerKey: "hk", consumerSecret: "hs", accessToken: "100-t", accessTokenSecret: "hts")],
            follows: ["100": ["300"]])
        let server = FakeXServer(seed: seed, logger: Self.quiet)
        try await TestServers.withStores(StoreBackends(archive: backend, counts: .sqlite)) { database, store async throws in
            let examples = database.examples
            let classifier = FavoriteClassifier(store: store, tokenizer: Self.tokenizer, threshold: 3, examples: ExampleRecorder(examples))
            let calibrator = Calibrator(
                examples: examples, state: database.state, classifier: classifier,
                models: [.original, .binary], fallbackThreshold: 3)
            // What training left: 60 liked posts about cats, 60 seen and not liked about meetings.
            try await classifier.learnOnce(
                (0..<60).map { (id: "c\($0)", post: .init(text: "猫の写真と公園", authorUsername: "friend")) },
                as: .favorite, source: .likes)
            try await classifier.learnOnce(
                (0..<60).map { (id: "m\($0)", post: .init(text: "会議の資料と電車", authorUsername: "boss")) },
                as: .normal, source: .timeline)
            try await server.withRunning { url in
                let clock = ManualBotClock(now: Self.start)
                let client = XClient(configuration: .init(baseURL: url, credentials: [.human: Self.human]), clock: clock, logger: Self.quiet)
                let learner = Learner(
                    clock: clock, state: database.state, archive: database.archive(timeZone: .gmt, rowLimit: 100),
                    classifier: classifier, network: XMirrorNetwork(client: client), liking: Self.likingOn(client), humanUserID: "100",
                    calibrator: calibrator, logger: Self.quiet)
                try await learner.pollOnce()
                let first = try #require(try await calibrator.stored())
                #expect(first.calibratedAt == Self.start)
                #expect(first.result.fallbackReason == nil && first.result.favorites == 60 && first.result.normals == 60)
                #expect(classifier.threshold == first.result.threshold && classifier.model == first.result.model)

                clock.advance(by: 23 * 3_600)
                try await learner.pollOnce()
                #expect(try await calibrator.stored()?.calibratedAt == Self.start)  // not a day yet

                clock.advance(by: 3_600)
                try await learner.pollOnce()
                #expect(try await calibrator.stored()?.calibratedAt == Self.start.addingTimeInterval(86_400))
            }
        }
    }
}
