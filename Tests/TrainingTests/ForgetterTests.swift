import BotConfiguration
import Classifier
import FakeX
import Foundation
import Logging
import Stores
import TestSupport
import Testing
import Tokenizer
import Training
import WordCounts
import XAPI
import XNetwork

/// `mirror_bot forget`, for the person who asks: one tweet out of the archive, the reply pool, the training examples
/// and the word counts, and the bot's copies deleted on the network, at once.
@Suite("Forgetting one tweet", .serialized)
struct ForgetterTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let bot = AccountCredentials(consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts")

    @Test("An id or a post's address names the tweet; anything else does not")
    func addresses() {
        #expect(Forgetter.postID(in: "1234567890") == 1_234_567_890)
        #expect(Forgetter.postID(in: " https://x.com/hanako/status/1234567890 ") == 1_234_567_890)
        #expect(Forgetter.postID(in: "https://twitter.com/hanako/status/42?s=20") == 42)
        #expect(Forgetter.postID(in: "https://mastodon.example/@hanako/109876") == 109_876)
        #expect(Forgetter.postID(in: "https://mastodon.example/users/hanako/statuses/109876") == 109_876)
        #expect(Forgetter.postID(in: "https://x.com/hanako") == nil)
        #expect(Forgetter.postID(in: "https://example.com/page/12") == nil)
        #expect(Forgetter.postID(in: "hanako") == nil)
        #expect(Forgetter.postID(in: "-5") == nil)
        // Ids as other networks write them: a Misskey note's, on its page or alone.
        #expect(Forgetter.postID(in: "https://misskey.example/notes/alrb9x1a2b3c4d5e") == "alrb9x1a2b3c4d5e")
        #expect(Forgetter.postID(in: "alrb9x1a2b3c4d5e") == "alrb9x1a2b3c4d5e")
        #expect(Forgetter.postID(in: "two words") == nil)
    }

    @Test(
        "A posted tweet, an answer and a liked tweet are forgotten everywhere at once; a second forget finds the copies gone",
        arguments: StoreBackends.all)
    func forgetsEverywhere(_ backends: StoreBackends) async throws {
        let seed = FakeXSeed(
            now: Self.start,
            users: [.init(id: "100", username: "human"), .init(id: "200", username: "mirror_bot"), .init(id: "300", username: "friend")],
            accounts: [.init(userID: "200", consumerKey: "bk", consumerSecret: "bs", accessToken: "200-t", accessTokenSecret: "bts")],
            tweets: [
                .init(id: "50001", authorID: "200", text: "寿司が好き", createdAt: Self.start.addingTimeInterval(-600)),
                .init(id: "50002", authorID: "200", text: "ラーメンいこう", createdAt: Self.start.addingTimeInterval(-300)),
            ])
        let server = FakeXServer(seed: seed, logger: TestServers.logger)
        try await server.withRunning { url in
            let client = XClient(configuration: .init(baseURL: url, credentials: [.bot: Self.bot]), logger: TestServers.logger)
            try await TestServers.withStores(backends) { database, store async throws in
                let examples = database.examples
                let classifier = FavoriteClassifier(store: store, tokenizer: try PostTokenizer(), threshold: 3, examples: ExampleRecorder(examples))
                let archive = database.archive(timeZone: TimeZone(identifier: "UTC")!, rowLimit: 1_000)
                try await archive.prepare()
                try await archive.insert([
                    ArchivedPost(postID: 10001, text: "寿司が好き", createdAt: Self.start.addingTimeInterval(-90_000)),
                    ArchivedPost(postID: 10002, text: "@friend ラーメンいこう", replyUserID: 300, createdAt: Self.start.addingTimeInterval(-80_000)),
                    ArchivedPost(postID: 10003, text: "ひとりごと", createdAt: Self.start.addingTimeInterval(-70_000)),
                ])
                // The bot posted 10001 in a slot (as 50001) and answered a mention with 10002 (as 50002).
                let plans = database.plans
                _ = try await plans.storePlan(day: "2023-11-14", timeZone: "UTC", minutes: [600], drawnAt: Self.start)
                #expect(try await plans.claim(day: "2023-11-14", minute: 600))
                try await plans.markPosted(
                    day: "2023-11-14", minute: 600, sourcePostID: 10001, botPostID: 50001, postedAt: Self.start, reason: "test")
                let mentions = database.mentions
                #expect(try await mentions.begin(mentionID: 7001, authorID: 300, conversationID: nil, at: Self.start))
                try await mentions.finish(mentionID: 7001, state: .replied, replyPostID: 50002, sourcePostID: 10002, reason: "test")
                // The person liked the friend's 20001 and saw 20002.
                _ = try await classifier.learnOnce(
                    [(id: "20002", post: .init(text: "会議の資料", authorUsername: "friend"))], as: .normal, source: .timeline)
                _ = try await classifier.learnOnce(
                    [(id: "20001", post: .init(text: "猫の写真", authorUsername: "friend"))], as: .favorite, source: .likes)

                let forgetter = Forgetter(archive: archive, examples: examples, classifier: classifier, network: XMirrorNetwork(client: client))
                let posted = try await forgetter.forget(10001)
                #expect(posted.wasArchived && posted.copiesDeleted == [50001] && posted.examplesRemoved.isEmpty)
                let answered = try await forgetter.forget(10002)
                #expect(answered.wasArchived && answered.copiesDeleted == [50002])
                #expect(await server.deletedByAPI() == ["50001", "50002"])
                #expect(try await archive.newest(limit: 10).map(\.postID) == [10003])  // the archive and its replies

                let liked = try await forgetter.forget(20001)
                #expect(!liked.wasArchived && liked.examplesRemoved == ["favorite"] && liked.unlearned == .favorite)
                let counts = try await store.counts(for: ["猫", "会議", "@friend"])
                #expect(counts.count(of: "猫", in: .favorite) == 0 && counts.count(of: .favorite) == 0)
                #expect(counts.count(of: "@friend", in: .favorite) == 0)
                #expect(counts.count(of: "会議", in: .normal) == 1)  // the rest stays
                #expect(try await examples.all().map(\.postID) == ["20002"])

                // Again: nothing left in the stores, the copies already gone (nothing deleted twice).
                let again = try await forgetter.forget(10001)
                #expect(!again.wasArchived && again.copiesDeleted.isEmpty && again.copiesAlreadyGone == [50001])
                #expect(try await !forgetter.forget(99999).foundAnything)
            }
        }
    }
}
