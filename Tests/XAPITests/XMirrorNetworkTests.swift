import BotCore
import BotClock
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
            let client = XClient(configuration: .init(baseURL: url, credentials: [.human: Fixture.human, .bot: Fixture.bot]),
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
}
