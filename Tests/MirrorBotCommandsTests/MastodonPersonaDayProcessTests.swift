import BotAssembly
import BotConfiguration
import BotCore
import Classifier
import FakeMastodon
import FakeX
import Foundation
import Logging
import Picking
import Stores
import TestSupport
import Testing
import Tokenizer
import WordCounts

/// The simulated day of the generated persona on a Mastodon instance: the same checks as on X (posts at the stored
/// plan's minutes from the person's statuses near them, friends answered with the person's own replies, the
/// stranger not, the bot that answers everything within limits, likes only favorites, nothing doubled after a
/// SIGKILL), with Mastodon's own faults: the mention stream cut mid-day, 503s, and a create whose answer is lost.
/// A process test for the same reason as on X (the assembled program on a real HTTP client, a real stream, real
/// stores), with production's grace; the day's exact timing is proven on the virtual clock.
@Suite("mirror_bot start on Mastodon: a simulated day of the generated persona", .serialized)
struct MastodonPersonaDayProcessTests {
    static let dayStart = PersonaDayProcessTests.dayStart
    static let day = PersonaDayProcessTests.day

    static func persona() -> FakeXPersona { PersonaDayProcessTests.persona() }

    /// Runs `body` with the fake instance serving `persona`, the bot trained on `backends` with `NETWORK=mastodon`,
    /// and the bot's archive and word counts opened as the bot opens them.
    static func withTrainedBot(
        _ persona: FakeXPersona, _ name: String, _ backends: StoreBackends,
        _ body: (FakeMastodonServer, [String: String], any StoreSet, any WordCountBackend) async throws -> Void
    ) async throws {
        try await TestServers.withTemporaryFolder { folder in
            let server = FakeMastodonServer(
                seed: FakeMastodonSeed(persona: persona.persona), logger: Logger(label: name, factory: { _ in SwiftLogNoOpLogHandler() }))
            func run(database: DatabaseURL?) async throws {
                try await server.withRunning { url in
                    var environment = [
                        "NETWORK": "mastodon", "HUMAN_MASTODON_URL": url.absoluteString, "HUMAN_MASTODON_TOKEN": persona.humanAccount.accessToken,
                        "BOT_MASTODON_URL": url.absoluteString, "BOT_MASTODON_TOKEN": persona.botAccount.accessToken,
                        "MIRROR_BOT_DATA": folder.appending(path: "bot.sqlite").path, "TZ": "Asia/Tokyo", "LOG_LEVEL": "info",
                        "FAVORITE_RATE_THRESHOLD": "2", "LEARN_POLL_SECONDS": "172800",
                        // Production's grace, as on X; the look-ups of originals are proven on the manual clock.
                        "CHECK_ORIGINALS": "false",
                    ]
                    if let database {
                        environment.merge([
                            "DATABASE_URL": database.connectionText, "REDIS_URL": try TestServers.redisURL().redacted,
                            "REDIS_KEY_PREFIX": TestServers.uniqueName(name) + ":",
                        ]) { $1 }
                    }
                    for command in [["migrate"], ["train", "scheduler"], ["train", "classifier"]] {
                        let result = try await MirrorBotProcess.run(command, environment: environment)
                        try #require(result.status == 0, "\(command): \(result.standardError)")
                    }
                    let configuration = try Configuration(environment: environment)
                    let (counts, _) = try WordCountStores.open(for: configuration.storage)
                    try await BotParts(configuration: configuration, logger: TestServers.logger).withRunningAsIs { database in
                        try await body(server, environment, database, counts)
                    }
                    try await counts.removeAll()
                }
            }
            switch backends.archive {
            case .postgres: try await TestServers.withScratchDatabase(name) { databaseURL async throws in try await run(database: databaseURL) }
            case .sqlite, .memory: try await run(database: nil)  // a process keeps nothing in memory: the SQLite file
            }
        }
    }

