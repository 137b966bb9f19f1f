import BlueskyAPI
import BlueskyNetwork
import BotClock
import BotCore
import FakeBluesky
import Foundation
import SocialNetwork
import TestSupport
import Testing

/// Bluesky behind the bot's seam, against the fake: what is learned, how posts and answers are written.
@Suite("Bluesky as the bot's network")
struct BlueskyNetworkTests {
    static func with(_ body: (FakeBlueskyServer, BlueskyMirrorNetwork) async throws -> Void) async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        try await server.withRunning { url in
            let network = BlueskyMirrorNetwork(client: BlueskyFixture.client(url, sessions: InMemoryBlueskySessions()))
            try await body(server, network)
        }
    }

    static func all(_ pages: NetworkPages) async throws -> [NetworkPost] {
        var posts: [NetworkPost] = []
        for try await page in pages { posts += page.posts }
        return posts
    }

    @Test("The person's posts: their own posts and replies, never a repost, a quote or a labelled post; a reply names whom it answers")
    func learnsOnlyCopyablePosts() async throws {
        try await Self.with { _, network in
            let person = try await network.whoAmI(.human)
            #expect(person.handle == "person.test" && person.id == BlueskyFixture.person)
            let posts = try await Self.all(network.posts(of: person.id, since: nil, maxPosts: 100, for: .learning))
            #expect(posts.map(\.text) == ["見て https://example.com/a", "おはよう", "寒いよね"])  // newest first
            let reply = try #require(posts.first { $0.text == "寒いよね" })
            #expect(reply.replyToUserID == BlueskyFixture.friend)
            #expect(reply.replyToPostID == BlueskyIDs.postID(of: BlueskyFixture.uri(BlueskyFixture.friend, BlueskyFixture.tid(300))))
            // Since the newest: nothing newer.
            let newest = try #require(posts.compactMap { UInt64($0.id) }.max())
            #expect(try await Self.all(network.posts(of: person.id, since: String(newest), maxPosts: 100, for: .learning)).isEmpty)
        }
    }

    @Test(
        "A post of Japanese text with a mention, a link and a tag: facets in bytes the fake checks, langs ja, one record however often the slot is sent; its id finds it, deletes it once"
    )
    func postsWithFacetsOnce() async throws {
        try await Self.with { server, network in
            let text = "@friend.test さん見て！https://example.com/記事 #日本語"
            let first = try await network.post(text, warning: nil, slot: "slot 2025-11-24 960", for: .posts)
            let again = try await network.post(text, warning: nil, slot: "slot 2025-11-24 960", for: .posts)
            #expect(first != nil && first == again)
            let records = await server.records(of: BlueskyFixture.bot, in: PostRecord.type)
            #expect(records.count == 1)
            let record = try JSONDecoder().decode(PostRecord.self, from: JSONEncoder().encode(try #require(records.first).value))
            #expect(record.langs == ["ja"])
            let bytes = Array(text.utf8)
            let covered = (record.facets ?? []).map { String(decoding: bytes[$0.index.byteStart..<$0.index.byteEnd], as: UTF8.self) }
            #expect(covered == ["@friend.test", "https://example.com/", "#日本語"])
            #expect(record.facets?.first?.features == [.mention(did: BlueskyFixture.friend)])
            let id = try #require(first)
            #expect(try await network.postExists(id, as: .bot, for: .posts))
            #expect(try await network.deletePost(id, for: .posts))
            #expect(try await network.deletePost(id, for: .posts) == false)
            #expect(try await network.postExists(id, as: .bot, for: .posts) == false)
        }
    }

    @Test("Which of 30 of the person's posts are still there: two getPosts calls (25 URIs each at most); the ones deleted are not")
    func existingPostsInBatches() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        try await server.withRunning { url in
            let network = BlueskyMirrorNetwork(client: BlueskyFixture.client(url, sessions: InMemoryBlueskySessions()))
            var ids: [String] = []
            for minute in 0..<30 {
                let rkey = TID(date: BlueskyFixture.start.addingTimeInterval(Double(-10_000 - minute * 60)), clockID: 3).description
                await server.add(
                    post: .init(
                        authorDID: BlueskyFixture.person, rkey: rkey,
                        record: PostRecord(text: "投稿 \(minute)", createdAt: BlueskyFixture.time(10_000)),
                        indexedAt: BlueskyFixture.start.addingTimeInterval(-600_000)))
                ids.append(try #require(BlueskyIDs.postID(of: BlueskyFixture.uri(BlueskyFixture.person, rkey))))
            }
            for index in [2, 17, 26] {
                await server.delete(uri: BlueskyFixture.uri(BlueskyFixture.person, try #require(BlueskyIDs.recordKey(ofPost: ids[index]))))
            }
            let before = await server.requestCounts()["app.bsky.feed.getPosts"] ?? 0
            let present = try await network.existingPosts(ids, as: .human, for: .learning)
            #expect(present == Set(ids).subtracting([ids[2], ids[17], ids[26]]))
            #expect((await server.requestCounts()["app.bsky.feed.getPosts"] ?? 0) - before == 2)
        }
    }

    @Test("A like of a timeline post is one like record however often it is sent, by this network or by a new one after a restart")
    func likesOnce() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        try await server.withRunning { url in
            let sessions = InMemoryBlueskySessions()
            for _ in 0..<2 {  // two runs: the second knows nothing of the first's likes
                let network = BlueskyMirrorNetwork(client: BlueskyFixture.client(url, sessions: sessions))
                let timeline = try await Self.all(
                    network.homeTimeline(
                        of: "", as: .bot, since: nil, maxPosts: 50, perPage: 50, includingReposts: false,
                        for: .liking))
                let post = try #require(timeline.first { $0.text == "おはよう" })
                try await network.like(post.id, as: "", for: .liking)
                try await network.like(post.id, as: "", for: .liking)
            }
            #expect(await server.records(of: BlueskyFixture.bot, in: "app.bsky.feed.like").count == 1)
        }
    }

    @Test(
        "POST_CW: the person's labelled post is learned with its labels as its warning, and a copy goes out with the same labels; another network's warning goes out as !warn; quotes and reposts are still never learned"
    )
    func copiesLabelsWithPostCW() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        try await server.withRunning { url in
            let network = BlueskyMirrorNetwork(client: BlueskyFixture.client(url, sessions: InMemoryBlueskySessions()), copyingLabels: true)
            let person = try await network.whoAmI(.human)
            let posts = try await Self.all(network.posts(of: person.id, since: nil, maxPosts: 100, for: .learning))
            #expect(posts.map(\.text) == ["それな", "見て https://example.com/a", "おはよう", "寒いよね"])
            #expect(posts.map(\.contentWarning) == ["!warn", nil, nil, nil])
            _ = try await network.post("それな", warning: "!warn", slot: "slot 2025-11-24 5", for: .posts)
            _ = try await network.post("ひみつ", warning: "porn, nudity", slot: "slot 2025-11-24 6", for: .posts)
            _ = try await network.post("ネタバレ", warning: "映画の結末", slot: "slot 2025-11-24 7", for: .posts)
            let written = try await server.records(of: BlueskyFixture.bot, in: PostRecord.type).map {
                try JSONDecoder().decode(PostRecord.self, from: JSONEncoder().encode($0.value))
            }
            let labels = Dictionary(uniqueKeysWithValues: written.map { ($0.text, ($0.labels?.values ?? []).map(\.val)) })
            #expect(labels == ["それな": ["!warn"], "ひみつ": ["porn", "nudity"], "ネタバレ": ["!warn"]])
        }
    }

    @Test("Too long for Bluesky (301 graphemes) or behind a warning: unpostable, nothing sent")
    func unpostable() async throws {
        try await Self.with { server, network in
            await #expect {
                _ = try await network.post(String(repeating: "あ", count: 301), warning: nil, slot: "slot 2025-11-24 1", for: .posts)
            } throws: { error in if case NetworkError.unpostable = error { true } else { false } }
            await #expect { _ = try await network.post("はい", warning: "ネタバレ", slot: "slot 2025-11-24 2", for: .posts) } throws: { error in
                if case NetworkError.unpostable = error { true } else { false }
            }
            #expect(await server.writes().isEmpty)
        }
    }

    @Test(
        "Mentions: a reply in the bot's thread is answered with the thread's root and the mention as parent; a top-level mention is both; #nobot in a profile is seen"
    )
    func answersInThread() async throws {
        try await Self.with { server, network in
            let bot = try await network.whoAmI(.bot)
            #expect(bot.markedAutomated == false)
            #expect(
                BotDisclosure.botLabel.problem(bot: bot, person: try await network.whoAmI(.human), networkName: "Bluesky")?.contains("setup bluesky")
                    == true)
            // The bot's post, the friend's reply to it, the #nobot account's mention.
            let botPostID = try #require(try await network.post("おはよう", warning: nil, slot: "slot 2025-11-24 900", for: .posts))
            let botPost = try #require(await server.records(of: BlueskyFixture.bot, in: PostRecord.type).first)
            let root = StrongRef(uri: botPost.uri, cid: botPost.cid)
            await server.add(
                post: .init(
                    authorDID: BlueskyFixture.friend, rkey: BlueskyFixture.tid(2),
                    record: PostRecord(
                        text: "おはよう！", createdAt: BlueskyFixture.time(2), reply: ReplyRef(root: root, parent: root)),
                    indexedAt: BlueskyFixture.start.addingTimeInterval(-120)))
            await server.add(
                post: .init(
                    authorDID: BlueskyFixture.quiet, rkey: BlueskyFixture.tid(1),
                    record: PostRecord(
                        text: "@mirror.test hi", createdAt: BlueskyFixture.time(1),
                        facets: [Facet(index: ByteSlice(byteStart: 0, byteEnd: 12), features: [.mention(did: BlueskyFixture.bot)])]),
                    indexedAt: BlueskyFixture.start.addingTimeInterval(-60)))
            let mentions = try await Self.all(network.mentions(of: bot.id, since: nil, perPage: 50, for: .replies))
            #expect(mentions.map(\.text) == ["@mirror.test hi", "おはよう！"])
            #expect(mentions.map(\.authorAsksNoBots) == [true, false])
            let friendReply = try #require(mentions.last)
            #expect(friendReply.authorID == BlueskyFixture.friend && friendReply.conversationID == botPostID)
            let answerID = try #require(try await network.reply("それな", warning: nil, to: friendReply.id, for: .replies))
            let again = try await network.reply("それな", warning: nil, to: friendReply.id, for: .replies)
            #expect(again == answerID, "one answer per mention")
            let answers = await server.records(of: BlueskyFixture.bot, in: PostRecord.type).filter { $0.uri != botPost.uri }
            #expect(answers.count == 1)
            let answer = try JSONDecoder().decode(PostRecord.self, from: JSONEncoder().encode(try #require(answers.first).value))
            #expect(answer.reply?.root == root)
            #expect(answer.reply?.parent.uri == BlueskyFixture.uri(BlueskyFixture.friend, BlueskyFixture.tid(2)))
            // Since the newest mention: nothing newer.
            let newest = try #require(mentions.compactMap { UInt64($0.id) }.max())
            #expect(try await Self.all(network.mentions(of: bot.id, since: String(newest), perPage: 50, for: .replies)).isEmpty)
        }
    }

    @Test("Under a lease that lapsed, a post and a deletion are not sent (unavailable, saying why) and nothing reaches the PDS; reads go on")
    func writesFencedByTheLease() async throws {
        try await Self.with { server, network in
            try await expectWritesFencedOffByALapsedLease(on: network)
            #expect(await server.records(of: BlueskyFixture.bot, in: PostRecord.type).count == 1)
        }
    }
}
