import BotConfiguration
import FakeMastodon
import Foundation
import RedisClient
import TestSupport
import Testing

/// `mirror_bot bots` and `mirror_bot fleet` as a community runs them: two people's mirrors added from env files,
/// trained with `bots exec`, run by fleet processes on one Postgres and one Redis against a fake Mastodon instance
/// whose clock runs at the bots' speed. A second process takes its share, a SIGKILLed one's bot is taken over once
/// its lease lapses, a paused bot stops, SIGTERM hands the bots over, and a removal takes the bot's data.
@Suite("mirror_bot fleet: bots as data, claimed by processes", .serialized)
struct FleetProcessTests {
    static let dayStart = MastodonDayProcessTests.dayStart
    /// Two people (ids 100, 101) and their mirrors (200, 201).
    static let people = [(person: "100", username: "alice", bot: "200"), (person: "101", username: "bob", bot: "201")]

    /// Three weeks of each person: a status at each of 24 hours of the day, each its own text.
    static func seed() -> FakeMastodonSeed {
        var statuses: [FakeMastodonSeed.Status] = []
        var number = 0
        for (person, username, _) in people {
            for day in 1...21 {
                let start = dayStart.addingTimeInterval(Double(-day) * 86_400)
                for hour in 0..<24 {
                    number += 1
                    statuses.append(
                        .init(
                            id: MastodonDayProcessTests.id(number), accountID: person, content: "<p>\(username) \(day)日前 \(hour)時の投稿</p>",
                            createdAt: start.addingTimeInterval(Double(hour * 3_600 + 300))))
                }
            }
        }
        var accounts: [FakeMastodonSeed.Account] = []
        for (person, username, bot) in people {
            accounts.append(.init(id: person, username: username, token: "\(username)-token", scopes: ["read"]))
            accounts.append(
                .init(
                    id: bot, username: "\(username)_mirror", token: "\(username)-bot-token",
                    scopes: ["read", "write:statuses", "write:favourites"], bot: true))
        }
        return FakeMastodonSeed(now: dayStart, accounts: accounts, statuses: statuses, follows: ["200": ["100"], "201": ["101"]])
    }

    /// The leases of the fleets that post: production's are 20 s renewed every 5 s; 10 s renewed every second keeps a
    /// takeover to seconds while a network write still gets 7 s or more (a write's time limit is cut to what its lease has
    /// left: with 4 s leases it was 3 s, and creates on a loaded machine ran out of it, were read back before the fake
    /// had made them, and went out twice once the fake's idempotency key, an hour of its 1,440x clock, had expired; with
    /// 10 s it happened again in a run of the whole suite, and the fake now keeps a key a real minute too, as Mastodon's
    /// real hour would).
    static let leaseSeconds = 10
    /// A takeover's bound: production's (the lease and a round) three times, for a loaded machine.
    static let takeoverBound = Duration.seconds(3 * (leaseSeconds + 1))

    /// What every process of the test's fleet shares: the scratch database, the test's Redis, the key, and leases of
    /// `leaseSeconds` renewed every second.
    static func environment(_ database: DatabaseURL, leaseSeconds: Int = FleetProcessTests.leaseSeconds) throws -> [String: String] {
        [
            "DATABASE_URL": database.connectionText, "REDIS_URL": try TestServers.redisURL().redacted,
            "FLEET_KEY": "a fleet key of the test, long enough", "FLEET_LEASE_SECONDS": String(leaseSeconds), "FLEET_ROUND_SECONDS": "1",
        ]
    }

    /// A bot's own settings, as its env file says them.
    static func settings(_ username: String, instance: URL) -> String {
        """
        NETWORK=mastodon
        HUMAN_MASTODON_URL=\(instance.absoluteString)
        HUMAN_MASTODON_TOKEN=\(username)-token
        BOT_MASTODON_URL=\(instance.absoluteString)
        BOT_MASTODON_TOKEN=\(username)-bot-token
        TZ=Asia/Tokyo
        LIKES=off
        MISSED_SLOT_GRACE=60
        """
    }

