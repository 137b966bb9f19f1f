import BotClock
import BotCore
import FakeMastodon
import Foundation
import MastodonAPI
import MastodonNetwork
import SocialNetwork
import Testing

/// Server-sent events as Mastodon's streaming server writes them, and the mention stream against the fake instance.
@Suite("Mastodon streaming")
struct MastodonStreamingTests {
    @Test("Events split across chunks, CRLF and CR line ends, several data lines, comments and unnamed events")
    func serverSentEvents() {
        var parser = ServerSentEvents()
        parser.append(Data(":thump\nevent: notifi".utf8))
        #expect(parser.nextEvent() == nil)
        parser.append(Data("cation\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nevent: delete\rdata: 42\r".utf8))
        #expect(parser.nextEvent() == .init(name: "notification", data: "{\"a\":\n1}"))
        // The CR at the end may be half of a CRLF: the event is complete only once the next byte comes.
        #expect(parser.nextEvent() == nil)
        parser.append(Data("\r\ndata:no space\n\n: comment\n\nretry: 10\n".utf8))
        #expect(parser.nextEvent() == .init(name: "delete", data: "42"))
        #expect(parser.nextEvent() == .init(name: "message", data: "no space"))
        #expect(parser.nextEvent() == nil)
    }

    @Test("The stream pushes each new mention with its notification id as its position, and ends when the instance cuts it")
    func mentionsPushed() async throws {
        try await withFakeMastodon { server, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            #expect(network.capabilities.streamsMentions)
            let stream = try await network.openMentionStream(of: MastodonFixture.botID)
            // The mentions already there before the stream opened are not pushed; a new one is.
            let later = await server.now().addingTimeInterval(1)
            await server.add(statuses: [
                .init(
                    id: MastodonFixture.statusID(500), accountID: MastodonFixture.friendID, content: "<p>@mirror 今どこ？</p>",
                    createdAt: later, mentionIDs: [MastodonFixture.botID])
            ])
            await server.advanceClock(by: 2)
            var iterator = stream.makeAsyncIterator()
            let pushed = try #require(try await iterator.next())
            #expect(pushed.id == MastodonFixture.statusID(500) && pushed.text == "@mirror 今どこ？" && pushed.authorID == MastodonFixture.friendID)
            // Its position is its notification's id, the one a poll since it would ask for: nothing newer.
            let position = try #require(pushed.position)
            #expect(position != pushed.id)
            var newer: [NetworkPost] = []
            for try await page in network.mentions(of: MastodonFixture.botID, since: position, perPage: 40, for: .replies) { newer += page.posts }
            #expect(newer.isEmpty)
            await server.cutStreams()
            await #expect(throws: (any Error).self) { _ = try await iterator.next() }
            #expect(await server.streamsOpened() == 1)
        }
    }

    @Test(
        "A fleet's bots on one instance each hold a stream: twelve at once all open (the HTTP client's default of 8 connections a host left the ninth waiting until it failed)"
    )
    func manyStreamsToOneInstance() async throws {
        try await withFakeMastodon { server, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            let streams = try await withThrowingTaskGroup(of: NetworkPostStream.self) { group in
                for _ in 0..<12 { group.addTask { try await network.openMentionStream(of: MastodonFixture.botID) } }
                var opened: [NetworkPostStream] = []
                for try await stream in group { opened.append(stream) }
                return opened
            }
            #expect(streams.count == 12)
            #expect(await server.streamsOpened() == 12)
            await server.cutStreams()
        }
    }

    @Test("An instance whose streaming is down refuses the stream; the error says so")
    func streamingDown() async throws {
        try await withFakeMastodon { server, url async throws in
            await server.setStreamingAvailable(false)
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            await #expect {
                _ = try await network.openMentionStream(of: MastodonFixture.botID)
            } throws: { error in
                guard case NetworkError.unavailable(let text)? = error as? NetworkError else { return false }
                return text.contains("503")
            }
        }
    }
}

