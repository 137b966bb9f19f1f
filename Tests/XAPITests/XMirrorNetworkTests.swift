import BotClock
import BotCore
import FakeX
import Foundation
import SocialNetwork
import Testing
import XAPI
import XNetwork

/// X behind the network protocol: what the bot asks in its own words, answered by the X client against fake X.
@Suite("X as a MirrorNetwork")
struct XMirrorNetworkTests {
    @Test("Whether a post is still there: true for one that is (one owned read), false once its author deleted it or for one that never was")
    func postExists() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 3)) { server, url async throws in
            let meter = UsageMeter()
            let client = XClient(
                configuration: .init(baseURL: url, credentials: [.human: Fixture.human, .bot: Fixture.bot]),
                clock: ManualBotClock(now: Fixture.start), usage: meter, logger: Fixture.logger)
            let network = XMirrorNetwork(client: client)
            let post = Fixture.tweetID(1)

            #expect(try await network.postExists(post, as: .human, for: .learning))
            #expect(await server.delete(tweetID: post))
            #expect(try await network.postExists(post, as: .human, for: .learning) == false)
            #expect(try await network.postExists("1234", as: .human, for: .learning) == false)
            #expect(await server.requestCounts()[GetTweet.name] == 3)

            // One of the person's own posts came back: one owned read ($0.001), billed alike by fake X and the client.
            let bills = await server.billing().map(\.bill)
            #expect(bills.reduce(0) { $0 + $1.ownedPostReads } == 1 && bills.reduce(0) { $0 + $1.postReads } == 0)
            let billed = bills.reduce(0.0) { $0 + XPriceList.current.cost(of: $1) }
            #expect(abs(billed - 0.001) < 1e-9 && abs(meter.totalCost - billed) < 1e-9)
        }
    }

    @Test("An id X cannot take is its 400, said as a rejection of that one call, not as a deleted post")
    func malformedID() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 1)) { _, url async throws in
            let network = XMirrorNetwork(client: Fixture.client(url))
            await #expect {
                try await network.postExists("not-an-id", as: .human, for: .learning)
            } throws: { error in
                guard case NetworkError.rejected(let text)? = error as? NetworkError else { return false }
                return text.contains("GET /2/tweets/:id")
            }
        }
    }

    @Test(
        "A lost create read back among every post made since its send, page by page (five owned reads each), stopping at the page reaching back before it; without its moment, among the five newest only"
    )
    func readsBackSinceTheSend() async throws {
        // The bot's post at the send, a minute before the start, then twelve more made meanwhile (a minute apart); and
        // older ones, made before the send.
        let sentAt = Fixture.start.addingTimeInterval(-3_600)
        func botPost(_ index: Int, _ text: String, at offset: TimeInterval) -> FakeXSeed.Tweet {
            FakeXSeed.Tweet(
                id: String(Fixture.firstTweetID + 1_000 + UInt64(index)), authorID: Fixture.botID, text: text,
                createdAt: sentAt.addingTimeInterval(offset))
        }
        let older = (0..<10).map { botPost($0, "older \($0)", at: Double($0 - 10) * 3_600) }
        let made = botPost(10, "the lost one", at: 1)
        let meanwhile = (0..<12).map { botPost(11 + $0, "meanwhile \($0)", at: Double($0 + 1) * 60) }
        try await withFakeX(Fixture.seed(extra: older + [made] + meanwhile)) { server, url async throws in
            let network = XMirrorNetwork(client: Fixture.client(url))
            #expect(try await network.ownRecentPost("the lost one", inReplyTo: nil, sentSince: nil, for: .posts) == nil)
            #expect(await server.requestCounts()[GetUserTweets.name] == 1)
            #expect(try await network.ownRecentPost("the lost one", inReplyTo: nil, sentSince: sentAt, for: .posts) == made.id)
            #expect(await server.requestCounts()[GetUserTweets.name] == 1 + 3)  // 12 newer and the lost one: the third page
            // Not made: the read stops at the page reaching back past the send (the 13 since, and 2 before it).
            #expect(try await network.ownRecentPost("never sent", inReplyTo: nil, sentSince: sentAt, for: .posts) == nil)
            #expect(await server.requestCounts()[GetUserTweets.name] == 1 + 3 + 3)
        }
    }
}
