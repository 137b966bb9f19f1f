import BotClock
import BotConfiguration
import FakeX
import Foundation
import Synchronization
import TestSupport
import Testing
import XAPI

/// Keeps what the client stores, as the daemon's `bot_state` would.
final class RefusalShelf: XRefusalStore {
    private let saved = Mutex<[[XRefusals.Refusal]]>([])
    var saves: [[XRefusals.Refusal]] { saved.withLock { $0 } }
    func save(_ refusals: [XRefusals.Refusal]) async throws { saved.withLock { $0.append(refusals) } }
}

@Suite("What X refuses for good is not asked again until its recheck")
struct RefusalTests {
    static func client(_ url: URL, clock: ManualBotClock, store: RefusalShelf? = nil, logger recorder: LogRecorder) -> XClient {
        XClient(
            configuration: .init(baseURL: url, credentials: [.human: Fixture.human, .bot: Fixture.bot], retry: .init(maxAttempts: 1)),
            clock: clock, refusalStore: store, logger: recorder.logger())
    }

    @Test("401 (a revoked token): one request, one log line; nothing sent for an hour; then one request to check")
    func revokedToken() async throws {
        try await withFakeX(Fixture.seed()) { server, url async throws in
            let clock = ManualBotClock(now: Fixture.start)
            let recorder = LogRecorder()
            let client = Self.client(url, clock: clock, logger: recorder)
            await server.revoke(accessToken: Fixture.bot.accessToken)
            await #expect(throws: XAPIError.self) { try await client.send(GetMentions(userID: Fixture.botID), as: .bot) }
            for minutes in [1, 30, 59] {
                clock.advance(to: Fixture.start.addingTimeInterval(Double(minutes * 60)))
                let error = await #expect(throws: XAPIError.self) { try await client.send(CreateTweet(text: "hi"), as: .bot) }
                guard case .refused(let refusal)? = error else {
                    Issue.record("\(String(describing: error))")
                    return
                }
                #expect(refusal.kind == .credentials && refusal.scope == .account)
            }
            let counts = await server.requestCounts()
            #expect(counts[GetMentions.name] == 1 && counts[CreateTweet.name] == nil)
            // The human's account is not affected.
            #expect(try await client.send(GetAuthenticatedUser(), as: .human).data?.username == "human")
            clock.advance(to: Fixture.start.addingTimeInterval(3_600))
            await #expect(throws: XAPIError.self) { try await client.send(GetMentions(userID: Fixture.botID), as: .bot) }
            #expect(await server.requestCounts()[GetMentions.name] == 2)
            let lines = recorder.lines(containing: "X refused")
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.contains("Not asking again for every call as the bot until") == true)
            #expect(lines.first?.contains("regenerate the bot account's tokens") == true)
        }
    }

    @Test("402 (credits spent): refused for an hour; when credits are added, the hourly check succeeds and says so")
    func creditsExhausted() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 3)) { server, url async throws in
            let clock = ManualBotClock(now: Fixture.start)
            let recorder = LogRecorder()
            let client = Self.client(url, clock: clock, logger: recorder)
            await server.setCredits(0)
            let error = await #expect(throws: XAPIError.self) { try await client.send(GetUserTweets(userID: Fixture.humanID), as: .human) }
            #expect(error.map { if case .creditsExhausted = $0 { true } else { false } } == true)
            await #expect(throws: XAPIError.self) { try await client.send(GetUserTweets(userID: Fixture.humanID), as: .human) }
            #expect(await server.requestCounts()[GetUserTweets.name] == 1)
            await server.setCredits(nil)
            clock.advance(by: 3_600)
            #expect(try await client.send(GetUserTweets(userID: Fixture.humanID), as: .human).tweets.count == 3)
            #expect(await server.requestCounts()[GetUserTweets.name] == 2)
            #expect(recorder.lines(containing: "X accepts every call as the human again").count == 1)
            #expect(client.refusals.all.isEmpty)
        }
    }

    @Test("429 usage-capped: not retried, refused for an hour, then checked once")
    func usageCapped() async throws {
        try await withFakeX(Fixture.seed()) { server, url async throws in
            let clock = ManualBotClock(now: Fixture.start)
            let client = Self.client(url, clock: clock, logger: LogRecorder())
            await server.add(fault: FakeXFault(kind: .usageCapped, count: 1))
            let error = await #expect(throws: XAPIError.self) { try await client.send(GetAuthenticatedUser(), as: .human) }
            #expect(error.map { if case .usageCapped = $0 { true } else { false } } == true)
            clock.advance(by: 1_800)
            await #expect(throws: XAPIError.self) { try await client.send(GetAuthenticatedUser(), as: .human) }
            #expect(await server.requestCounts()[GetAuthenticatedUser.name] == 1)
            clock.advance(by: 1_800)
            #expect(try await client.send(GetAuthenticatedUser(), as: .human).data != nil)
            #expect(await server.requestCounts()[GetAuthenticatedUser.name] == 2)
        }
    }

    @Test("403 client-forbidden on likes: only liking is refused, for a day, and the refusal is stored; posting goes on")
    func likesNotEnrolled() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 2)) { server, url async throws in
            let clock = ManualBotClock(now: Fixture.start)
            let shelf = RefusalShelf()
            let recorder = LogRecorder()
            let client = Self.client(url, clock: clock, store: shelf, logger: recorder)
            let error = await #expect(throws: XAPIError.self) {
                try await client.send(LikeTweet(userID: Fixture.botID, tweetID: Fixture.tweetID(1)), as: .bot)
            }
            guard case .notEnrolled(let endpoint, let problem)? = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(endpoint == LikeTweet.name && problem.reason == "client-not-enrolled")
            let refusal = try #require(client.refusals.refusal(of: .likes, account: .bot))
            #expect(refusal.kind == .notEnrolled && refusal.recheckAt == Fixture.start.addingTimeInterval(86_400))
            #expect(shelf.saves.last == [refusal])
            // Unliking is the same capability: not sent; posting is not affected.
            clock.advance(by: 23 * 3_600)
            await #expect(throws: XAPIError.self) { try await client.send(UnlikeTweet(userID: Fixture.botID, tweetID: Fixture.tweetID(1)), as: .bot) }
            #expect(try await client.send(CreateTweet(text: "まだ投稿はできる"), as: .bot).data != nil)
            let counts = await server.requestCounts()
            #expect(counts[LikeTweet.name] == 1 && counts[UnlikeTweet.name] == nil)
            #expect(recorder.lines(containing: "then once a day").count == 1)
            #expect(recorder.lines(containing: "LIKES=off").count == 1)

            // A restart with the stored refusal, for the same app, does not ask either; for another app it does.
            let restarted = Self.client(url, clock: clock, logger: LogRecorder())
            restarted.refusals.restore(shelf.saves.last ?? [], apps: restarted.appFingerprints)
            await #expect(throws: XAPIError.self) {
                try await restarted.send(LikeTweet(userID: Fixture.botID, tweetID: Fixture.tweetID(0)), as: .bot)
            }
            #expect(await server.requestCounts()[LikeTweet.name] == 1)
            let otherApp = XRefusals()
            otherApp.restore(shelf.saves.last ?? [], apps: [.bot: XRefusals.appFingerprint("another-key")])
            #expect(otherApp.all.isEmpty)
        }
    }

    @Test("Another 403 refuses that endpoint only, for an hour; a duplicate or a restricted reply refuses nothing")
    func forbiddenEndpoint() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 2)) { server, url async throws in
            let clock = ManualBotClock(now: Fixture.start)
            let client = Self.client(url, clock: clock, logger: LogRecorder())
            // Reading another user's home timeline: 403.
            await #expect(throws: XAPIError.self) { try await client.send(GetHomeTimeline(userID: Fixture.humanID), as: .bot) }
            await #expect(throws: XAPIError.self) { try await client.send(GetHomeTimeline(userID: Fixture.humanID), as: .bot) }
            #expect(await server.requestCounts()[GetHomeTimeline.name] == 1)
            #expect(client.refusals.all.map(\.scope) == [.endpoint(GetHomeTimeline.name)])
            #expect(try await client.send(GetMentions(userID: Fixture.botID), as: .bot).tweets.isEmpty)
            // A duplicate post is refused as that post only.
            _ = try await client.send(CreateTweet(text: "同じ文"), as: .bot)
            await #expect(throws: XAPIError.duplicateContent) { try await client.send(CreateTweet(text: "同じ文"), as: .bot) }
            #expect(try await client.send(CreateTweet(text: "違う文"), as: .bot).data != nil)
            #expect(client.refusals.all.count == 1)
        }
    }
}
