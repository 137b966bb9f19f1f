import BotClock
import BotConfiguration
import BotCore
import FakeMisskey
import Foundation
import MisskeyAPI
import PostgresStores
import Stores
import TestSupport
import Testing

/// Failover on a network that posts whatever is sent: two `mirror_bot fleet` processes share one Misskey bot (the
/// fake Misskey keeps no idempotency key and refuses no duplicate, so a slot sent twice shows as two notes). The
/// holder is SIGKILLed and the other takes the bot over; then the new holder is stalled (SIGSTOP) past its lease, a
/// third process takes the bot, and the stalled one runs again (SIGCONT). The fake's own notes are the proof: no
/// text and no slot posted twice, every note recorded in its slot, nothing written by the stalled process after its
/// lease lapsed. A process test because only processes show it: SIGKILL, SIGSTOP, leases lapsing in real time.
@Suite("mirror_bot fleet on Misskey: failover without idempotency", .serialized)
struct FleetMisskeyProcessTests {
    static let dayStart = MisskeyDayProcessTests.dayStart
    static let person = MisskeyDayProcessTests.person, bot = MisskeyDayProcessTests.bot
    static let timeZone = TimeZone(identifier: "Asia/Tokyo")!

    /// Three weeks of the person: a public note at each of the 24 hours of the day, each its own text (so that about
    /// one slot comes due every 2.5 s of real time at 1,440x).
    static func seed() -> FakeMisskeySeed {
        var notes: [FakeMisskeySeed.Note] = []
        for day in 1...21 {
            for hour in 0..<24 {
                let at = dayStart.addingTimeInterval(Double(-day * 86_400 + hour * 3_600 + 300))
                notes.append(
                    .init(
                        id: FakeMisskeySeed.aidx(at: at, node: "seed", counter: notes.count), userID: person,
                        text: "\(day)日前 \(hour)時のノート", createdAt: at))
            }
        }
        return FakeMisskeySeed(
            now: dayStart,
            accounts: [
                .init(id: person, username: "person", token: "person-token", permissions: ["read:account", "read:reactions"], description: "わたし"),
                .init(id: bot, username: "mirror", token: "bot-token", isBot: true, description: "@person の自動ミラー (bot)"),
            ], notes: notes, follows: [bot: [person]])
    }

    /// The bot's own settings, as its env file says them.
    static func settings(instance: URL) -> String {
        """
        NETWORK=misskey
        HUMAN_MISSKEY_URL=\(instance.absoluteString)
        HUMAN_MISSKEY_TOKEN=person-token
        BOT_MISSKEY_URL=\(instance.absoluteString)
        BOT_MISSKEY_TOKEN=bot-token
        TZ=Asia/Tokyo
        LIKES=off
        """
    }

