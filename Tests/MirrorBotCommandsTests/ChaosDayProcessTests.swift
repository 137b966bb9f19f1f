import Stores
import BotConfiguration
import Classifier
import FakeX
import Foundation
import Logging
import SeededRandom
import SQLiteStores
import Testing
import TestSupport
import Tokenizer
import Training
import WordCounts
import BotAssembly

/// A chaos day: `mirror_bot start` for a simulated day at 1440x while 5% of the requests to every endpoint of fake X
/// fail (503, the connection dropped before the request is carried out, dropped after it, a truncated JSON answer),
/// Postgres ends every connection and refuses new ones for a while, Redis is killed and started again, and the bot
/// is SIGKILLed twice at seeded moments and started again. Afterwards nothing is doubled, the posts and answers the
/// network shows are what the store recorded (likes too, but for one a SIGKILL cut before its record), the word counts
/// equal a clean learning of the stored examples, and the store passes its integrity check.
@Suite("A chaos day: faults on every endpoint, store restarts and SIGKILLs, and nothing doubled", .serialized)
struct ChaosDayProcessTests {
    static let dayStart = PersonaDayProcessTests.dayStart
    /// Every fault fake X injects at random that a day can go on through, each of which must happen. Not among them:
    /// a usage cap and a 403 (refusals: the endpoint is not asked again for an hour, which at 5% of calls stops most
    /// of a day; tested in `PollingRefusalTests` and the virtual days) and a hang (20 s of real time, eight hours of
    /// this day; tested in `HangingPostProcessTests` and the virtual days).
    static let faults: [FakeXFault.Kind] = [.serviceUnavailable, .internalServerError, .closeBeforeHandling, .closeMidResponse, .truncatedJSON]

    @Test("A chaos day: no slot, text, reply or like doubled; records match the network; word counts equal a clean learning; store intact",
          arguments: PersonaDayProcessTests.backends)
    func chaosDay(_ backends: StoreBackends) async throws {
        var persona = PersonaDayProcessTests.persona()
        persona.seed.access = .enterprise
        let name = "chaos"
        let server = FakeXServer(seed: persona.seed, logger: Logger(label: name, factory: { _ in SwiftLogNoOpLogHandler() }))
        try await TestServers.withTemporaryFolder { folder in
            try await server.withRunning { base in
                switch backends.archive {
                case .postgres:
                    let redis = try await OwnRedis.started(folder: folder)
                    defer { redis.stop() }
                    try await TestServers.withScratchDatabase(name) { databaseURL async throws in
                        try await Self.run(persona, server, base: base, folder: folder, database: databaseURL, redis: redis)
                    }
                case .sqlite, .memory:
                    try await Self.run(persona, server, base: base, folder: folder, database: nil, redis: nil)
                }
            }
        }
    }

