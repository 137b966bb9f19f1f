import BlueskyAPI
import BotClock
import BotCore
import FakeBluesky
import Foundation
import Testing

/// The Bluesky client against the fake: sessions kept and renewed rather than logged in again, and posts written at
/// a key chosen by the bot, so that a retry never makes a second post.
@Suite("The Bluesky client: sessions and idempotent writes")
struct BlueskyClientTests {
    @Test(
        "Ten starts with one store make one createSession: each later start takes the stored session, and renews it with refreshSession once its access token expired"
    )
    func sessionReuse() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        let store = InMemoryBlueskySessions()
        try await server.withRunning { url in
            for start in 0..<10 {
                // Each start is a new client (a new process) with the same store (the bot's database).
                let client = BlueskyFixture.client(url, sessions: store)
                let page = try await client.send(ListNotifications(), as: .bot)
                #expect(page.notifications.isEmpty)
                #expect(try await client.session(of: .bot).did == BlueskyFixture.bot)
                if start % 3 == 1 { await server.expireAccessTokens() }
            }
            #expect(await server.createSessionCalls() == 1)
            #expect(await server.refreshSessionCalls() == 3)
            // Requests went to the PDS the DID document names (this server), with the renewed token stored.
            let stored = try #require(await store.session(of: .bot))
            #expect(stored.pds == url)
        }
    }

    @Test("A session that can no longer be renewed (tokens revoked) logs in again once; a wrong app password is one sentence that says what to do")
    func revokedAndRefused() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        try await server.withRunning { url in
            let store = InMemoryBlueskySessions()
            let client = BlueskyFixture.client(url, sessions: store)
            _ = try await client.send(GetTimeline(), as: .bot)
            await server.revokeAllTokens()
            _ = try await client.send(GetTimeline(), as: .bot)
            #expect(await server.createSessionCalls() == 2)
            let refused = BlueskyFixture.client(url, sessions: InMemoryBlueskySessions(), botPassword: "wrong-pass-word-here")
            await #expect {
                _ = try await refused.send(GetTimeline(), as: .bot)
            } throws: { error in
                guard case BlueskyAPIError.loginRefused(.bot, _) = error else { return false }
                return "\(error)".contains("App passwords") && !"\(error)".contains("\n")
            }
        }
    }

    @Test("The person's posts are read without a session, through the public AppView: no login for an account without an app password")
    func publicReads() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        try await server.withRunning { url in
            let client = BlueskyFixture.client(url, sessions: InMemoryBlueskySessions())
            let page = try await client.send(GetAuthorFeed(actor: "person.test", limit: 100), as: nil)
            #expect(page.feed.count == 6)  // four posts, a reply, a repost
            #expect(page.feed.filter(\.isRepost).count == 1)
            #expect(page.feed.filter { $0.post.record.embed?.isQuote == true }.count == 1)
            #expect(await server.createSessionCalls() == 0)
            await #expect(throws: BlueskyAPIError.notConfigured(account: .human, what: "app password")) {
                _ = try await client.send(GetActorLikes(actor: "person.test"), as: .human)
            }
        }
    }

    @Test("putRecord at a key from the slot: sent three times, or its answer cut off after the write, there is one post")
    func idempotentPost() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        try await server.withRunning { url in
            let client = BlueskyFixture.client(url, sessions: InMemoryBlueskySessions())
            let rkey = TID(date: BlueskyFixture.start, purpose: "slot 2025-11-24 16:00").description
            let record = PostRecord(text: "おはよう", createdAt: "2025-11-24T16:00:00.000Z", langs: ["ja"])
            let write = PutRecord(repo: BlueskyFixture.bot, collection: PostRecord.type, rkey: rkey, record: record)
            var uris: Set<String> = []
            for _ in 0..<3 { uris.insert(try await client.send(write, as: .bot).uri) }
            await server.add(fault: .dropAfterHandling, for: "com.atproto.repo.putRecord")
            uris.insert(try await client.send(write, as: .bot).uri)
            #expect(uris == ["at://\(BlueskyFixture.bot)/app.bsky.feed.post/\(rkey)"])
            #expect(await server.records(of: BlueskyFixture.bot, in: PostRecord.type).count == 1)
            // Five writes arrived (the cut-off one and its retry included): one post.
            #expect(await server.writes().count == 5)
            // Every answer cut off: the retries run out, and the outcome is unknown to the client (the write was made).
            await server.setLostAnswerRate(1, seed: 1)
            await #expect { _ = try await client.send(write, as: .bot) } throws: { error in
                if case BlueskyAPIError.outcomeUnknown = error { true } else { false }
            }
            #expect(await server.writes().count == 9)
        }
    }

    @Test(
        "A 429 whose window resets in 30 s is waited out on the bot's clock, then answered; one that resets in an hour is refused at once with when, as one line"
    )
    func rateLimits() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        try await server.withRunning { url in
            let clock = ManualBotClock(now: BlueskyFixture.start)
            let client = BlueskyFixture.client(url, sessions: InMemoryBlueskySessions(), clock: clock)
            await server.add(fault: .rateLimited(resetIn: 30), for: GetAuthorFeed.nsid)
            let reading = Task { try await client.send(GetAuthorFeed(actor: "person.test"), as: nil) }
            try await clock.waitForSleepers()
            #expect(clock.sleepRequests.last.map { $0 >= .seconds(30) && $0 <= .seconds(32) } == true, "\(clock.sleepRequests)")
            clock.advance(by: 32)
            #expect(try await reading.value.feed.count == 6)
            await server.add(fault: .rateLimited(resetIn: 3_600), for: GetAuthorFeed.nsid)
            do {
                _ = try await client.send(GetAuthorFeed(actor: "person.test"), as: nil)
                Issue.record("a window resetting in an hour was waited for")
            } catch BlueskyAPIError.rateLimited(let method, let resetsAt?) {
                #expect(method == GetAuthorFeed.nsid && abs(resetsAt.timeIntervalSince(BlueskyFixture.start.addingTimeInterval(3_600))) < 2)
                #expect(!"\(BlueskyAPIError.rateLimited(method: method, resetsAt: resetsAt))".contains("\n"))
            }
        }
    }

    @Test("An answer that is not JSON is one readable error, with nothing decoded from it; the next call is answered")
    func malformedAnswers() async throws {
        let server = FakeBlueskyServer(seed: BlueskyFixture.seed, logger: BlueskyFixture.quiet_logger)
        try await server.withRunning { url in
            let client = BlueskyFixture.client(url, sessions: InMemoryBlueskySessions())
            await server.add(fault: .malformed, for: GetAuthorFeed.nsid)
            do {
                _ = try await client.send(GetAuthorFeed(actor: "person.test"), as: nil)
                Issue.record("an unreadable answer was read")
            } catch let error as BlueskyAPIError {
                #expect(
                    "\(error)".hasPrefix("Bluesky's answer to app.bsky.feed.getAuthorFeed was not valid") && !"\(error)".contains("\n"), "\(error)")
            }
            #expect(try await client.send(GetAuthorFeed(actor: "person.test"), as: nil).feed.count == 6)
        }
    }
}