    @Test(
        "A day on Mastodon through a cut stream, 503s and a lost answer: posts at the plan's minutes, friends answered once, likes only favorites",
        arguments: PersonaDayProcessTests.backends)
    func simulatedDay(_ backends: StoreBackends) async throws {
        let persona = Self.persona()
        try await Self.withTrainedBot(persona, "mastodon_day", backends) { server, environment, database, counts in
            await server.add(fault: FakeMastodonFault(kind: .serviceUnavailable, endpoint: "POST /api/v1/statuses"))
            await server.add(fault: FakeMastodonFault(kind: .dropAfterHandling, endpoint: "POST /api/v1/statuses"))
            await server.add(fault: FakeMastodonFault(kind: .serviceUnavailable, endpoint: "GET /api/v1/timelines/home"))
            await server.armClock(Self.dayStart, speed: 1_440)
            // At noon on the instance's clock the mention stream is cut, as a restart of its streaming server does.
            let cutter = Task {
                while await server.now() < Self.dayStart.addingTimeInterval(12 * 3_600) { try await Task.sleep(for: .milliseconds(20)) }
                await server.cutStreams()
            }
            let run = try await MirrorBotProcess.run(
                ["start", "--speed", "1440", "--start-time", "2026-11-22T00:00:00+09:00", "--duration", "1d"],
                environment: environment)
            cutter.cancel()
            #expect(run.status == 0, "\(run.standardError.suffix(2_000))")
            let posted = await server.postedAsPosts().map(FakeXSeed.Tweet.init)  // in fake X's shape, for the checks the X day shares
            let slots = try await PersonaDayProcessTests.checkPostsAndReplies(
                persona, posted: posted, environment, database,
                written: \.writtenText)
            // Statuses go out unlisted; replies start with the mentioner, as a person's do on Mastodon.
            #expect(await server.posted().allSatisfy { $0.visibility == "unlisted" })
            #expect(posted.filter { $0.inReplyToTweetID != nil }.allSatisfy { $0.text.hasPrefix("@") })
            // The stream: mentions pushed, the cut noticed, polling to catch up, streaming again; mentions after noon answered.
            #expect(run.standardError.contains("mentions: streaming from Mastodon"))
            #expect(run.standardError.contains("mentions: the stream dropped"), "\(run.standardError.suffix(3_000))")
            #expect(run.standardError.contains("mentions: streaming again"))
            #expect(await server.streamsOpened() >= 2)
            #expect(
                posted.contains { $0.inReplyToUserID == persona.friends[1].id && $0.createdAt > Self.dayStart.addingTimeInterval(21 * 3_600) },
                "jiro's mention at 21:10 answered after the cut")

            // Likes: only statuses the trained filter calls favorite, as many as the day's like plan holds.
            let classifier = FavoriteClassifier(store: counts, tokenizer: try PostTokenizer(), threshold: 2)
            let authors = Dictionary(uniqueKeysWithValues: persona.authors.map { ($0.id, $0.username) })
            let timeline = persona.seed.tweets.filter { authors[$0.authorID] != nil && $0.createdAt >= Self.dayStart }
            let verdicts = try await classifier.classify(
                timeline.map { FavoriteClassifier.Post(text: $0.text, authorUsername: authors[$0.authorID]) })
            let favorites = Set(zip(timeline, verdicts).filter { $0.1.isFavorite }.map(\.0.id))
            let liked = Set(await server.favourited().filter { $0.accountID == persona.bot.id }.map(\.statusID))
            #expect(!liked.isEmpty)
            #expect(liked.isSubset(of: favorites), "liked but not favorite: \(liked.subtracting(favorites))")
            try await checkLikesFollowPlan(database, liked: liked)
            #expect(!slots.isEmpty)
        }
    }

    @Test("PORT on Mastodon: the page names the network, links each post to its status on the instance, and counts each endpoint's calls")
    func statusPage() async throws {
        let persona = Self.persona()
        try await Self.withTrainedBot(persona, "mastodon_page", StoreBackends(archive: .sqlite, counts: .sqlite)) { server, environment, _, _ in
            try await TestServers.withTemporaryFolder { folder in
                await server.armClock(Self.dayStart, speed: 720)
                // Looked at once two statuses are out.
                let (bot, port) = try await StatusProcessTests.startServingPage(environment, folder: folder, untilPosts: 2) {
                    await server.posted().filter { $0.inReplyToID == nil }.count
                }
                let base = "http://127.0.0.1:\(port)"
                let page = await StatusProcessTests.get(base + "/", password: "process-test-password")
                let actions = await StatusProcessTests.get(base + "/api/v1/actions?limit=100", password: "process-test-password")
                kill(bot.process.processIdentifier, SIGTERM)
                let (status, _) = try await bot.waitForExit()
                #expect(status == 0, "\(bot.tail)")

                let instance = try #require(environment["BOT_MASTODON_URL"]).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
                let first = try #require(await server.posted().first { $0.inReplyToID == nil })
                let html = page?.body ?? ""
                #expect(page?.status == 200 && html.contains("<h1>mirror_bot on Mastodon"), "\(html.prefix(1_000))")
                #expect(html.contains("href=\"\(instance)/statuses/\(first.id)\""), "\(html.prefix(4_000))")
                #expect(actions?.body.contains("\"post_url\":\"\(instance)/statuses/\(first.id)\"") == true, "\(actions?.body.prefix(2_000) ?? "")")
                // Each endpoint the bot called, as each account, with its last success: the person's statuses and the bot's.
                #expect(html.contains("id=\"endpoints\""))
                #expect(html.contains("POST /api/v1/statuses <span class=\"muted\">as bot</span>"), "\(html.suffix(3_000))")
                #expect(html.contains("GET /api/v1/accounts/:id/statuses <span class=\"muted\">as human</span>"), "\(html.suffix(3_000))")
                #expect(!html.contains("x.com") && !html.contains(persona.botAccount.accessToken))
            }
        }
    }

    @Test("SIGKILL mid-day on Mastodon, then a restart: nothing stored is lost, no slot or mention answered twice")
    func killedMidDay() async throws {
        let persona = Self.persona()
        try await Self.withTrainedBot(persona, "mastodon_killed", StoreBackends(archive: .sqlite, counts: .sqlite)) {
            server, environment, database, _ in
            await server.armClock(Self.dayStart, speed: 1_440)
            let process = Process()
            process.executableURL = try MirrorBotProcess.executable
            process.arguments = ["start", "--speed", "1440", "--start-time", "2026-11-22T00:00:00+09:00"]
            process.environment = environment.merging(["PATH": "/usr/bin:/bin", "LOG_LEVEL": "warning"]) { _, new in new }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let bot = process
            try await waitUntil("the Mastodon bot's first four statuses", within: .seconds(120), every: .milliseconds(20)) {
                await server.posted().filter({ $0.inReplyToID == nil }).count >= 4 || !bot.isRunning
            }
            kill(process.processIdentifier, SIGKILL)
            try await process.exit(within: .seconds(10), "the SIGKILLed bot to end")
            #expect(process.terminationReason == .uncaughtSignal)
            let postsBeforeKill = await server.posted().filter { $0.inReplyToID == nil }.count
            try #require(postsBeforeKill >= 4)
            try await database.checkReachable()

            let resumeAt = await server.now()
            await server.armClock(resumeAt, speed: 1_440)
            // Until 22:00, and ten minutes at least: under load the first run may need past 22:00 (the fake's clock runs
            // at 1,440 times real time) to post its four, and a negative duration is no duration (a CI run failed on it).
            let remaining = max(600, Int(Self.dayStart.addingTimeInterval(22 * 3_600).timeIntervalSince(resumeAt)))
            let again = try await MirrorBotProcess.run(
                ["start", "--speed", "1440", "--start-time", resumeAt.formatted(.iso8601), "--duration", "\(remaining)s"],
                environment: environment)
            #expect(again.status == 0, "\(again.standardError.suffix(2_000))")

            let slots = try #require(try await database.plans.slots(of: Self.day))
            let posted = await server.postedAsPosts()
            let posts = posted.filter { $0.inReplyToPostID == nil }
            let recorded = slots.filter { $0.state == .posted }
            #expect(!slots.contains { $0.state == .posting })
            #expect(recorded.count >= postsBeforeKill - 1)
            // The slot in flight at the kill, sent again after the restart, carries the same Idempotency-Key: one status.
            #expect(posts.count <= slots.filter { $0.state != .planned }.count)
            #expect(recorded.allSatisfy { slot in posts.contains { $0.id == (slot.botPostID?.text ?? "") } })
            #expect(Set(posts.map(\.text)).count == posts.count)  // nothing posted twice
            let replies = posted.filter { $0.inReplyToPostID != nil }
            #expect(Set(replies.compactMap(\.inReplyToPostID)).count == replies.count)  // no mention answered twice
        }
    }
}
