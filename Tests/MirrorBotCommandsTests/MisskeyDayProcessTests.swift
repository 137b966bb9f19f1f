import BotAssembly
import BotClock
import BotConfiguration
import BotCore
import FakeMisskey
import Foundation
import Logging
import MisskeyAPI
import SQLiteStores
import Stores
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `mirror_bot train` and `start` run as a user runs them with `NETWORK=misskey`, against the fake Misskey (whose clock
/// runs at the bot's speed) and one SQLite file: the same mirror as on X, Mastodon and Bluesky, with Misskey's ways.
@Suite("mirror_bot on Misskey: training, half a simulated day, a SIGKILL and a cut stream", .serialized)
struct MisskeyDayProcessTests {
    static let dayStart = Date(timeIntervalSince1970: 1_795_273_200)  // 2026-11-22 00:00 in Tokyo
    static let person = "9xperson0000001", bot = "9xmirror0000001", friend = "9xfriend0000001", quiet = "9xquiet00000001", echo = "9xecho000000001"
    static let hours = [8, 9, 10, 11, 13, 17, 21, 23]

    static func environment(_ url: URL, folder: URL) -> [String: String] {
        [
            "NETWORK": "misskey", "HUMAN_MISSKEY_URL": url.absoluteString, "HUMAN_MISSKEY_TOKEN": "person-token",
            "BOT_MISSKEY_URL": url.absoluteString, "BOT_MISSKEY_TOKEN": "bot-token",
            "MIRROR_BOT_DATA": folder.appending(path: "mirror_bot.sqlite").path,
            "TZ": "Asia/Tokyo", "FAVORITE_RATE_THRESHOLD": "2", "LEARN_POLL_SECONDS": "172800",
        ]
    }

    /// Three weeks of the person: eight notes a day at the same hours (some in MFM, one with a link), and each day a
    /// followers-only note, a specified one, one behind a warning, a renote and a quote (never to be copied); replies
    /// to the friend's notes, ❤ on the friend's notes about ラーメン (their likes), replies to a bot that answers
    /// everything and, the first days, to an account whose profile says #nobot; during the simulated day, the friend's
    /// notes (some about ラーメン). The day's mentions are made during the run (`mention`), after the bot's first start
    /// has read where mentions stand: a loaded machine may take hours of the bot's time to start, and what came before
    /// its first start is rightly never answered.
    static func seed() -> FakeMisskeySeed {
        var notes: [FakeMisskeySeed.Note] = []
        var reactions: [(noteID: String, reaction: String)] = []
        var counter = 0
        func add(
            _ user: String, _ text: String?, at date: Date, visibility: String = "public", cw: String? = nil, reply: String? = nil,
            renote: String? = nil, visibleTo: [String] = []
        ) -> String {
            counter += 1
            let id = FakeMisskeySeed.aidx(at: date, node: "day0", counter: counter)
            notes.append(
                .init(
                    id: id, userID: user, text: text, cw: cw, visibility: visibility, replyID: reply, renoteID: renote, createdAt: date,
                    visibleUserIDs: visibleTo))
            return id
        }
        for day in 1...21 {
            let start = dayStart.addingTimeInterval(Double(-day) * 86_400)
            for (index, hour) in hours.enumerated() {
                let text =
                    switch index {
                    case 2: "$[x2 **\(day)日前**] の大ニュース :igyo:"
                    case 3: "\(day)日前の記事 https://example.com/\(day) 読んで"
                    default: "\(day)日前のノート \(index) 今日も元気"
                    }
                _ = add(person, text, at: start.addingTimeInterval(Double(hour * 3_600 + index * 60)), visibility: index % 2 == 0 ? "public" : "home")
            }
            _ = add(person, "秘密 \(day)", at: start.addingTimeInterval(12 * 3_600), visibility: "followers")
            _ = add(person, "@friend ないしょ \(day)", at: start.addingTimeInterval(12 * 3_600 + 300), visibility: "specified", visibleTo: [friend])
            _ = add(person, "ネタバレ \(day)", at: start.addingTimeInterval(14 * 3_600), cw: "注意")
            let friendNote = add(friend, day % 2 == 1 ? "ラーメン食べた \(day)" : "散歩した \(day)", at: start.addingTimeInterval(15 * 3_600))
            if day % 2 == 1 { reactions.append((friendNote, "❤")) }
            _ = add(person, nil, at: start.addingTimeInterval(15 * 3_600 + 60), renote: friendNote)
            _ = add(person, "引用 \(day)", at: start.addingTimeInterval(15 * 3_600 + 90), renote: friendNote)
            _ = add(person, "@friend わかる \(day)", at: start.addingTimeInterval(15 * 3_600 + 120), reply: friendNote)
            let echoNote = add(echo, "やあ \(day)", at: start.addingTimeInterval(16 * 3_600 + 30))
            _ = add(person, "@echo なるほど \(day)", at: start.addingTimeInterval(16 * 3_600 + 90), reply: echoNote)
            if day <= 3 {
                let quietNote = add(quiet, "静かなノート \(day)", at: start.addingTimeInterval(16 * 3_600))
                _ = add(person, "@quiet ありがとう \(day)", at: start.addingTimeInterval(16 * 3_600 + 60), reply: quietNote)
            }
        }
        for (offset, hour) in [6, 7, 8, 9, 10, 11, 12].enumerated() {
            _ = add(friend, offset % 2 == 0 ? "ラーメン最高 \(hour)時" : "散歩した \(hour)時", at: dayStart.addingTimeInterval(Double(hour * 3_600 + 600)))
        }
        var seed = FakeMisskeySeed(
            now: dayStart,
            accounts: [
                .init(id: person, username: "person", token: "person-token", permissions: ["read:account", "read:reactions"], description: "わたし"),
                .init(id: bot, username: "mirror", token: "bot-token", isBot: true, description: "@person の自動ミラー (bot)"),
                .init(id: friend, username: "friend", description: "友だち"),
                .init(id: quiet, username: "quiet", description: "人間です。 #NoBot"),
                .init(id: echo, username: "echo", isBot: true, description: "なんでも返事するボット"),
            ], notes: notes, reactions: [person: reactions], follows: [person: [friend, echo], bot: [friend, person]])
        seed.autoRepliers = [echo]
        return seed
    }

    /// A note of `user` mentioning the bot, made a minute from now on the instance's clock.
    static func mention(_ server: FakeMisskeyServer, by user: String, _ text: String, number: Int) async -> String {
        let at = await server.now().addingTimeInterval(60)
        let id = FakeMisskeySeed.aidx(at: at, node: "ment", counter: number)
        await server.add(notes: [.init(id: id, userID: user, text: text, createdAt: at)])
        return id
    }

    @Test(
        "NETWORK=misskey: train learns the person's notes and reactions; through 30% lost writes, 5% failed reads, a SIGKILL and the stream cut, start posts only their public and home notes at their hours in their MFM, home, answers the friend once (also while the stream is down), never the #nobot account, the answering bot within limits, reacts ❤ only where the filter says, nothing twice"
    )
    func halfADay() async throws {
        let seed = Self.seed()
        let server = FakeMisskeyServer(seed: seed)
        try await server.withRunning { url in
            try await TestServers.withTemporaryFolder { folder in
                let environment = Self.environment(url, folder: folder)
                for command in [["train", "scheduler"], ["train", "classifier"]] {
                    let result = try await MirrorBotProcess.run(command, environment: environment)
                    #expect(result.status == 0, "\(command): \(result.standardError.suffix(2_000))")
                    if command.last == "scheduler" {
                        // 21 days × 8 notes, 21 replies to the friend, 21 to the answering bot, 3 to the quiet account; never a
                        // followers-only, specified or warned note, a renote or a quote.
                        #expect(result.standardOutput.contains("Archived 213 new posts of the human"), "\(result.standardOutput)")
                    }
                }

                await server.setFaultRates(lostAnswers: 0.3, failedReads: 0.05, seed: 11)
                // And, whatever order requests come in, the first note's answer is lost after it was made.
                await server.add(fault: FakeMisskeyFault(kind: .dropAfterHandling, endpoint: "notes/create"))
                await server.armClock(Self.dayStart, speed: 1_440)
                let first = try RunningBot(
                    ["start", "--speed", "1440", "--start-time", "2026-11-22T00:00:00+09:00"], environment: environment, folder: folder)
                // Once the first start has read where mentions stand: the friend's, the #nobot account's and the answering
                // bot's mentions.
                #expect(try await first.waitForLog("first start: mentions up to"), "\(first.tail)")
                let friendMention = await Self.mention(server, by: Self.friend, "@mirror 元気?", number: 1)
                let quietMention = await Self.mention(server, by: Self.quiet, "@mirror こんにちは", number: 2)
                _ = await Self.mention(server, by: Self.echo, "@mirror やあ", number: 3)
                #expect(try await first.waitForLog("replied to @friend"), "\(first.tail)")
                #expect(try await first.waitForLog("posted slot "), "\(first.tail)")
                kill(first.process.processIdentifier, SIGKILL)
                _ = try await first.waitForExit()
                #expect(first.process.terminationReason == .uncaughtSignal)

                // The second run: once it streams, the instance's stream goes down; a mention made meanwhile is answered by
                // polling; then the stream comes back.
                // It runs until the test has seen the stream come back and stops it as a user would (SIGTERM): a run of
                // four bot hours (10 s) once ended, under CI's load, before the answer made while the stream was down.
                // 23:00 at the latest, so that the day checked is one day.
                let resumeAt = await server.now()
                let latest = Self.dayStart.addingTimeInterval(23 * 3_600)
                let second = try RunningBot(
                    [
                        "start", "--speed", "1440", "--start-time", resumeAt.formatted(.iso8601),
                        "--duration", "\(max(600, Int(latest.timeIntervalSince(resumeAt))))s",
                    ], environment: environment, folder: folder)
                #expect(try await second.waitForLog("mentions: streaming from Misskey"), "\(second.tail)")
                await server.setStreamingAvailable(false)
                await server.cutStreams()
                #expect(try await second.waitForLog("mentions: the stream dropped"), "\(second.tail)")
                let whileDown = await Self.mention(server, by: Self.friend, "@mirror 聞こえる?", number: 4)
                #expect(try await second.waitForLog("replied to @friend"), "answered by polling while the stream was down: \(second.tail)")
                await server.setStreamingAvailable(true)
                #expect(try await second.waitForLog("mentions: streaming again"), "\(second.tail)")
                let serverEnd = await server.now()
                kill(second.process.processIdentifier, SIGTERM)
                let (status, _) = try await second.waitForExit()
                // The day checked ends where the bot's own clock ended ("Ran from … to … (bot time)"): its clock starts
                // when its process does, later than the fake's on a loaded machine, so the fake's time overstates how far
                // the bot got (a slot due at the fake's 11:03 was still to come on the bot's clock).
                let botEnd = second.output.firstMatch(of: /to (\S+) \(bot time\)/).flatMap { try? Date(String($0.1), strategy: .iso8601) }
                #expect(botEnd != nil, "the closing summary says where the bot's clock ended: \(second.output.suffix(500))")
                let endAt = min(botEnd ?? serverEnd, latest)
                let log = first.log + second.log
                #expect(status == 0, "\(second.tail)")
                #expect(log.contains("network: Misskey"))
                let endMinute = Int(endAt.timeIntervalSince(Self.dayStart)) / 60

                let posted = await server.posted()
                let posts = posted.filter { $0.replyID == nil }
                let copyable = Set(
                    seed.notes.filter {
                        $0.userID == Self.person && $0.replyID == nil && $0.renoteID == nil && $0.cw == nil
                            && ["public", "home"].contains($0.visibility)
                    }.compactMap(\.text))
                // The stored plan: every slot due by the end posted, or skipped as missed (production's grace on a loaded
                // machine; that each goes out at its minute is proven on the virtual clock).
                let configuration = try Configuration(environment: environment)
                let slots = try await BotParts(configuration: configuration, logger: TestServers.logger).withRunningAsIs { database in
                    try await database.plans.slots(of: "2026-11-22") ?? []
                }
                // Every slot posted counts; the last ten minutes of the run are left out of the states checked (the run may
                // end before a slot due then is reached).
                let postedSlots = slots.filter { $0.state == .posted }
                let due = slots.filter { $0.minute < endMinute - 10 }
                // Posted, missed (a loaded machine stalls the bot longer than production's grace: 417 ms at 1440x), or the
                // slot in flight at the SIGKILL, read back as not made with its minute past.
                #expect(
                    due.allSatisfy { slot in
                        slot.state == .posted
                            || (slot.state == .skipped && ["missed: ", "interrupted while posting"].contains { (slot.reason ?? "").hasPrefix($0) })
                    }, "\(due.map { ($0.minute, $0.state, $0.reason ?? "") })")
                #expect(
                    !postedSlots.isEmpty && posts.count == postedSlots.count,
                    "\(posts.count) notes, \(postedSlots.count) slots posted: \(log.suffix(3_000))")
                for post in posts {
                    #expect(copyable.contains(post.text ?? ""), "not one of the person's public or home notes: \(post.text ?? "")")
                    #expect(post.visibility == "home")
                }
                // At the person's hours, on the bot's clock (the instance's, armed by the bot's first request, runs a few bot
                // seconds behind it).
                #expect(postedSlots.allSatisfy { Self.hours.contains($0.minute / 60) }, "\(postedSlots.map(\.minute))")
                #expect(Set(posts.compactMap(\.text)).count == posts.count, "a note posted twice: \(posts.compactMap(\.text))")
                // A lost answer was read back from the bot's notes (Misskey takes no idempotency key), never sent blind.
                #expect(log.contains("the answer was lost") && log.contains("Misskey shows it was made"), "\(log.suffix(3_000))")
                let neverCopied = ["秘密", "ないしょ", "ネタバレ", "引用"]
                #expect(!posted.contains { note in neverCopied.contains { (note.text ?? "").contains($0) } })

                // The friend's mentions (one while the stream was down) answered once each, with the person's replies to
                // them; the #nobot account's not; the answering bot within the limits.
                for id in [friendMention, whileDown] {
                    let answers = posted.filter { $0.replyID == id }
                    #expect(answers.count == 1, "\(posted.map { ($0.replyID ?? "-", $0.text ?? "") })")
                    #expect(answers.first?.text?.hasPrefix("@friend わかる") == true, "\(answers.map(\.text))")
                }
                #expect(!posted.contains { $0.replyID == quietMention })
                #expect(log.contains("their profile says #nobot"), "\(log.suffix(3_000))")
                let toEcho = posted.filter { ($0.text ?? "").hasPrefix("@echo") }
                #expect(!toEcho.isEmpty && toEcho.count <= 5, "\(toEcho.map(\.text))")
                #expect(Set(posted.compactMap(\.replyID)).count == posted.filter { $0.replyID != nil }.count, "a mention answered twice")

                // Reactions: ❤ only, once a note, only on the friend's notes of the day, and those the filter calls favorite
                // (the person's ❤ went to ラーメン).
                let reacted = await server.reacted().filter { $0.userID == Self.bot }
                #expect(reacted.allSatisfy { $0.reaction == "❤" })
                #expect(Set(reacted.map(\.noteID)).count == reacted.count)
                let todays = seed.notes.filter { $0.userID == Self.friend && $0.createdAt >= Self.dayStart && !($0.text ?? "").hasPrefix("@") }
                let reactedTexts = reacted.compactMap { reaction in todays.first { $0.id == reaction.noteID }?.text }
                #expect(reactedTexts.count == reacted.count, "reacted to notes other than the friend's of the day: \(reacted.map(\.noteID))")
                let precision = Double(reactedTexts.filter { $0.contains("ラーメン") }.count) / Double(max(1, reactedTexts.count))
                #expect(reactedTexts.isEmpty || precision >= 0.75, "precision \(precision): \(reactedTexts)")
                // As many as the person gives in a day: they reacted on every other day of the three weeks, once, so the
                // day's plan holds 0 or 1 reaction, and each reaction made is a liked slot of that plan. `train classifier`
                // stored their reactions with Misskey's own times.
                let stores = try SQLiteStoreSet(
                    path: environment["MIRROR_BOT_DATA"]!, settings: StoreSettings(timeZone: TimeZone(identifier: "Asia/Tokyo")!),
                    logger: Logger(label: "check", factory: { _ in SwiftLogNoOpLogHandler() }))
                let personLikes = try await stores.likes.personLikes()
                #expect(personLikes.count == 11 && personLikes.allSatisfy(\.isExact), "\(personLikes)")
                let likeSlots = try #require(try await stores.likes.likeSlots(of: "2026-11-22"), "no like plan stored for the day")
                #expect(likeSlots.count <= 1, "\(likeSlots)")
                #expect(likeSlots.filter { $0.state == .liked }.count == reacted.count, "\(likeSlots) against \(reacted.count) reactions")
                #expect(likeSlots.allSatisfy { $0.state != .skipped || !($0.reason ?? "").isEmpty })
            }
        }
    }

    @Test(
        "mirror_bot import of the person's notes export: public and home notes stored in their MFM, replies filed under whom they answered (the note looked up on the person's instance), and train scheduler then reads only what the export did not have"
    )
    func importsNotesExport() async throws {
        let seed = Self.seed()
        // The export as Misskey writes it: every note of the person's, oldest first, with what the export carries.
        let exported = seed.notes.filter { $0.userID == Self.person }.sorted { $0.id < $1.id }.prefix(60)
        let array = exported.map { note -> [String: Any] in
            [
                "id": note.id, "text": note.text as Any, "createdAt": ISO8601Time.string(from: note.createdAt), "fileIds": [String](),
                "files": [Any](),
                "replyId": note.replyID as Any, "renoteId": note.renoteID as Any, "poll": NSNull(), "cw": note.cw as Any,
                "visibility": note.visibility,
                "visibleUserIds": note.visibleUserIDs, "localOnly": false, "reactionAcceptance": NSNull(),
            ]
        }
        try await TestServers.withTemporaryFolder { folder in
            let file = folder.appending(path: "notes-2026-11-22-09-00-00.json")
            try JSONSerialization.data(withJSONObject: array).write(to: file)
            try await FakeMisskeyServer(seed: seed).withRunning { url in
                let environment = Self.environment(url, folder: folder)
                let imported = try await MirrorBotProcess.run(["import", file.path], environment: environment)
                #expect(imported.status == 0, "\(imported.standardError.suffix(1_000))")
                let copyable = exported.filter { $0.renoteID == nil && $0.cw == nil && ["public", "home"].contains($0.visibility) && $0.text != nil }
                let replies = copyable.filter { $0.replyID != nil }
                #expect(!replies.isEmpty)
                #expect(
                    imported.standardOutput.contains("Imported \(copyable.count) new notes (\(exported.count) read"), "\(imported.standardOutput)")
                #expect(imported.standardOutput.contains("\(Set(replies.compactMap(\.replyID)).count) notes looked up"), "\(imported.standardOutput)")
                let configuration = try Configuration(environment: environment)
                try await BotParts(configuration: configuration, logger: TestServers.logger).withRunningAsIs { database in
                    let stored = try await database.archive(timeZone: configuration.behaviour.timeZone, rowLimit: 10_000).newest(limit: 1_000)
                    let friendNumber = AccountID(Self.friend)
                    let toFriend = stored.filter { $0.replyUserID == friendNumber }
                    #expect(
                        !toFriend.isEmpty && toFriend.allSatisfy { $0.text.hasPrefix("@friend わかる") },
                        "\(stored.map { ($0.text, $0.replyUserID ?? 0) })")
                    #expect(stored.contains { $0.text.hasPrefix("$[x2 **") }, "MFM kept as written")
                }
                // The export's notes and the API's are the same notes, under the same numbers: training reads the rest.
                let training = try await MirrorBotProcess.run(["train", "scheduler"], environment: environment)
                #expect(training.standardOutput.contains("Archived \(213 - copyable.count) new posts of the human"), "\(training.standardOutput)")
            }
        }
    }

    @Test(
        "doctor on Misskey: whose each token is, the bot flag and a contact in the bot's profile, the instance's longest note; a bot without either fails saying what to change"
    )
    func doctor() async throws {
        var seed = Self.seed()
        try await TestServers.withTemporaryFolder { folder in
            try await FakeMisskeyServer(seed: seed).withRunning { url in
                let run = try await MirrorBotProcess.run(["doctor"], environment: Self.environment(url, folder: folder))
                #expect(run.status == 0, "\(run.standardOutput)\n\(run.standardError.suffix(1_000))")
                #expect(run.standardOutput.contains("ok    human account: @person (id \(Self.person))"), "\(run.standardOutput)")
                #expect(run.standardOutput.contains("ok    bot flag: @mirror says it is a bot"), "\(run.standardOutput)")
                #expect(run.standardOutput.contains("takes notes of up to 3000 characters"), "\(run.standardOutput)")
                #expect(run.standardOutput.contains("ok    likes: as ❤ reactions"))
                #expect(!run.standardOutput.contains("bot-token") && !run.standardOutput.contains("person-token"))
            }
            seed.accounts[1].isBot = false
            seed.accounts[1].description = "ミラーです"
            try await FakeMisskeyServer(seed: seed).withRunning { url in
                let run = try await MirrorBotProcess.run(
                    ["doctor"],
                    environment: Self.environment(url, folder: folder).merging(["MIRROR_BOT_DATA": folder.appending(path: "b.sqlite").path]) { $1 })
                #expect(run.status == 1)
                #expect(
                    run.standardOutput.contains("FAIL  bot flag: @mirror is not marked as a bot")
                        && run.standardOutput.contains("does not say how to reach who runs it"),
                    "\(run.standardOutput)")
            }
        }
    }
}
