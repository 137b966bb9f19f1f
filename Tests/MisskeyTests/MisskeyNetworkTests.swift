import BotClock
import BotCore
import FakeMisskey
import Foundation
import InMemoryStores
import MisskeyAPI
import MisskeyNetwork
import SocialNetwork
import Stores
import TestSupport
import Testing

/// Misskey behind the bot's seam, against the fake: what is learned, how posts and answers are written, what the ids
/// become.
@Suite("Misskey as the bot's network")
struct MisskeyNetworkTests {
    static func with(_ body: (FakeMisskeyServer, MisskeyMirrorNetwork, InMemoryStoreSet) async throws -> Void) async throws {
        let server = FakeMisskeyServer(seed: MisskeyFixture.seed, logger: MisskeyFixture.quietLogger)
        try await server.withRunning { url in
            let stores = InMemoryStoreSet()
            try await body(server, MisskeyMirrorNetwork(client: MisskeyFixture.client(url)), stores)
        }
    }

    static func all(_ pages: NetworkPages) async throws -> [NetworkPost] {
        var posts: [NetworkPost] = []
        for try await page in pages { posts += page.posts }
        return posts
    }

    @Test(
        "The person's notes: public and home ones and replies, in their MFM; never followers-only, specified, warned, renotes or quotes; a reply names whom it answers"
    )
    func learnsOnlyCopyableNotes() async throws {
        try await Self.with { _, network, _ in
            let person = try await network.whoAmI(.human)
            #expect(person.handle == "person" && person.id == MisskeyFixture.person)
            let posts = try await Self.all(network.posts(of: person.id, since: nil, maxPosts: 100, for: .learning))
            #expect(posts.map(\.text) == ["見て https://example.com/a", "$[x2 **大きな**] ニュース :igyo:", "おはよう", "@friend 寒いよね"])  // newest first
            let reply = try #require(posts.last)
            #expect(reply.replyToUserID == MisskeyFixture.friend)
            #expect(reply.replyToPostID == MisskeyFixture.id(300))
            // The instance's ids, kept as written, sort by time (as `PostID` orders them); nothing is newer than the newest.
            let ids = posts.map { PostID($0.id) }
            #expect(ids == ids.sorted(by: >))
            let newest = try #require(posts.first?.id)
            #expect(try await Self.all(network.posts(of: person.id, since: newest, maxPosts: 100, for: .learning)).isEmpty)
        }
    }

    @Test("250 notes read in pages newest first, whatever order the instance answers a page in; since a number, only what is newer, in as many reads")
    func pagesNewestFirst() async throws {
        try await Self.with { server, network, _ in
            let many = (1...250).map { number in
                FakeMisskeySeed.Note(
                    id: FakeMisskeySeed.aidx(at: MisskeyFixture.at(2_000 - number), node: "many", counter: number), userID: MisskeyFixture.person,
                    text: "ノート \(number)", createdAt: MisskeyFixture.at(2_000 - number))
            }
            await server.add(notes: many)
            let person = try await network.whoAmI(.human)
            let posts = try await Self.all(network.posts(of: person.id, since: nil, maxPosts: 1_000, for: .learning))
            #expect(posts.count == 254)
            #expect(posts.map { PostID($0.id) } == posts.map { PostID($0.id) }.sorted(by: >))
            // Since the 100th note: the 150 newer of the many and the person's four, in two reads (100 a page).
            let reads = await server.requestCounts()[GetUserNotes.name] ?? 0
            let since = try #require(posts.first { $0.text == "ノート 100" }?.id)
            let newer = try await Self.all(network.posts(of: person.id, since: since, maxPosts: 1_000, for: .learning))
            #expect(newer.count == 154)
            #expect(!newer.contains { $0.text == "ノート 100" || $0.text == "ノート 99" })
            #expect((await server.requestCounts()[GetUserNotes.name] ?? 0) - reads == 2)
        }
    }

    @Test("Likes are the person's reactions, their MFM taken out for the filter; the timeline's notes too")
    func reactionsAndTimeline() async throws {
        try await Self.with { _, network, _ in
            let person = try await network.whoAmI(.human)
            let liked = try await Self.all(network.likes(of: person.id, perPage: 100, maxPosts: nil, for: .learning))
            #expect(liked.map(\.text) == ["今日は寒いね"])
            let bot = try await network.whoAmI(.bot)
            let timeline = try await Self.all(
                network.homeTimeline(of: bot.id, as: .bot, since: nil, maxPosts: 50, perPage: 50, includingReposts: false, for: .liking))
            #expect(timeline.contains { $0.text == "大きな ニュース" }, "\(timeline.map(\.text))")
            #expect(!timeline.contains { $0.isRepost })
        }
    }

    @Test("A post goes out home; a lost answer is read back from the bot's notes; after a restart the number still finds the note, to delete it")
    func postsAndReadsBack() async throws {
        try await Self.with { server, network, stores in
            _ = try await network.whoAmI(.bot)
            let id = try #require(try await network.post("こんにちは", warning: nil, slot: "slot 2025-11-24 960", for: .posts))
            #expect(await server.posted().map(\.visibility) == ["home"])
            await server.add(fault: FakeMisskeyFault(kind: .dropAfterHandling, endpoint: CreateNote.name))
            await #expect(throws: NetworkError.self) { try await network.post("こんばんは", warning: nil, slot: "slot 2025-11-24 961", for: .posts) }
            let readBack = try #require(try await network.ownRecentPost("こんばんは", inReplyTo: nil, sentSince: nil, for: .posts))
            #expect(await server.posted().count == 2)
            // A new process asks about the same ids: nothing but the ids is needed.
            let restarted = MisskeyMirrorNetwork(client: network.client)
            #expect(try await restarted.deletePost(id, for: .posts))
            #expect(try await restarted.postExists(readBack, as: .bot, for: .posts))
            #expect(try await restarted.deletePost(readBack, for: .posts))
            #expect(try await !restarted.postExists(readBack, as: .bot, for: .posts))
            #expect(await server.deletedByAPI().count == 2)
        }
    }