/// Threads, accounts of another instance, and the instance's character limit.
@Suite("Mastodon threads, instances and limits")
struct MastodonThreadTests {
    @Test("A mention's conversation is its thread's root, read from the context once per thread")
    func threadRoot() async throws {
        var seed = MastodonFixture.seed()
        let root = MastodonFixture.statusID(600)
        let botReply = MastodonFixture.statusID(601)
        let first = MastodonFixture.statusID(602)
        let second = MastodonFixture.statusID(603)
        let at = MastodonFixture.start.addingTimeInterval(-30)
        seed.statuses += [
            .init(id: root, accountID: MastodonFixture.friendID, content: "<p>@mirror はじめ</p>", createdAt: at, mentionIDs: [MastodonFixture.botID]),
            .init(
                id: botReply, accountID: MastodonFixture.botID, content: "<p>@friend どうも</p>", createdAt: at.addingTimeInterval(1),
                inReplyToID: root, mentionIDs: [MastodonFixture.friendID]),
            .init(
                id: first, accountID: MastodonFixture.friendID, content: "<p>@mirror つづき</p>", createdAt: at.addingTimeInterval(2),
                inReplyToID: botReply, mentionIDs: [MastodonFixture.botID]),
            .init(
                id: second, accountID: MastodonFixture.friendID, content: "<p>@mirror もう一つ</p>", createdAt: at.addingTimeInterval(3),
                inReplyToID: botReply, mentionIDs: [MastodonFixture.botID]),
        ]
        try await withFakeMastodon(seed) { server, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            var mentions: [NetworkPost] = []
            for try await page in network.mentions(of: MastodonFixture.botID, since: nil, perPage: 40, for: .replies) { mentions += page.posts }
            let byID = Dictionary(uniqueKeysWithValues: mentions.map { ($0.id, $0) })
            #expect(byID[root]?.conversationID == root)
            #expect(byID[first]?.conversationID == root && byID[second]?.conversationID == root)
            // Two answers to the same status: one context read.
            #expect(await server.requestCounts()[GetStatusContext.name] == 1)
        }
    }

    @Test("The person and the bot on different instances: a mentioner is known by the id the person's instance gives them")
    func twoInstances() async throws {
        // The bot's instance: the bot and the friend, both local. The person's: the person and the friend as a remote
        // account with an id of its own.
        let botSeed = FakeMastodonSeed(
            now: MastodonFixture.start, domain: "bots.example",
            accounts: [
                .init(id: "200", username: "mirror", token: "bot-token", scopes: ["read", "write"], bot: true),
                .init(id: "301", username: "friend"), .init(id: "401", username: "newcomer"),
            ],
            statuses: [
                .init(
                    id: MastodonFixture.statusID(1), accountID: "301", content: "<p>@mirror やあ</p>",
                    createdAt: MastodonFixture.start.addingTimeInterval(-60), mentionIDs: ["200"]),
                .init(
                    id: MastodonFixture.statusID(2), accountID: "401", content: "<p>@mirror はじめまして</p>",
                    createdAt: MastodonFixture.start.addingTimeInterval(-50), mentionIDs: ["200"]),
            ])
        let personSeed = FakeMastodonSeed(
            now: MastodonFixture.start, domain: "people.example",
            accounts: [
                .init(id: "100", username: "person", token: "person-token", scopes: ["read"]),
                .init(id: "9300", username: "friend", domain: "bots.example"),
            ])
        let botServer = FakeMastodonServer(seed: botSeed, logger: MastodonFixture.logger)
        let personServer = FakeMastodonServer(seed: personSeed, logger: MastodonFixture.logger)
        try await botServer.withRunning { botURL in
            try await personServer.withRunning { personURL in
                let client = MastodonClient(
                    configuration: .init(accounts: [
                        .human: MastodonAccess(instance: personURL, token: "person-token"),
                        .bot: MastodonAccess(instance: botURL, token: "bot-token"),
                    ]),
                    clock: ManualBotClock(now: MastodonFixture.start), logger: MastodonFixture.logger)
                let network = MastodonMirrorNetwork(client: client)
                var mentions: [NetworkPost] = []
                for try await page in network.mentions(of: "200", since: nil, perPage: 40, for: .replies) { mentions += page.posts }
                // The friend's replies in the person's archive are filed under 9300: the mention names them so.
                #expect(mentions.first { $0.text == "@mirror やあ" }?.authorID == "9300")
                // Someone the person's instance does not know keeps the bot's instance's id.
                #expect(mentions.first { $0.text == "@mirror はじめまして" }?.authorID == "401")
                #expect(await personServer.requestCounts()[LookupAccount.name] == 2)
            }
        }
    }

    @Test("A text longer than the bot's instance takes is not sent: another may be picked; links count 23 characters")
    func characterLimit() async throws {
        #expect(MastodonMirrorNetwork.statusLength(of: "見て https://example.com/" + String(repeating: "a", count: 200)) == 26)
        #expect(MastodonMirrorNetwork.statusLength(of: "@friend@other.example やあ") == 10)
        try await withFakeMastodon { server, url async throws in
            let network = MastodonMirrorNetwork(client: MastodonFixture.client(url))
            await #expect {
                _ = try await network.post(String(repeating: "長", count: 501), warning: nil, slot: "slot 2023-11-15 07:00", for: .posts)
            } throws: { error in
                guard case NetworkError.unpostable(let text)? = error as? NetworkError else { return false }
                return text.contains("501 of its 500 characters")
            }
            #expect(await server.requestCounts()[PostStatus.name] == nil)
            #expect(try await network.post(String(repeating: "長", count: 500), warning: nil, slot: "slot 2023-11-15 07:00", for: .posts) != nil)
            #expect(await server.requestCounts()[GetInstance.name] ?? 0 <= 1)  // read once at most, beside the posts
        }
    }
}