    @Test(
        "bots add, exec train, two fleet processes sharing two bots, a SIGKILLed process's bot taken over, pause, SIGTERM handing over, a stalled process fenced off, remove"
    )
    func fleet() async throws {
        let server = FakeMastodonServer(seed: Self.seed())
        try await server.withRunning { instance in
            try await TestServers.withScratchDatabase("fleet") { database in
                try await TestServers.withTemporaryFolder { folder in
                    let suffix = String(UUID().uuidString.prefix(6).lowercased())
                    let names = Self.people.map { "\($0.username)-\(suffix)" }
                    let environment = try Self.environment(database)
                    // A bot's settings may not name the fleet's shared parts.
                    let refused = try await MirrorBotProcess.run(
                        ["bots", "add", names[0], "--env-file", "bot.env"], environment: environment,
                        files: ["bot.env": Self.settings("alice", instance: instance) + "\nDATABASE_URL=postgres://elsewhere/db\n"])
                    #expect(refused.status != 0 && refused.standardError.contains("DATABASE_URL"), "\(refused.standardError)")

                    for (name, person) in zip(names, Self.people) {
                        let added = try await MirrorBotProcess.run(
                            ["bots", "add", name, "--env-file", "bot.env"], environment: environment,
                            files: ["bot.env": Self.settings(person.username, instance: instance)])
                        #expect(added.status == 0, "\(added.standardError.suffix(1_000))")
                        #expect(added.standardOutput.contains("Added the bot \(name) (mastodon)"), "\(added.standardOutput)")
                        #expect(!added.standardOutput.contains("-token") && !added.standardError.contains("-token"), "a secret printed")
                        // Trained as that bot: its person's statuses, in its own stores.
                        let trained = try await MirrorBotProcess.run(["bots", "exec", name, "--", "train", "scheduler"], environment: environment)
                        #expect(trained.status == 0, "\(trained.standardError.suffix(1_000))")
                        #expect(trained.standardOutput.contains("Archived 504 new posts of the human"), "\(trained.standardOutput)")
                    }
                    // A process with another key stops at once, pausing nothing.
                    let wrongKey = try await MirrorBotProcess.run(
                        ["fleet"], environment: environment.merging(["FLEET_KEY": "another key, just as long"]) { $1 })
                    #expect(
                        wrongKey.status != 0 && wrongKey.standardError.contains("FLEET_KEY does not open the settings of the bot"),
                        "\(wrongKey.standardError.suffix(1_000))")

                    await server.armClock(Self.dayStart, speed: 1_440)
                    let port = try FreePort.pick()
                    let password = "the fleet's page, please"
                    let first = try RunningBot(
                        ["fleet", "--speed", "1440", "--start-time", Self.dayStart.formatted(.iso8601)],
                        environment: environment.merging(["PORT": String(port), "STATUS_PASSWORD": password]) { $1 }, folder: folder)
                    defer { if first.process.isRunning { kill(first.process.processIdentifier, SIGKILL) } }
                    for name in names { #expect(try await first.waitForLog("fleet: running bot \(name) "), "\(first.tail)") }
                    #expect(
                        try await Self.waitUntil {
                            let posted = await server.posted()
                            return posted.count { $0.accountID == "200" } >= 2 && posted.count { $0.accountID == "201" } >= 2
                        },
                        "\(first.tail)")

                    // Its status server: the fleet's list, each bot's page and API, metrics by bot, health of the process.
                    let base = "http://127.0.0.1:\(port)"
                    #expect(await StatusProcessTests.get(base + "/healthz")?.status == 200)
                    #expect(await StatusProcessTests.get(base + "/")?.status == 401)
                    let list = await StatusProcessTests.get(base + "/", password: password)
                    for name in names {
                        #expect(
                            list?.body.contains("<a href=\"/bots/\(name)/\">\(name)</a></td><td>mastodon</td><td>running here</td>") == true,
                            "\(String(describing: list))")
                    }
                    let botsJSON = await StatusProcessTests.get(base + "/api/v1/bots", password: password)
                    #expect(
                        botsJSON?.status == 200 && botsJSON?.body.contains("\"today\":{") == true && botsJSON?.body.contains("\"posted\":") == true,
                        "\(String(describing: botsJSON))")
                    let page = await StatusProcessTests.get(base + "/bots/\(names[0])/", password: password)
                    #expect(
                        page?.status == 200 && page?.body.contains("<h1>mirror_bot on Mastodon <span class=\"ok\"") == true
                            && page?.body.contains("Today's plan") == true,
                        "\(String(describing: page))")
                    let actions = await StatusProcessTests.get(base + "/bots/\(names[0])/api/v1/actions", password: password)
                    #expect(actions?.status == 200 && actions?.body.contains("\"kind\":\"posted\"") == true, "\(String(describing: actions))")
                    #expect(await StatusProcessTests.get(base + "/bots/nobody/", password: password)?.status == 404)
                    let metrics = await StatusProcessTests.get(base + "/metrics", password: password)
                    for name in names {
                        #expect(
                            metrics?.body.contains("mirror_bot_posts_total{bot=\"\(name)\"}") == true,
                            "\(String(describing: metrics?.body.prefix(3_000)))")
                    }

                    // A second process: the first hands the newest bot over, the second runs it.
                    let second = try RunningBot(
                        ["fleet", "--speed", "1440", "--start-time", (await server.now()).formatted(.iso8601)],
                        environment: environment, folder: folder)
                    defer { if second.process.isRunning { kill(second.process.processIdentifier, SIGKILL) } }
                    #expect(try await first.waitForLog("fleet: handing bot \(names[1]) over (2 processes share 2 bots)"), "\(first.tail)")
                    #expect(try await second.waitForLog("fleet: running bot \(names[1]) "), "\(second.tail)")
                    let beforeKill = await Self.posts(server, by: "201").count
                    #expect(
                        try await Self.waitUntil { await Self.posts(server, by: "201").count > beforeKill },
                        "bob's bot posts on the second process: \(second.tail)")

                    // SIGKILL: its lease lapses unrenewed, and the first process takes the bot back.
                    kill(second.process.processIdentifier, SIGKILL)
                    _ = try await second.waitForExit()
                    let killedAt = ContinuousClock.now
                    #expect(
                        try await Self.waitUntil(within: Self.takeoverBound) {
                            first.log.components(separatedBy: "fleet: running bot \(names[1]) ").count == 3
                        },
                        "not running again within \(Self.takeoverBound) of the SIGKILL: \(first.tail)")
                    print(
                        "fleet: bot running again \(ContinuousClock.now - killedAt) after the SIGKILL (lease \(Self.leaseSeconds) s, rounds of 1 s)")
                    let afterKill = await Self.posts(server, by: "201").count
                    #expect(
                        try await Self.waitUntil { await Self.posts(server, by: "201").count > afterKill }, "bob's bot posts again: \(first.tail)")

                    // `train clear` and `train rebuild` do not run beside a fleet process running the bot: refused, nothing changed.
                    let beforeClear = await Self.posts(server, by: "200").count
                    let clear = try await MirrorBotProcess.run(["bots", "exec", names[0], "--", "train", "clear"], environment: environment)
                    #expect(
                        clear.status != 0
                            && clear.standardError.contains(
                                "train clear empties what it runs on, so it does not run while the bot does: the fleet process "),
                        "\(clear.standardError)")
                    #expect(clear.standardError.contains("mirror_bot bots pause \(names[0])"), "\(clear.standardError)")
                    #expect(
                        try await Self.waitUntil { await Self.posts(server, by: "200").count > beforeClear },
                        "alice's bot goes on posting: \(first.tail)")

                    // Paused by hand: stopped within a round, its lease let go, listed with its reason.
                    let paused = try await MirrorBotProcess.run(["bots", "pause", names[0]], environment: environment)
                    #expect(paused.status == 0, "\(paused.standardError)")
                    #expect(try await first.waitForLog("fleet: bot \(names[0]) is no longer this process's"), "\(first.tail)")
                    #expect(
                        try await Self.waitUntil {
                            let listed = try? await MirrorBotProcess.run(["bots", "list"], environment: environment)
                            return listed?.standardOutput.contains("\(names[0])\tmastodon\tpaused: paused by hand\n") == true
                        }, "its lease was not let go: \(first.tail)")
                    let listed = try await MirrorBotProcess.run(["bots", "list"], environment: environment)
                    #expect(listed.standardOutput.contains("\(names[0])\tmastodon\tpaused: paused by hand\n"), "\(listed.standardOutput)")
                    // Paused and stopped (its lease let go), it may be cleared.
                    let cleared = try await MirrorBotProcess.run(["bots", "exec", names[0], "--", "train", "clear"], environment: environment)
                    #expect(
                        cleared.status == 0 && cleared.standardOutput.contains("Cleared the archive (504 posts)"),
                        "\(cleared.standardError.suffix(1_000))")
                    #expect(listed.standardOutput.contains("\(names[1])\tmastodon\trunning on "), "\(listed.standardOutput)")

                    // SIGTERM: the bots stop gracefully and their leases go at once.
                    kill(first.process.processIdentifier, SIGTERM)
                    let exit = try await first.waitForExit()
                    #expect(exit.status == 0, "\(first.tail)")
                    #expect(first.log.contains("fleet: stopping 1 bots and letting their leases go"), "\(first.tail)")
                    let afterStop = try await MirrorBotProcess.run(["bots", "list"], environment: environment)
                    #expect(afterStop.standardOutput.contains("\(names[1])\tmastodon\twaiting for a process"), "\(afterStop.standardOutput)")

                    // A process stalled past its lease (SIGSTOP): another takes the bot; once the stalled one runs again, the
                    // bot's statements there are refused (its hold is gone), and it stops the bot without pausing it.
                    let stalled = try RunningBot(
                        ["fleet", "--speed", "1440", "--start-time", (await server.now()).formatted(.iso8601)],
                        environment: environment, folder: folder)
                    defer {
                        if stalled.process.isRunning {
                            kill(stalled.process.processIdentifier, SIGCONT)
                            kill(stalled.process.processIdentifier, SIGKILL)
                        }
                    }
                    #expect(try await stalled.waitForLog("fleet: running bot \(names[1]) "), "\(stalled.tail)")
                    let beforeStall = await Self.posts(server, by: "201").count
                    #expect(try await Self.waitUntil { await Self.posts(server, by: "201").count > beforeStall }, "\(stalled.tail)")
                    kill(stalled.process.processIdentifier, SIGSTOP)
                    let taker = try RunningBot(
                        ["fleet", "--speed", "1440", "--start-time", (await server.now()).formatted(.iso8601)],
                        environment: environment, folder: folder)
                    defer { if taker.process.isRunning { kill(taker.process.processIdentifier, SIGKILL) } }
                    #expect(try await taker.waitForLog("fleet: running bot \(names[1]) "), "\(taker.tail)")
                    kill(stalled.process.processIdentifier, SIGCONT)
                    #expect(try await stalled.waitForLog("no longer this process's"), "\(stalled.tail)")
                    let afterStall = try await MirrorBotProcess.run(["bots", "list"], environment: environment)
                    #expect(
                        afterStall.standardOutput.contains("\(names[1])\tmastodon\trunning on "),
                        "not paused by the stalled process: \(afterStall.standardOutput)")
                    for process in [stalled, taker] {
                        kill(process.process.processIdentifier, SIGTERM)
                        #expect(try await process.waitForExit().status == 0, "\(process.tail)")
                    }

                    // Nothing posted twice: each bot's posts are each a different status of its own person's.
                    for (person, username, bot) in Self.people {
                        let posts = await Self.posts(server, by: bot)
                        #expect(Set(posts.map(\.content)).count == posts.count, "\(username)'s bot posted a status twice: \(posts.map(\.content))")
                        #expect(posts.allSatisfy { $0.content.contains("\(username) ") }, "\(person): \(posts.map(\.content))")
                    }

                    let removed = try await MirrorBotProcess.run(["bots", "remove", names[0], "--yes"], environment: environment)
                    #expect(removed.status == 0 && removed.standardOutput.contains("Removed \(names[0])"), "\(removed.standardError)")
                    _ = try await MirrorBotProcess.run(["bots", "remove", names[1], "--yes"], environment: environment)
                    let none = try await MirrorBotProcess.run(["bots", "list"], environment: environment)
                    #expect(none.standardOutput.contains("No bots yet"), "\(none.standardOutput)")
                }
            }
        }
    }

    @Test(
        "bots adopt: the bot a `start` ran becomes a fleet's bot with its data moved in place (its tables, its word counts); refused while `start` runs it; `start` on the old schema refused after; the fleet runs it"
    )
    func adoptsTheSingleBot() async throws {
        let server = FakeMastodonServer(seed: Self.seed())
        try await server.withRunning { instance in
            try await TestServers.withScratchDatabase("fleet") { database in
                try await TestServers.withTemporaryFolder { folder in
                    let suffix = String(UUID().uuidString.prefix(6).lowercased())
                    let name = "solo-\(suffix)"
                    let prefix = "single-\(suffix):"
                    let shared = try Self.environment(database)
                    // The single bot: its variables in the environment, as `start` reads them, its counts under its own prefix.
                    var single = shared.merging(["REDIS_KEY_PREFIX": prefix]) { $1 }
                    for line in Self.settings("alice", instance: instance).split(separator: "\n") {
                        let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                        single[parts[0]] = parts[1]
                    }
                    let notYet = try await MirrorBotProcess.run(["bots", "adopt", name], environment: single)
                    #expect(
                        notYet.status != 0 && notYet.standardError.contains("There are no stores of a bot in the schema public"),
                        "\(notYet.standardError)")
                    let migrated = try await MirrorBotProcess.run(["migrate"], environment: single)
                    #expect(migrated.status == 0, "\(migrated.standardError.suffix(1_000))")
                    let trained = try await MirrorBotProcess.run(["train", "scheduler"], environment: single)
                    #expect(trained.standardOutput.contains("Archived 504 new posts of the human"), "\(trained.standardError.suffix(1_000))")
                    let redis = RedisConnection(url: try TestServers.redisURL())
                    defer { redis.close() }
                    _ = try await redis.pipeline([
                        ["HSET", prefix + "features:猫", "favorite", "3", "normal", "1"], ["SET", prefix + "categories:favorite", "7"],
                        ["SADD", prefix + "learned:favorite", "11", "12"],
                    ])

                    // Refused while `start` runs it: nothing moved.
                    await server.armClock(Self.dayStart, speed: 1_440)
                    let running = try RunningBot(
                        ["start", "--speed", "1440", "--start-time", Self.dayStart.formatted(.iso8601)], environment: single, folder: folder)
                    defer { if running.process.isRunning { kill(running.process.processIdentifier, SIGKILL) } }
                    #expect(try await running.waitForLog("running; SIGTERM"), "\(running.tail)")
                    let refused = try await MirrorBotProcess.run(["bots", "adopt", name], environment: single)
                    #expect(
                        refused.status != 0 && refused.standardError.contains("Not adopted: Another mirror_bot start is running for this bot"),
                        "\(refused.standardError)")
                    let none = try await MirrorBotProcess.run(["bots", "list"], environment: shared)
                    #expect(none.standardOutput.contains("No bots yet"), "\(none.standardOutput)")
                    kill(running.process.processIdentifier, SIGTERM)
                    #expect(try await running.waitForExit().status == 0, "\(running.tail)")
                    let postedAlone = await Self.posts(server, by: "200")

                    // Adopted: the tables and the counts moved (these and the training's flags), nothing of the environment printed.
                    let keysBefore = try await redis.pipeline([["KEYS", prefix + "*"]])[0].arrayValue?.count ?? 0
                    #expect(keysBefore >= 4)
                    let adopted = try await MirrorBotProcess.run(["bots", "adopt", name], environment: single)
                    #expect(
                        adopted.status == 0 && adopted.standardOutput.contains("Adopted the bot as \(name) (mastodon): "),
                        "\(adopted.standardError.suffix(1_000))")
                    #expect(adopted.standardOutput.contains(" \(keysBefore) Redis keys under \(name):"), "\(adopted.standardOutput)")
                    #expect(!adopted.standardOutput.contains("-token") && !adopted.standardError.contains("-token"), "a secret printed")
                    let moved = try await redis.pipeline([
                        ["HGETALL", name + ":features:猫"], ["GET", name + ":categories:favorite"],
                        ["SMEMBERS", name + ":learned:favorite"], ["EXISTS", prefix + "features:猫", prefix + "categories:favorite"],
                    ])
                    #expect(Set(moved[0].arrayValue?.compactMap(\.stringValue) ?? []) == ["favorite", "3", "normal", "1"], "\(moved[0])")
                    #expect(moved[1].stringValue == "7" && Set(moved[2].arrayValue?.compactMap(\.stringValue) ?? []) == ["11", "12"], "\(moved)")
                    #expect(moved[3].integerValue == 0, "the old keys are gone")
                    let again = try await MirrorBotProcess.run(["bots", "adopt", "\(name)-again"], environment: single)
                    #expect(
                        again.status != 0 && again.standardError.contains("this bot was adopted into the fleet as \(name)"), "\(again.standardError)")

                    // `start` on the old schema is refused, naming the fleet's bot.
                    let startAgain = try await MirrorBotProcess.run(["start"], environment: single)
                    #expect(
                        startAgain.status != 0 && startAgain.standardError.contains("this bot was adopted into the fleet as \(name)"),
                        "\(startAgain.standardError.suffix(1_000))")

                    // The fleet runs it on what it had: it posts, never a status it posted alone.
                    let fleet = try RunningBot(
                        ["fleet", "--speed", "1440", "--start-time", (await server.now()).formatted(.iso8601)], environment: shared, folder: folder)
                    defer { if fleet.process.isRunning { kill(fleet.process.processIdentifier, SIGKILL) } }
                    #expect(try await fleet.waitForLog("fleet: running bot \(name) "), "\(fleet.tail)")
                    #expect(try await Self.waitUntil { await Self.posts(server, by: "200").count > postedAlone.count }, "\(fleet.tail)")
                    kill(fleet.process.processIdentifier, SIGTERM)
                    #expect(try await fleet.waitForExit().status == 0, "\(fleet.tail)")
                    let posts = await Self.posts(server, by: "200")
                    #expect(Set(posts.map(\.content)).count == posts.count, "a status posted twice: \(posts.map(\.content))")
                    let cleared = try await MirrorBotProcess.run(["bots", "exec", name, "--", "train", "clear"], environment: shared)
                    #expect(
                        cleared.status == 0 && cleared.standardOutput.contains("Cleared the archive (504 posts)"),
                        "\(cleared.standardError.suffix(1_000))")
                }
            }
        }
    }

    @Test(
        "bots add with a file it refuses (CR-only line ends, a malformed value before a secret; a secret in a URL's user part) names the variable and prints no value of the file (issue 43)"
    )
    func addRefusesWithoutPrintingTheFile() async throws {
        try await TestServers.withScratchDatabase("fleet") { database in
            let environment = try Self.environment(database)
            let instance = URL(string: "http://127.0.0.1:9")!
            let files = [
                // Each line ends in a lone CR, as an old Mac editor saves it: read as lines all the same.
                Self.settings("alice", instance: instance).replacingOccurrences(of: "\n", with: "\r")
                    .replacingOccurrences(of: "MISSED_SLOT_GRACE=60", with: "MISSED_SLOT_GRACE=soon\rBOT_MASTODON_TOKEN=sekrit-after-the-bad-one"),
                Self.settings("alice", instance: instance).replacingOccurrences(
                    of: "BOT_MASTODON_URL=http://", with: "BOT_MASTODON_URL=http://mallory:sekrit-in-the-url@"),
            ]
            for (index, file) in files.enumerated() {
                let added = try await MirrorBotProcess.run(
                    ["bots", "add", "refused-\(index)", "--env-file", "bot.env"], environment: environment,
                    files: ["bot.env": file])
                let printed = added.standardOutput + added.standardError
                #expect(added.status != 0, "file \(index) was accepted: \(printed.suffix(1_000))")
                #expect(printed.contains(index == 0 ? "MISSED_SLOT_GRACE" : "BOT_MASTODON_URL"), "file \(index): \(printed.suffix(1_000))")
                #expect(
                    !printed.contains("sekrit") && !printed.contains("alice-token") && !printed.contains("alice-bot-token"),
                    "file \(index): a value of the file printed: \(printed.suffix(1_000))")
            }
            let listed = try await MirrorBotProcess.run(["bots", "list"], environment: environment)
            #expect(!listed.standardOutput.contains("refused-"), "\(listed.standardOutput)")
        }
    }

    @Test(
        "SIGTERM while a bot is still starting (its instance does not answer, so it keeps asking who it is): the bot is cancelled once its lease's length has passed, and the process ends"
    )
    func stopsABotStillStarting() async throws {
        try await TestServers.withScratchDatabase("fleet") { database in
            try await TestServers.withTemporaryFolder { folder in
                let refusing = RefusingPort()  // held: nothing else may listen there
                defer { refusing.close() }
                let silent = URL(string: "http://127.0.0.1:\(refusing.port)")!
                let environment = try Self.environment(database, leaseSeconds: 3)
                let added = try await MirrorBotProcess.run(
                    ["bots", "add", "silent", "--env-file", "bot.env"], environment: environment,
                    files: ["bot.env": Self.settings("alice", instance: silent)])
                #expect(added.status == 0, "\(added.standardError.suffix(1_000))")
                let fleet = try RunningBot(["fleet"], environment: environment, folder: folder)
                defer { if fleet.process.isRunning { kill(fleet.process.processIdentifier, SIGKILL) } }
                #expect(try await fleet.waitForLog("fleet: running bot silent "), "\(fleet.tail)")
                #expect(try await fleet.waitForLog("failed"), "the bot asks its instance: \(fleet.tail)")
                kill(fleet.process.processIdentifier, SIGTERM)
                let exit = try await fleet.waitForExit()
                #expect(exit.status == 0, "\(fleet.tail)")
                #expect(fleet.log.contains("fleet: bot silent did not stop within 3.0 seconds of being asked to; cancelling it"), "\(fleet.tail)")
                #expect(!fleet.log.contains("left to end with the process"), "\(fleet.tail)")
                let listed = try await MirrorBotProcess.run(["bots", "list"], environment: environment)
                #expect(listed.standardOutput.contains("silent\tmastodon\twaiting for a process"), "\(listed.standardOutput)")
            }
        }
    }

    /// The statuses the bot account `id` posted.
    static func posts(_ server: FakeMastodonServer, by id: String) async -> [FakeMastodonSeed.Status] {
        await server.posted().filter { $0.accountID == id }
    }

    /// Waits, in real time (the fleet is other processes), until `condition` holds; false after `limit`. The default is
    /// a whole day of the bots at 1,440x (a minute): a bot's next slot lies within it, whatever the hour.
    static func waitUntil(within limit: Duration = .seconds(60), _ condition: () async -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return await condition()
    }
}