    static func run(_ persona: FakeXPersona, _ server: FakeXServer, base: URL, folder: URL, database databaseURL: DatabaseURL?,
                    redis: OwnRedis?) async throws {
        var environment = try PersonaDayProcessTests.environment(persona, base: base, database: databaseURL, prefix: "",
                                                                 data: folder.appending(path: "bot.sqlite").path)
        if let redis { environment["REDIS_URL"] = "redis://127.0.0.1:\(redis.port)" }
        environment.merge(["LIKES": "on", "X_DAILY_BUDGET": "100", "LEARN_POLL_SECONDS": "900", "CHECK_ORIGINALS": "true",
                           "LOG_LEVEL": "info"]) { $1 }
        for command in [["migrate"], ["train", "scheduler", "--yes"], ["train", "classifier", "--yes"]] {
            let result = try await MirrorBotProcess.run(command, environment: environment)
            try #require(result.status == 0, "\(command): \(result.standardError)")
        }

        // The moments, seeded: two SIGKILLs, one in the morning and one in the evening; the stores restart around noon.
        var random = SplitMix64(seed: 18)
        let firstKill = dayStart.addingTimeInterval(Double(Int.random(in: (6 * 60)...(10 * 60), using: &random)) * 60)
        let secondKill = dayStart.addingTimeInterval(Double(Int.random(in: (17 * 60)...(21 * 60), using: &random)) * 60)
        let postgresRestart = dayStart.addingTimeInterval(12 * 3_600), redisRestart = dayStart.addingTimeInterval(14 * 3_600)
        let dayEnd = dayStart.addingTimeInterval(86_400)

        await server.setChaos(rate: 0.05, kinds: faults, seed: 18)
        await server.armClock(dayStart, speed: PersonaDayProcessTests.speed)
        // The fake's clock runs at 1,440x: a bot day is a minute of real time. Waiting three for one moment of it is a
        // clock that stopped, not a slow machine.
        func waitForServerClock(_ moment: Date) async throws {
            try await waitUntil("the fake's clock to reach \(moment.formatted(.iso8601))", within: .seconds(180)) { await server.now() >= moment }
        }
        func start(until end: Date?) async throws -> RunningBot {
            let from = await server.now()
            var arguments = ["start", "--speed", "1440", "--start-time", from.formatted(.iso8601)]
            // Ten minutes at least: never a negative duration, whatever the fake's clock says under load.
            if let end { arguments += ["--duration", "\(max(600, Int(end.timeIntervalSince(from))))s"] }
            return try RunningBot(arguments, environment: environment, folder: folder)
        }
        var logs: [String] = []

        // Morning: the first run, killed.
        let first = try await start(until: nil)
        try await waitForServerClock(firstKill)
        kill(first.process.processIdentifier, SIGKILL)
        _ = try await first.waitForExit()
        #expect(first.process.terminationReason == .uncaughtSignal, "\(first.tail)")
        logs.append(first.log)

        // Midday: the second run, through a Postgres restart (every connection ended, new ones refused for two real
        // seconds, 48 bot minutes) and a Redis restart (killed, started again from its append-only file), then killed.
        let second = try await start(until: nil)
        if let databaseURL {
            try await waitForServerClock(postgresRestart)
            try await TestServers.setOutage(true, of: databaseURL.database)
            try await Task.sleep(for: .seconds(2))
            try await TestServers.setOutage(false, of: databaseURL.database)
        }
        if let redis {
            try await waitForServerClock(redisRestart)
            redis.stop()
            try await Task.sleep(for: .seconds(1))
            try await redis.start()
        }
        try await waitForServerClock(secondKill)
        kill(second.process.processIdentifier, SIGKILL)
        _ = try await second.waitForExit()
        #expect(second.process.terminationReason == .uncaughtSignal, "\(second.tail)")
        logs.append(second.log)

        // Evening: the third run, to the end of the day, stopped as the duration ends.
        let third = try await start(until: dayEnd.addingTimeInterval(60))
        let (status, _) = try await third.waitForExit()
        #expect(status == 0, "\(third.tail)")
        logs.append(third.log)
        await server.setChaos(rate: 0, kinds: [], seed: 0)
        for log in logs { #expect(!log.contains("Fatal error"), "\(log.suffix(2_000))") }

        let injected = await server.chaosInjected()
        let configuration = try Configuration(environment: environment)
        let (counts, _) = try WordCountStores.open(for: configuration.storage)
        try await BotParts(configuration: configuration, logger: TestServers.logger).withRunningAsIs { database in
            // Posts: every slot once; no text twice; every post the network shows is the one its slot recorded (one
            // sent and then killed before its record is read back at the restart).
            let slots = try #require(try await database.plans.slots(of: PersonaDayProcessTests.day))
            let posted = await server.posted()
            let posts = posted.filter { $0.inReplyToTweetID == nil && $0.createdAt < dayEnd }
            #expect(!slots.contains { $0.state == .posting || $0.state == .planned }, "\(slots.map { ($0.minute, $0.state) })")
            #expect(Set(posts.map(\.text)).count == posts.count, "a text posted twice")
            let recordedPosts = Set(slots.compactMap(\.botTweetID).map(String.init))
            // A slot near midnight may go out a little after it (late under load): every post made counts here.
            let allPosts = Set(posted.filter { $0.inReplyToTweetID == nil }.map(\.id))
            #expect(recordedPosts.isSubset(of: allPosts), "recorded but not on the network: \(recordedPosts.subtracting(allPosts))")
            let unrecordedPosts = posts.filter { !recordedPosts.contains($0.id) }
            #expect(unrecordedPosts.isEmpty, "on the network but not recorded: \(unrecordedPosts.map(\.text))")
            #expect(posts.count <= slots.filter { $0.state != .planned }.count)
            #expect(slots.filter { $0.state == .posted }.count >= slots.count / 2, "\(slots.map { ($0.minute, $0.state, $0.reason ?? "") })")

            // Replies: no mention answered twice; each answer the network shows was recorded (read back after a SIGKILL).
            let replies = posted.filter { $0.inReplyToTweetID != nil }
            #expect(Set(replies.compactMap(\.inReplyToTweetID)).count == replies.count, "a mention answered twice")
            let handled = try await database.mentions.handledMentions()
            let recordedReplies = Set(handled.compactMap(\.replyTweetID).map(String.init))
            #expect(recordedReplies.isSubset(of: Set(replies.map(\.id))))
            #expect(replies.filter { !recordedReplies.contains($0.id) }.isEmpty, "answers on the network but not recorded")

            // Likes: the network's likes and the log's, the same but for a like a SIGKILL cut between X's answer and the
            // log (at most one per SIGKILL; liking twice is impossible on X).
            let networkLikes = Set(await server.liked().filter { $0.userID == persona.bot.id }.map(\.tweetID))
            let loggedLikes = Set(try await database.likes.likes().map { String($0.tweetID) })
            #expect(!networkLikes.isEmpty)
            #expect(loggedLikes.isSubset(of: networkLikes), "logged but not liked: \(loggedLikes.subtracting(networkLikes))")
            #expect(networkLikes.subtracting(loggedLikes).count <= 2, "liked but not logged: \(networkLikes.subtracting(loggedLikes))")

            // Learning: the word counts equal a clean learning of the stored examples, one by one (an item learned
            // twice, or learned and not recorded, would differ).
            let examples = database.examples
            let stored = try await examples.all()
            let tokenizer = try TweetTokenizer()
            let chaosCounts = FavoriteClassifier(store: counts, tokenizer: tokenizer, threshold: 2)
            let clean = FavoriteClassifier(store: try SQLiteWordCounts(path: folder.appending(path: "clean.sqlite").path), tokenizer: tokenizer,
                                           threshold: 2)
            let report = try await CountsRebuilder(examples: examples, classifier: clean).rebuild()
            #expect(report.examples == stored.count)
            let features = try Set(stored.flatMap { try clean.features(of: .init(text: $0.text, authorUsername: $0.author)) }).sorted()
            let learned = try await chaosCounts.store.counts(for: features)
            let expected = try await clean.store.counts(for: features)
            #expect(learned == expected, "word counts differ from a clean learning of the \(stored.count) examples")
            #expect(stored.contains { $0.source == "timeline" && $0.learnedAt >= dayStart }, "nothing learned during the day")

            // The store's own integrity check.
            try await database.checkReachable()
            if databaseURL == nil {
                let check = try await PythonScript.runInline("import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])",
                                                       [configuration.storage.embeddedDataPath])
                #expect(check.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(check.output)")
            }

            // The day met every kind of fault it was given, and more than a handful in all.
            let byKind = Dictionary(grouping: injected, by: \.kind).mapValues(\.count)
            for kind in Self.faults { #expect(byKind[kind, default: 0] > 0, "no \(kind.rawValue) fault injected: \(byKind)") }
            #expect(injected.count >= 20, "\(injected.count) faults injected")
            print("chaos day (\(databaseURL == nil ? "sqlite+sqlite" : "postgres+redis")): \(injected.count) faults injected "
                  + "(\(byKind.map { "\($0.key.rawValue): \($0.value)" }.sorted().joined(separator: ", "))) over "
                  + "\(Set(injected.map(\.endpoint)).count) endpoints; 2 SIGKILLs\(databaseURL == nil ? "" : ", Postgres and Redis restarted"); "
                  + "\(posts.count) posts for \(slots.count) slots (\(slots.filter { $0.state == .skipped }.count) skipped), \(replies.count) replies, "
                  + "\(networkLikes.count) likes, \(stored.count) training examples; unrecorded: \(unrecordedPosts.count) posts")
        }
        try await counts.removeAll()
    }
}