    @Test(
        "Two fleet processes on one Misskey bot: the holder SIGKILLed and the bot taken over, the next holder stalled past its lease and the bot taken over, the stalled one let run again: no text or slot posted twice, every note recorded in its slot, nothing from the stalled process after its lease lapsed"
    )
    func failoverWithoutIdempotency() async throws {
        let server = FakeMisskeyServer(seed: Self.seed())
        try await server.withRunning { instance in
            try await TestServers.withScratchDatabase("fleetmisskey") { database in
                try await TestServers.withTemporaryFolder { folder in
                    let name = "mirror-\(UUID().uuidString.prefix(6).lowercased())"
                    let environment = try FleetProcessTests.environment(database)
                    let added = try await MirrorBotProcess.run(
                        ["bots", "add", name, "--env-file", "bot.env"], environment: environment,
                        files: ["bot.env": Self.settings(instance: instance)])
                    try #require(added.status == 0, "\(added.standardError.suffix(1_000))")
                    let trained = try await MirrorBotProcess.run(["bots", "exec", name, "--", "train", "scheduler"], environment: environment)
                    try #require(trained.standardOutput.contains("Archived 504 new posts of the human"), "\(trained.standardError.suffix(1_000))")

                    await server.armClock(Self.dayStart, speed: 1_440)
                    var processes: [RunningBot] = []
                    defer {
                        for process in processes where process.process.isRunning {
                            kill(process.process.processIdentifier, SIGCONT)
                            kill(process.process.processIdentifier, SIGKILL)
                        }
                    }
                    /// A fleet process started now, on the instance's clock, once it says it runs.
                    func fleetProcess(first: Bool = false) async throws -> RunningBot {
                        let from = first ? Self.dayStart : await server.now()
                        let process = try RunningBot(
                            ["fleet", "--speed", "1440", "--start-time", from.formatted(.iso8601)], environment: environment, folder: folder)
                        processes.append(process)
                        try #require(try await process.waitForLog("fleet: process "), "\(process.tail)")
                        return process
                    }
                    func notes() async -> [FakeMisskeySeed.Note] { await server.posted().filter { $0.userID == Self.bot && $0.replyID == nil } }
                    /// Waits for the bot to post another note: a day at 1,440x (a minute) holds 24 slots.
                    func waitForAnotherNote(_ what: String) async throws {
                        let before = await notes().count
                        try await waitUntil("a note posted \(what)", within: .seconds(60)) { await notes().count > before }
                    }
                    /// Waits for `process` to run the bot, within `FleetProcessTests.takeoverBound`. Returns how long it took.
                    func waitForTakeover(by process: RunningBot, since: ContinuousClock.Instant, _ what: String) async throws -> Duration {
                        try await waitUntil("\(what): the bot running on another process", within: FleetProcessTests.takeoverBound) {
                            process.log.contains("fleet: running bot \(name) ")
                        }
                        return ContinuousClock.now - since
                    }

                    // The first holder posts; a second process waits beside it.
                    let first = try await fleetProcess(first: true)
                    #expect(try await first.waitForLog("fleet: running bot \(name) "), "\(first.tail)")
                    try await waitForAnotherNote("by the first process")
                    try await waitForAnotherNote("by the first process")
                    let second = try await fleetProcess()

                    // SIGKILL of the holder: its lease lapses unrenewed and the second takes the bot over.
                    kill(first.process.processIdentifier, SIGKILL)
                    _ = try await first.waitForExit(within: .seconds(10))
                    let afterKill = try await waitForTakeover(by: second, since: .now, "after the SIGKILL")
                    for _ in 1...2 { try await waitForAnotherNote("by the second process") }

                    // SIGSTOP of the holder past its lease: a third process takes the bot over while it is stalled.
                    let third = try await fleetProcess()
                    kill(second.process.processIdentifier, SIGSTOP)
                    let stalledAt = ContinuousClock.now
                    let afterStall = try await waitForTakeover(by: third, since: stalledAt, "after the SIGSTOP")
                    // Stalled, the second writes nothing: its log so far is all it wrote while it held the bot.
                    let writtenBeforeLapse = second.log.count
                    try await waitForAnotherNote("by the third process")

                    // SIGCONT: the stalled process finds its lease gone and stops the bot, writing nothing more.
                    kill(second.process.processIdentifier, SIGCONT)
                    let continuedAt = ContinuousClock.now
                    try await waitUntil("the stalled process to stop the bot", within: .seconds(15)) {
                        String(second.log.dropFirst(writtenBeforeLapse)).contains("fleet: bot \(name) is no longer this process's")
                    }
                    let stoppedAfter = ContinuousClock.now - continuedAt
                    // Both run on for a few slots: a stalled process that went on with the bot would post some of them.
                    for _ in 1...3 { try await waitForAnotherNote("by the third process after the stalled one ran again") }
                    let afterLapse = String(second.log.dropFirst(writtenBeforeLapse))
                    for process in [second, third] {
                        kill(process.process.processIdentifier, SIGTERM)
                        // A stop takes the lease's length at most, then a cancelled bot has 5 s to end.
                        #expect(try await process.waitForExit(within: .seconds(FleetProcessTests.leaseSeconds + 10)).status == 0, "\(process.tail)")
                    }
                    let endedAt = await server.now()

                    // The stalled process's log after its lease lapsed: the bot stopped, nothing posted or answered.
                    #expect(
                        !afterLapse.contains("posted slot") && !afterLapse.contains("replied to"), "written after the lease lapsed:\n\(afterLapse)")

                    // The fake's own notes against the bot's slots of every day the stretch touched.
                    let slots = try await Self.slots(of: name, database: database, from: Self.dayStart, to: endedAt)
                    let posts = await notes()
                    let person = Set(Self.seed().notes.compactMap(\.text))
                    #expect(posts.allSatisfy { person.contains($0.text ?? "") }, "not the person's: \(posts.map(\.text))")
                    #expect(Set(posts.compactMap(\.text)).count == posts.count, "a text posted twice: \(posts.compactMap(\.text).sorted())")
                    let ids = posts.map { PostID($0.id) }
                    let recorded = Set(slots.compactMap(\.botPostID))
                    let unrecorded = zip(posts, ids).filter { !recorded.contains($0.1) }.map(\.0)
                    let unrecordedText = unrecorded.map { "\($0.createdAt.formatted(.iso8601)) \($0.text ?? "")" }
                    #expect(
                        unrecorded.isEmpty, "notes no slot recorded (a slot sent twice, or by a process that had lost the bot): \(unrecordedText)")
                    #expect(recorded.isSubset(of: Set(ids)), "slots recorded with notes the instance does not show")
                    let posted = slots.filter { $0.state == .posted }
                    #expect(posted.count == posts.count, "\(posts.count) notes for \(posted.count) slots posted")
                    #expect(posts.count >= 5, "\(posts.count) notes")
                    let skipped = slots.filter { $0.state == .skipped }
                    print(
                        "fleet on Misskey: taken over \(afterKill) after the SIGKILL and \(afterStall) after the SIGSTOP (lease \(FleetProcessTests.leaseSeconds) s, rounds of 1 s); "
                            + "the stalled process stopped the bot \(stoppedAfter) after SIGCONT; \(posts.count) notes for \(posted.count) slots posted, "
                            + "\(skipped.count) skipped (\(Set(skipped.compactMap { $0.reason?.prefix(40) }).sorted().joined(separator: "; "))), "
                            + "over \(Int(endedAt.timeIntervalSince(Self.dayStart) / 3_600)) bot hours")
                }
            }
        }
    }

    /// The slots the fleet's bot `name` planned for the local days from `start` to `end`, read from its schema.
    static func slots(of name: String, database: DatabaseURL, from start: Date, to end: Date) async throws -> [PlanSlot] {
        let pool = try PostgresStoreSet(url: database, logger: TestServers.logger)
        return try await pool.withRunning {
            let registry = PostgresFleetRegistry(database: PostgresStoreSet(sharing: pool, schema: pool.schema ?? "public"))
            let bot = try #require(try await registry.bot(named: name))
            let plans = PostgresStoreSet(sharing: pool, schema: bot.schema).plans
            var slots: [PlanSlot] = []
            for day in stride(from: start, through: end, by: 86_400).map({ LocalTime(of: $0, in: timeZone).day }) {
                slots += try await plans.slots(of: day) ?? []
            }
            return slots
        }
    }
}