    @Test(
        "Mentions: a friend's answer in the bot's thread is answered in it, never more public than it; a specified mention gets a specified answer its author alone sees; #nobot is seen"
    )
    func answersMentions() async throws {
        try await Self.with { server, network, _ in
            let bot = try await network.whoAmI(.bot)
            let botPost = try #require(try await network.post("おはよう", warning: nil, slot: "slot 2025-11-24 900", for: .posts))
            let botNote = try #require(await server.posted().first)
            await server.add(notes: [
                .init(
                    id: MisskeyFixture.id(-1, 1), userID: MisskeyFixture.friend, text: "@mirror おはよう！", visibility: "followers", replyID: botNote.id,
                    createdAt: MisskeyFixture.at(0)),
                .init(id: MisskeyFixture.id(-1, 2), userID: MisskeyFixture.quiet, text: "@mirror hi", createdAt: MisskeyFixture.at(0)),
                .init(
                    id: MisskeyFixture.id(-1, 3), userID: MisskeyFixture.friend, text: "@mirror ひみつ", visibility: "specified",
                    createdAt: MisskeyFixture.at(0),
                    visibleUserIDs: [MisskeyFixture.bot]),
            ])
            await server.advanceClock(by: 120)
            let mentions = try await Self.all(network.mentions(of: bot.id, since: nil, perPage: 50, for: .replies))
            #expect(mentions.map(\.text) == ["@mirror ひみつ", "@mirror hi", "@mirror おはよう！"])
            #expect(mentions.map(\.authorAsksNoBots) == [false, true, false])
            let inThread = try #require(mentions.last)
            #expect(inThread.conversationID == botPost, "the thread's root is the bot's post")
            _ = try await network.reply("それな", warning: nil, to: inThread.id, for: .replies)
            _ = try await network.reply("うん", warning: nil, to: try #require(mentions.first).id, for: .replies)
            let answers = await server.posted().filter { $0.replyID != nil }
            #expect(answers.map(\.text) == ["@friend それな", "@friend うん"])
            #expect(answers.map(\.visibility) == ["followers", "specified"])
            #expect(answers.last?.visibleUserIDs == [MisskeyFixture.friend])
            // An answer to the bot's answer is in the same thread.
            let answer = try #require(answers.first)
            await server.add(notes: [
                .init(
                    id: MisskeyFixture.id(-3, 1), userID: MisskeyFixture.friend, text: "@mirror まだ寒い", replyID: answer.id,
                    createdAt: MisskeyFixture.at(-2))
            ])
            await server.advanceClock(by: 120)
            let next = try await Self.all(
                network.mentions(of: bot.id, since: mentions.map { PostID($0.id) }.max()?.text, perPage: 50, for: .replies))
            #expect(next.map(\.text) == ["@mirror まだ寒い"])
            #expect(next.first?.conversationID == botPost)
        }
    }

    @Test("A like is a ❤ reaction, one however often it is sent; too long a note is unpostable, nothing sent")
    func reactsOnceAndRefusesTooLong() async throws {
        try await Self.with { server, network, _ in
            let bot = try await network.whoAmI(.bot)
            let timeline = try await Self.all(
                network.homeTimeline(of: bot.id, as: .bot, since: nil, maxPosts: 50, perPage: 50, includingReposts: false, for: .liking))
            let friendNote = try #require(timeline.first { $0.text == "今日は寒いね" })
            try await network.like(friendNote.id, as: bot.id, for: .liking)
            try await network.like(friendNote.id, as: bot.id, for: .liking)
            #expect(await server.reacted().map(\.reaction) == ["❤"])
            await #expect(throws: NetworkError.self) {
                try await network.post(String(repeating: "あ", count: 3_001), warning: nil, slot: "slot x 1", for: .posts)
            }
            #expect(await server.posted().isEmpty)
        }
    }

    @Test(
        "The status page's links: https://<host>/notes/<id> on the instance that gave the id; none for a number a previous release could not map back"
    )
    func postLinks() async throws {
        let module = MisskeyNetworkModule(
            settings: MisskeyNetworkSettings(
                human: MisskeyAccess(instance: URL(string: "https://misskey.io/")!, token: "p"),
                bot: MisskeyAccess(instance: URL(string: "https://bots.example")!, token: "b")))
        let id = MisskeyFixture.id(10)
        #expect(module.postLinks.botSide(id) == "https://bots.example/notes/\(id)")
        #expect(module.postLinks.personSide(id) == "https://misskey.io/notes/\(id)")
        #expect(module.postLinks.botSide("865000000000000000") == nil)
    }

    @Test("Under a lease that lapsed, a note and a deletion are not sent (unavailable, saying why) and nothing reaches the instance; reads go on")
    func writesFencedByTheLease() async throws {
        try await Self.with { server, network, _ in
            _ = try await network.whoAmI(.bot)
            try await expectWritesFencedOffByALapsedLease(on: network)
            #expect(await server.posted().count == 1)
            #expect(await server.deletedByAPI().isEmpty)
        }
    }
}
