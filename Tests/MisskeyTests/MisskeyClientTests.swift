import BotClock
import BotCore
import FakeMisskey
import Foundation
import MisskeyAPI
import Testing

/// The Misskey client against the fake instance: how it waits, fails and streams.
@Suite("The Misskey client")
struct MisskeyClientTests {
    static func with(_ body: (FakeMisskeyServer, URL) async throws -> Void) async throws {
        let server = FakeMisskeyServer(seed: MisskeyFixture.seed, logger: MisskeyFixture.quietLogger)
        try await server.withRunning { url in try await body(server, url) }
    }

    @Test(
        "A 429 RATE_LIMIT_EXCEEDED whose Retry-After is 30 s is waited out on the bot's clock, then answered; one of an hour is refused at once, as one line"
    )
    func rateLimits() async throws {
        try await Self.with { server, url in
            let clock = ManualBotClock(now: MisskeyFixture.start)
            let client = MisskeyFixture.client(url, clock: clock)
            await server.add(fault: FakeMisskeyFault(kind: .rateLimited, endpoint: GetMentions.name, retryAfter: 30))
            let reading = Task { try await client.send(GetMentions(), as: .bot) }
            try await clock.waitForSleepers()
            #expect(clock.sleepRequests.last.map { $0 >= .seconds(30) && $0 <= .seconds(32) } == true, "\(clock.sleepRequests)")
            clock.advance(by: 32)
            #expect(try await reading.value.isEmpty)
            await server.add(fault: FakeMisskeyFault(kind: .rateLimited, endpoint: GetMentions.name, retryAfter: 3_600))
            do {
                _ = try await client.send(GetMentions(), as: .bot)
                Issue.record("a window resetting in an hour was waited for")
            } catch MisskeyAPIError.rateLimited(let endpoint, let resetsAt?) {
                #expect(endpoint == GetMentions.name && abs(resetsAt.timeIntervalSince(clock.now().addingTimeInterval(3_600))) < 2)
                #expect(!"\(MisskeyAPIError.rateLimited(endpoint: endpoint, resetsAt: resetsAt))".contains("\n"))
            }
        }
    }

    @Test(
        "An answer that is not JSON is one readable error and the next call is answered; a 503 is retried; a lost create is outcomeUnknown, never sent twice"
    )
    func badAnswers() async throws {
        try await Self.with { server, url in
            let client = MisskeyFixture.client(url)
            await server.add(fault: FakeMisskeyFault(kind: .malformed, endpoint: GetI.name))
            do {
                _ = try await client.send(GetI(), as: .bot)
                Issue.record("an unreadable answer was read")
            } catch let error as MisskeyAPIError {
                #expect("\(error)".hasPrefix("Misskey's answer to i was not valid") && !"\(error)".contains("\n"), "\(error)")
            }
            await server.add(fault: FakeMisskeyFault(kind: .serviceUnavailable, count: 2, endpoint: GetI.name))
            #expect(try await client.send(GetI(), as: .bot).username == "mirror")
            await server.add(fault: FakeMisskeyFault(kind: .dropAfterHandling, endpoint: CreateNote.name))
            do {
                _ = try await client.send(CreateNote(text: "一度だけ", visibility: .home), as: .bot)
                Issue.record("a lost answer was taken as an answer")
            } catch MisskeyAPIError.outcomeUnknown {}
            #expect(await server.posted().map(\.text) == ["一度だけ"])
            #expect(await server.requestCounts()[CreateNote.name] == 1)
        }
    }

    @Test("A token the instance does not know, or one without the permission, is a sentence that says what to do")
    func refusals() async throws {
        try await Self.with { _, url in
            let stranger = MisskeyClient(
                configuration: .init(accounts: [.bot: MisskeyAccess(instance: url, token: "nope")]), logger: MisskeyFixture.quietLogger)
            do {
                _ = try await stranger.send(GetI(), as: .bot)
                Issue.record("an unknown token was taken")
            } catch let error as MisskeyAPIError {
                #expect("\(error)".contains("AUTHENTICATION_FAILED") && "\(error)".contains("mirror_bot auth misskey --account bot"), "\(error)")
            }
            let client = MisskeyFixture.client(url)
            do {
                _ = try await client.send(CreateNote(text: "person's token reads only", visibility: .home), as: .human)
                Issue.record("a note was made without write:notes")
            } catch let error as MisskeyAPIError {
                guard case .forbidden(_, _, "PERMISSION_DENIED", _) = error else {
                    Issue.record("\(error)")
                    return
                }
            }
        }
    }

    @Test("The main channel pushes a mention as it is made; cut, the stream ends; an unknown token is no stream")
    func streaming() async throws {
        try await Self.with { server, url in
            let client = MisskeyFixture.client(url)
            let events = try await client.streamMentions(as: .bot)
            var iterator = events.makeAsyncIterator()
            await server.add(notes: [
                .init(id: MisskeyFixture.id(0, 9), userID: MisskeyFixture.friend, text: "@mirror 聞こえる？", createdAt: MisskeyFixture.at(0))
            ])
            let event = try #require(try await iterator.next())
            #expect(event.type == "mention" && event.note.text == "@mirror 聞こえる？")
            await server.cutStreams()
            // Cut, the stream ends (the instance closed it, or it broke): nothing more comes.
            var more: [MisskeyStreamEvent] = []
            do { while let next = try await iterator.next() { more.append(next) } } catch {}
            #expect(more.isEmpty)
            #expect(await server.streamsOpened() == 1)
            let stranger = MisskeyClient(
                configuration: .init(accounts: [.bot: MisskeyAccess(instance: url, token: "nope")]), logger: MisskeyFixture.quietLogger)
            await #expect(throws: MisskeyAPIError.self) { _ = try await stranger.streamMentions(as: .bot) }
        }
    }
}
