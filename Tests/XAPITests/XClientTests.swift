import BotClock
import BotConfiguration
import FakeX
import Foundation
import Testing
import XAPI

@Suite("The X API client against the fake X server")
struct XClientTests {
    @Test("GET /2/users/me names the account the credentials belong to")
    func usersMe() async throws {
        try await withFakeX { _, url async throws in
            let client = Fixture.client(url)
            // With the bio (user.fields=description), empty for an account without one.
            #expect(
                try await client.send(GetAuthenticatedUser(), as: .human).data == XUser(id: "100", name: "human", username: "human", description: ""))
            #expect(try await client.send(GetAuthenticatedUser(), as: .bot).data?.username == "mirror_bot")
        }
    }

    @Test("Paging a timeline to exhaustion stops at the 3,200 cap: 32 pages, newest first, no repeats")
    func pagingToTheCap() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 3_500)) { server, url async throws in
            let client = Fixture.client(url)
            var ids: [String] = []
            var pages = 0
            for try await page in client.pages(GetUserTweets(userID: Fixture.humanID, maxResults: 100), as: .human) {
                pages += 1
                ids += page.tweets.map(\.id)
                // The archive's reads expand no authors: they are all the human, and each would be a billed user read.
                #expect(page.includes == nil)
            }
            #expect(pages == 32)
            #expect(ids.count == 3_200)
            #expect(Set(ids).count == 3_200)
            #expect(ids.first == Fixture.tweetID(3_499))
            #expect(ids.last == Fixture.tweetID(300))
            #expect(ids == ids.sorted { UInt64($0)! > UInt64($1)! })
            let usage = try #require(client.usage.snapshot[.init(endpoint: GetUserTweets.name, account: .human)])
            #expect(usage.calls == 32)
            #expect(usage.postsRead == 3_200)
            #expect(await server.requestCounts()[GetUserTweets.name] == 32)
        }
    }

    @Test("exclude=replies caps the timeline at 800; a cap on posts read stops paging early")
    func excludeRepliesAndCaps() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 1_200)) { _, url async throws in
            let client = Fixture.client(url)
            var count = 0
            for try await page in client.pages(GetUserTweets(userID: Fixture.humanID, exclude: [.replies]), as: .human) {
                #expect(page.tweets.allSatisfy { $0.inReplyToUserID == nil })
                count += page.tweets.count
            }
            #expect(count == 800)
            var capped = 0
            for try await page in client.pages(GetUserTweets(userID: Fixture.humanID, maxResults: 100), as: .human, maxPosts: 250) {
                capped += page.tweets.count
            }
            #expect(capped == 250)  // the third page asks for the 50 still wanted
        }
    }

    @Test("since_id returns only what is new, and posts from the future stay hidden until the clock gets there")
    func sinceIDAndFuturePosts() async throws {
        let future = FakeXSeed.Tweet(
            id: Fixture.tweetID(10), authorID: Fixture.humanID, text: "from the future",
            createdAt: Fixture.start.addingTimeInterval(3_600))
        try await withFakeX(Fixture.seed(humanTweets: 10, extra: [future])) { server, url async throws in
            let client = Fixture.client(url)
            let newer = try await client.send(GetUserTweets(userID: Fixture.humanID, sinceID: Fixture.tweetID(6)), as: .human)
            #expect(newer.tweets.map(\.id) == [9, 8, 7].map(Fixture.tweetID))
            #expect(newer.meta?.newestID == Fixture.tweetID(9))
            await server.advanceClock(by: 3_600)
            let later = try await client.send(GetUserTweets(userID: Fixture.humanID, sinceID: Fixture.tweetID(9)), as: .human)
            #expect(later.tweets.map(\.text) == ["from the future"])
            let nothing = try await client.send(GetUserTweets(userID: Fixture.humanID, sinceID: Fixture.tweetID(10)), as: .human)
            #expect(nothing.tweets.isEmpty)
            #expect(nothing.meta?.resultCount == 0)
        }
    }

    @Test("Each read carries what its decision needs, and only the favorite filter's reads expand authors (a billed user read each)")
    func postFields() async throws {
        let original = FakeXSeed.Tweet(
            id: "5000", authorID: Fixture.friendID, text: "見て https://t.co/abc &lt;3",
            createdAt: Fixture.start.addingTimeInterval(-100),
            urls: [.init(url: "https://t.co/abc", expandedURL: "https://example.com/page")])
        let reply = FakeXSeed.Tweet(
            id: "5001", authorID: Fixture.humanID, text: "@friend いいね https://t.co/def", createdAt: Fixture.start.addingTimeInterval(-50),
            inReplyToTweetID: "5000", inReplyToUserID: Fixture.friendID,
            urls: [.init(url: "https://t.co/def", expandedURL: "https://example.com/other")])
        let retweet = FakeXSeed.Tweet(
            id: "5002", authorID: Fixture.humanID, text: "RT @friend: 見て", createdAt: Fixture.start.addingTimeInterval(-10),
            retweetOf: "5000")
        let mention = FakeXSeed.Tweet(
            id: "5003", authorID: Fixture.friendID, text: "@mirror_bot どう？", createdAt: Fixture.start.addingTimeInterval(-5),
            inReplyToTweetID: "5000", inReplyToUserID: Fixture.friendID)
        try await withFakeX(Fixture.seed(extra: [original, reply, retweet, mention])) { server, url async throws in
            let client = Fixture.client(url)
            // The favorite filter: authors' handles (a feature), retweet markers, expanded links.
            let home = try await client.send(GetHomeTimeline(userID: Fixture.humanID), as: .human)
            #expect(home.tweets.map(\.id) == ["5003", "5002", "5001", "5000"])
            let byID = Dictionary(uniqueKeysWithValues: home.tweets.map { ($0.id, $0) })
            #expect(byID["5002"]?.isRetweet == true)
            #expect(byID["5001"]?.isRetweet == false)
            #expect(byID["5000"]?.plainText == "見て https://example.com/page <3")
            #expect(home.username(of: Fixture.friendID) == "friend")
            #expect(byID["5000"]?.createdAt == nil)  // no decision of the filter uses the time

            // The archive: time, reply target, retweet marker, expanded links; no authors.
            let own = try await client.send(GetUserTweets(userID: Fixture.humanID), as: .human)
            let ownByID = Dictionary(uniqueKeysWithValues: own.tweets.map { ($0.id, $0) })
            #expect(ownByID["5001"]?.inReplyToUserID == Fixture.friendID)
            #expect(ownByID["5001"]?.createdAt == Fixture.start.addingTimeInterval(-50))
            #expect(ownByID["5001"]?.plainText == "@friend いいね https://example.com/other")
            #expect(ownByID["5002"]?.isRetweet == true)
            #expect(own.includes == nil)

            // Mentions: the author's id, the thread, the retweet marker; no authors.
            let mentions = try await client.send(GetMentions(userID: Fixture.botID), as: .bot)
            #expect(mentions.tweets.first?.authorID == Fixture.friendID)
            #expect(mentions.tweets.first?.conversationID == "5000")
            #expect(mentions.tweets.first?.repliedToTweetID == "5000")
            #expect(mentions.includes == nil)

            // X's bill, as the fake made it: users only for the filter's read (one author here, the friend; the
            // human's user is not in its home timeline's includes twice).
            let bills = await server.billing()
            #expect(bills.reduce(0) { $0 + $1.bill.userReads } == (home.includes?.users?.count ?? -1))
        }
    }

    @Test("Mentions include replies to the bot and @-mentions, never the bot's own posts")
    func mentions() async throws {
        let posts = [
            FakeXSeed.Tweet(id: "7000", authorID: Fixture.friendID, text: "@mirror_bot おはよう", createdAt: Fixture.start.addingTimeInterval(-30)),
            FakeXSeed.Tweet(
                id: "7001", authorID: Fixture.botID, text: "@friend おはよう", createdAt: Fixture.start.addingTimeInterval(-20),
                inReplyToTweetID: "7000", inReplyToUserID: Fixture.friendID),
            FakeXSeed.Tweet(
                id: "7002", authorID: Fixture.friendID, text: "元気？", createdAt: Fixture.start.addingTimeInterval(-10),
                inReplyToTweetID: "7001", inReplyToUserID: Fixture.botID),
        ]
        try await withFakeX(Fixture.seed(extra: posts)) { _, url async throws in
            let page = try await Fixture.client(url).send(GetMentions(userID: Fixture.botID), as: .bot)
            #expect(page.tweets.map(\.id) == ["7002", "7000"])
        }
    }

    @Test("A wrong secret is a 401 that names the account whose credentials failed")
    func badSecret() async throws {
        try await withFakeX { _, url async throws in
            var wrong = Fixture.human
            wrong.accessTokenSecret = "not-the-secret"
            let client = Fixture.client(url, human: wrong)
            let error = try await #require(throws: XAPIError.self) { try await client.send(GetAuthenticatedUser(), as: .human) }
            guard case .unauthorized(let account, let endpoint, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(account == .human)
            #expect(endpoint == "GET /2/users/me")
            #expect(error.description.contains("HUMAN_*"))
            #expect(!error.description.contains("not-the-secret"))
            #expect(try await client.send(GetAuthenticatedUser(), as: .bot).data?.id == Fixture.botID)
        }
    }

    @Test("A 429 is waited out on the injected clock until x-rate-limit-reset, then the call succeeds")
    func rateLimitIsWaitedOut() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 5)) { server, url async throws in
            await server.setRateLimit(2, for: GetUserTweets.name)
            let request = GetUserTweets(userID: Fixture.humanID)
            let warmup = Fixture.client(url)
            _ = try await warmup.send(request, as: .human)
            _ = try await warmup.send(request, as: .human)
            let status = try #require(warmup.rateLimit(for: GetUserTweets.name, account: .human))
            #expect(status.limit == 2)
            #expect(status.remaining == 0)
            #expect(status.resetsAt == Fixture.start.addingTimeInterval(900))

            // A client that does not know the window is used up gets the 429 and waits for the reset.
            let clock = ManualBotClock(now: Fixture.start)
            let client = Fixture.client(url, clock: clock)
            let call = Task { try await client.send(request, as: .human) }
            try await clock.waitForSleepers()
            #expect(clock.sleepRequests == [.milliseconds(901_000)])
            #expect(await server.requestCounts()[GetUserTweets.name] == 3)
            await server.advanceClock(by: 901)
            clock.advanceToNextSleeper()
            #expect(try await call.value.tweets.count == 5)
            #expect(await server.requestCounts()[GetUserTweets.name] == 4)
        }
    }

    @Test(
        "A window's 429 (the fake's rateLimited: remaining 0, reset at the window's end) is waited out on the injected clock, then the read asked again"
    )
    func usedUpWindowAnswerIsWaitedOut() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 2)) { server, url async throws in
            await server.add(fault: .init(kind: .rateLimited, count: 1, endpoint: GetUserTweets.name))
            let clock = ManualBotClock(now: Fixture.start)
            let client = Fixture.client(url, clock: clock)
            let call = Task { try await client.send(GetUserTweets(userID: Fixture.humanID), as: .human) }
            try await clock.waitForSleepers()
            // The window began with this call: it resets 900 s on, and the client waits a second past that.
            #expect(clock.sleepRequests == [.milliseconds(901_000)])
            #expect(await server.requestCounts()[GetUserTweets.name] == 1)
            await server.advanceClock(by: 901)
            clock.advanceToNextSleeper()
            #expect(try await call.value.tweets.count == 2)
            #expect(await server.requestCounts()[GetUserTweets.name] == 2)
        }
    }

    @Test(
        "A post whose answer is held past the request timeout is given up at the timeout (deadlineExceeded), its outcome unknown: made, so never sent again"
    )
    func heldAnswerIsGivenUp() async throws {
        try await withFakeX { server, url async throws in
            // Held 6 s against a 1 s timeout: an answer that came would be a post id, not this error.
            await server.add(fault: .init(kind: .hangAfterHandling, count: 1, endpoint: CreateTweet.name, holdSeconds: 6))
            let client = XClient(
                configuration: .init(baseURL: url, credentials: [.human: Fixture.human, .bot: Fixture.bot], requestTimeout: .seconds(1)),
                clock: ManualBotClock(now: Fixture.start), logger: Fixture.logger)
            let error = try await #require(throws: XAPIError.self) { try await client.send(CreateTweet(text: "held"), as: .bot) }
            guard case .outcomeUnknown(_, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains("deadlineExceeded"), "\(reason)")
            #expect(await server.posted().map(\.text) == ["held"])
            #expect(await server.requestCounts()[CreateTweet.name] == 1)
        }
    }

    @Test("A write is never kept waiting for a window's reset (it runs to its end through a shutdown): a post meeting a 429 fails at once, not sent")
    func writeDoesNotWaitOutRateLimit() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 2)) { server, url async throws in
            await server.setRateLimit(1, for: CreateTweet.name)
            let clock = ManualBotClock(now: Fixture.start)
            let client = Fixture.client(url, clock: clock)
            _ = try await client.send(CreateTweet(text: "first"), as: .bot)
            // The client knows the window is spent (the headers said so): it fails without calling.
            let error = try await #require(throws: XAPIError.self) { try await client.send(CreateTweet(text: "second"), as: .bot) }
            guard case .rateLimited(let endpoint, let resetsAt) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(endpoint == CreateTweet.name && resetsAt == Fixture.start.addingTimeInterval(900))
            // A client that does not know meets the 429 and fails too, without sleeping.
            let fresh = Fixture.client(url, clock: clock)
            await #expect(throws: XAPIError.self) { try await fresh.send(CreateTweet(text: "third"), as: .bot) }
            #expect(clock.sleepRequests.isEmpty)
            #expect(await server.posted().map(\.text) == ["first"])
        }
    }

    @Test("A 429 whose reset is already past on the bot's clock (clocks disagree) is waited out for 15 s, not 0")
    func rateLimitWithResetInThePast() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 5)) { server, url async throws in
            await server.setRateLimit(1, for: GetUserTweets.name)
            let request = GetUserTweets(userID: Fixture.humanID)
            _ = try await Fixture.client(url).send(request, as: .human)
            // This bot's clock is 20 minutes ahead of X's: the window's reset (15 minutes on X's clock) is past.
            let clock = ManualBotClock(now: Fixture.start.addingTimeInterval(1_200))
            let client = Fixture.client(url, clock: clock)
            let call = Task { try await client.send(request, as: .human) }
            try await clock.waitForSleepers()
            #expect(clock.sleepRequests == [.seconds(15)])
            await server.advanceClock(by: 901)
            _ = clock.advanceToNextSleeper()
            #expect(try await call.value.tweets.count == 5)
            #expect(await server.requestCounts()[GetUserTweets.name] == 3)
        }
    }

    @Test("A client that knows the window is used up waits for its reset without calling")
    func usedUpWindowIsNotCalled() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 5)) { server, url async throws in
            await server.setRateLimit(1, for: GetMentions.name)
            let clock = ManualBotClock(now: Fixture.start)
            let client = Fixture.client(url, clock: clock)
            _ = try await client.send(GetMentions(userID: Fixture.botID), as: .bot)
            let call = Task { try await client.send(GetMentions(userID: Fixture.botID), as: .bot) }
            try await clock.waitForSleepers()
            #expect(await server.requestCounts()[GetMentions.name] == 1)
            await server.advanceClock(by: 901)
            clock.advanceToNextSleeper()
            _ = try await call.value
            #expect(await server.requestCounts()[GetMentions.name] == 2)
        }
    }

    @Test("A usage-capped 429 is a typed error and is not retried")
    func usageCapped() async throws {
        try await withFakeX { server, url async throws in
            await server.add(fault: .init(kind: .usageCapped, count: 5))
            let client = Fixture.client(url)
            let error = try await #require(throws: XAPIError.self) { try await client.send(CreateTweet(text: "hello"), as: .bot) }
            guard case .usageCapped = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(await server.requestCounts()[CreateTweet.name] == 1)
            #expect(await server.posted().isEmpty)
        }
    }

    @Test("A 503 is retried after a backoff with jitter, then succeeds; persistent 503s give up after the attempts")
    func serviceUnavailable() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 3)) { server, url async throws in
            await server.add(fault: .init(kind: .serviceUnavailable, count: 1, endpoint: GetUserTweets.name))
            let clock = ManualBotClock(now: Fixture.start)
            let client = Fixture.client(url, clock: clock)
            let call = Task { try await client.send(GetUserTweets(userID: Fixture.humanID), as: .human) }
            try await clock.waitForSleepers()
            let backoff = try #require(clock.sleepRequests.first)
            #expect(backoff >= .milliseconds(500) && backoff <= .seconds(1))
            clock.advanceToNextSleeper()
            #expect(try await call.value.tweets.count == 3)
            #expect(await server.requestCounts()[GetUserTweets.name] == 2)

            await server.add(fault: .init(kind: .serviceUnavailable, count: 10, endpoint: GetUserTweets.name))
            let failing = Task { try await client.send(GetUserTweets(userID: Fixture.humanID), as: .human) }
            for _ in 0..<3 {
                try await clock.waitForSleepers()
                clock.advanceToNextSleeper()
            }
            let error = await #expect(throws: XAPIError.self) { try await failing.value }
            #expect(error == .serverError(endpoint: GetUserTweets.name, status: 503, attempts: 4))
            let backoffs = clock.sleepRequests.dropFirst()
            #expect(backoffs.count == 3)
            #expect(zip(backoffs, [1.0, 2.0, 4.0]).allSatisfy { $0 >= .seconds($1 / 2) && $0 <= .seconds($1) })
        }
    }

    @Test("A connection dropped mid-response is retried for a read; for a post it is reported, not re-sent")
    func droppedConnections() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 3)) { server, url async throws in
            let clock = ManualBotClock(now: Fixture.start)
            let client = Fixture.client(url, clock: clock)
            await server.add(fault: .init(kind: .closeMidResponse, count: 1, endpoint: GetUserTweets.name))
            let call = Task { try await client.send(GetUserTweets(userID: Fixture.humanID), as: .human) }
            try await clock.waitForSleepers()
            clock.advanceToNextSleeper()
            #expect(try await call.value.tweets.count == 3)

            await server.add(fault: .init(kind: .closeMidResponse, count: 1, endpoint: CreateTweet.name))
            let error = try await #require(throws: XAPIError.self) { try await client.send(CreateTweet(text: "maybe"), as: .bot) }
            guard case .outcomeUnknown = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(await server.posted().map(\.text) == ["maybe"])  // it was made: re-sending would have doubled it
        }
    }

    @Test("A truncated JSON body is a malformed-response error, never a crash")
    func truncatedBody() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 3)) { server, url async throws in
            await server.add(fault: .init(kind: .truncatedJSON, count: 1))
            let error = try await #require(throws: XAPIError.self) {
                try await Fixture.client(url).send(GetUserTweets(userID: Fixture.humanID), as: .human)
            }
            guard case .malformedResponse(let endpoint, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(endpoint == GetUserTweets.name)
            #expect(reason.contains("not valid JSON"))
        }
    }

    @Test("A write answered 2xx unreadably was carried out: a post's outcome is unknown (never re-sent), a like is asked again")
    func truncatedWrites() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 2, access: .enterprise)) { server, url async throws in
            let client = Fixture.client(url)
            await server.add(fault: .init(kind: .truncatedJSON, count: 1, endpoint: CreateTweet.name))
            let error = try await #require(throws: XAPIError.self) { try await client.send(CreateTweet(text: "made"), as: .bot) }
            guard case .outcomeUnknown(let endpoint, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(endpoint == CreateTweet.name && reason.contains("could not be read"))
            #expect(await server.posted().map(\.text) == ["made"])

            await server.add(fault: .init(kind: .truncatedJSON, count: 1, endpoint: LikeTweet.name))
            let like = try await client.send(LikeTweet(userID: Fixture.botID, tweetID: Fixture.tweetID(1)), as: .bot)
            #expect(like.data?.liked == true)
            #expect(await server.requestCounts()[LikeTweet.name] == 2)
            #expect(await server.liked().count == 1)
        }
    }

    @Test("Nothing listening: transport errors are retried with backoff, then reported")
    func nothingListening() async throws {
        let clock = ManualBotClock(now: Fixture.start)
        let client = Fixture.client(URL(string: "http://127.0.0.1:1")!, clock: clock)
        let call = Task { try await client.send(GetAuthenticatedUser(), as: .human) }
        for _ in 0..<3 {
            try await clock.waitForSleepers()
            clock.advanceToNextSleeper()
        }
        let error = await #expect(throws: XAPIError.self) { try await call.value }
        guard case .transport(_, _, let attempts) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(attempts == 4)
        #expect(client.usage.total.failures == 4)
    }

    @Test("Posting the same text twice gives the duplicate-content error; replies reach their parent")
    func posting() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 1)) { server, url async throws in
            let client = Fixture.client(url)
            let created = try await client.send(CreateTweet(text: "今日は寿司 & ラーメン"), as: .bot)
            #expect(created.data?.text == "今日は寿司 &amp; ラーメン")
            let error = try await #require(throws: XAPIError.self) { try await client.send(CreateTweet(text: "今日は寿司 & ラーメン"), as: .bot) }
            #expect(error == .duplicateContent)
            let reply = try await client.send(CreateTweet(text: "@human それな", inReplyToTweetID: Fixture.tweetID(0)), as: .bot)
            let posted = await server.posted()
            #expect(posted.map(\.id) == [created.data?.id, reply.data?.id].compactMap { $0 })
            #expect(posted.last?.inReplyToUserID == Fixture.humanID)
            let usage = client.usage.snapshot[.init(endpoint: CreateTweet.name, account: .bot)]
            #expect(usage?.postsCreated == 2)
            #expect(usage?.failures == 1)
        }
    }

    @Test("Liking twice is harmless; liking a missing post returns its partial error")
    func liking() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 2, access: .enterprise)) { server, url async throws in
            let client = Fixture.client(url)
            let like = LikeTweet(userID: Fixture.botID, tweetID: Fixture.tweetID(1))
            #expect(try await client.send(like, as: .bot).data?.liked == true)
            #expect(try await client.send(like, as: .bot).data?.liked == true)
            #expect(await server.liked().count == 1)
            let missing = try await client.send(LikeTweet(userID: Fixture.botID, tweetID: "999"), as: .bot)
            #expect(missing.data?.liked == false)
            #expect(missing.errors?.first?.kind == "resource-not-found")
            let liked = try await client.send(GetLikedTweets(userID: Fixture.botID), as: .bot)
            #expect(liked.tweets.map(\.id) == [Fixture.tweetID(1)])
        }
    }

    @Test("Usage is counted per endpoint and account, with X's bill: own posts, a post and a like at X's prices")
    func usageReport() async throws {
        try await withFakeX(Fixture.seed(humanTweets: 10, access: .enterprise)) { _, url async throws in
            let client = Fixture.client(url)
            _ = try await client.send(GetUserTweets(userID: Fixture.humanID), as: .human)
            _ = try await client.send(CreateTweet(text: "one"), as: .bot)
            _ = try await client.send(LikeTweet(userID: Fixture.botID, tweetID: Fixture.tweetID(3)), as: .bot)
            let total = client.usage.total
            #expect(total.calls == 3)
            #expect(total.postsRead == 10)
            #expect(total.postsCreated == 1)
            #expect(total.likes == 1)
            // 10 of the human's own posts at $0.001, a post at $0.015, a like at $0.015.
            #expect(abs(client.usage.totalCost - (10 * 0.001 + 0.015 + 0.015)) < 1e-9)
            let report = client.usage.report()
            #expect(report.count == 5)  // three endpoints, one UTC day, the total
            #expect(
                report.contains {
                    $0.hasPrefix("X's bill for 2023-11-14 (UTC) by mirror_bot's count: $0.040 (10 own posts read, 1 posts made, 1 likes)")
                })
            #expect(report.last?.hasPrefix("total: 3 calls, 10 posts read, 1 posted, 1 liked; $0.040 at X's pricing page") == true)
        }
    }
}
