import BlueskyAPI
import BlueskyNetwork
import BotAssembly
import BotClock
import BotCore
import FakeBluesky
import FakeMastodon
import Foundation
import TestSupport
import Testing

import struct FakeX.FakeXPersona

#if canImport(Glibc)
    import Glibc
#endif

/// `mirror_bot train scheduler` and `start` run as a user runs them with `NETWORK=bluesky`, against the fake Bluesky
/// (whose clock runs at the bot's speed) and one SQLite file: the same mirror as on X and Mastodon.
@Suite("mirror_bot on Bluesky: training, half a simulated day and a restart")
struct BlueskyDayProcessTests {
    static let dayStart = Date(timeIntervalSince1970: 1_795_273_200)  // 2026-11-22 00:00 in Tokyo
    static let person = "did:plc:person0000000000000000", bot = "did:plc:mirrorbot00000000000000"
    static let friend = "did:plc:friend0000000000000000", quiet = "did:plc:quiet00000000000000000"
    static let hours = [8, 9, 10, 11, 13, 17, 21, 23]

    static func stamp(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    /// The bot on the fake at `url`, its data in `folder`, the person signed in with their own app password; without
    /// `person`, the person is learned from their archive only (`HUMAN_NETWORK=archive`).
    static func environment(_ url: URL, folder: URL, person: Bool = true) -> [String: String] {
        [
            "NETWORK": "bluesky", "BLUESKY_SERVICE_URL": url.absoluteString, "BOT_BLUESKY_HANDLE": "mirror.test",
            "BOT_BLUESKY_APP_PASSWORD": "bot-app-pass-word",
            "MIRROR_BOT_DATA": folder.appending(path: "mirror_bot.sqlite").path, "TZ": "Asia/Tokyo",
            "HUMAN_BLUESKY_HANDLE": "@person.test", "HUMAN_BLUESKY_APP_PASSWORD": personPassword, "MIRROR_BOT_KEY": tokenKey,
        ]
        .merging(person ? [:] : ["HUMAN_NETWORK": "archive"]) { $1 }
    }

    /// The person's app password on the fake.
    static let personPassword = "person-app-pass-word"
    /// What the bot's sessions are sealed with in the store.
    static let tokenKey = "a test's key, 32 characters long"
    static func mention(of did: String, handle: String, in text: String) -> [Facet] {
        guard let range = text.range(of: "@" + handle) else { return [] }
        return [Facet(index: RichText.byteSlice(of: range, in: text), features: [.mention(did: did)])]
    }

    /// Three weeks of the person: eight posts a day at the same hours (one with a link), a post with a `!warn` label,
    /// a quote and a repost each day (never to be copied), replies to the friend's posts and, the first days, to an
    /// account whose profile says #nobot; during the simulated day, the friend's mention of the bot and the #nobot
    /// account's.
    static func seed() -> FakeBlueskySeed {
        var posts: [FakeBlueskySeed.Post] = []
        var reposts: [FakeBlueskySeed.Repost] = []
        var clock: UInt64 = 0
        func add(
            _ did: String, _ text: String, at date: Date, facets: [Facet] = [], reply: StrongRef? = nil, labels: [String] = [],
            embed: String? = nil
        ) -> StrongRef {
            clock += 1
            let record = PostRecord(
                text: text, createdAt: stamp(date), langs: ["ja"], facets: facets.isEmpty ? nil : facets,
                reply: reply.map { ReplyRef(root: $0, parent: $0) }, labels: labels.isEmpty ? nil : SelfLabels(values: labels),
                embed: embed.map { EmbedKind(type: $0) })
            let rkey = TID(date: date, clockID: clock).description
            posts.append(.init(authorDID: did, rkey: rkey, record: record, indexedAt: date))
            return StrongRef(uri: "at://\(did)/app.bsky.feed.post/\(rkey)", cid: FakeBlueskySeed.cid(of: record))
        }
        for day in 1...21 {
            let start = dayStart.addingTimeInterval(Double(-day) * 86_400)
            for (index, hour) in hours.enumerated() {
                let text = index == 3 ? "\(day)日前の記事 https://example.com/\(day) 読んで" : "\(day)日前の投稿 \(index) 今日も元気"
                let link =
                    text.range(of: "https://example.com/\(day)").map {
                        [Facet(index: RichText.byteSlice(of: $0, in: text), features: [.link(uri: "https://example.com/\(day)")])]
                    } ?? []
                _ = add(person, text, at: start.addingTimeInterval(Double(hour * 3_600 + index * 60)), facets: link)
            }
            _ = add(person, "注意 \(day)", at: start.addingTimeInterval(12 * 3_600), labels: ["!warn"])
            _ = add(person, "引用 \(day)", at: start.addingTimeInterval(14 * 3_600), embed: "app.bsky.embed.record")
            let friendPost = add(friend, "友達の投稿 \(day)", at: start.addingTimeInterval(15 * 3_600))
            reposts.append(.init(byDID: person, uri: friendPost.uri, at: start.addingTimeInterval(15 * 3_600 + 60)))
            let answer = "@friend.test わかる \(day)"
            _ = add(
                person, answer, at: start.addingTimeInterval(15 * 3_600 + 120), facets: mention(of: friend, handle: "friend.test", in: answer),
                reply: friendPost)
            if day <= 3 {
                let quietPost = add(quiet, "静かな投稿 \(day)", at: start.addingTimeInterval(16 * 3_600))
                _ = add(person, "ありがとう \(day)", at: start.addingTimeInterval(16 * 3_600 + 60), reply: quietPost)
            }
        }
        let friendMention = "@mirror.test 元気?"
        _ = add(friend, friendMention, at: dayStart.addingTimeInterval(2 * 3_600), facets: mention(of: bot, handle: "mirror.test", in: friendMention))
        let quietMention = "@mirror.test こんにちは"
        _ = add(quiet, quietMention, at: dayStart.addingTimeInterval(3 * 3_600), facets: mention(of: bot, handle: "mirror.test", in: quietMention))
        return FakeBlueskySeed(
            now: dayStart,
            accounts: [
                .init(did: person, handle: "person.test", appPassword: personPassword, description: "わたし"),
                .init(did: bot, handle: "mirror.test", appPassword: "bot-app-pass-word", description: "@person.test の自動ミラー", labels: ["bot"]),
                .init(did: friend, handle: "friend.test", description: "友だち"),
                .init(did: quiet, handle: "quiet.test", description: "人間です。 #NoBot"),
            ], posts: posts, reposts: reposts)
    }

    @Test(
        "doctor on Bluesky names each account's DID and fails on the missing bot label; setup bluesky adds it keeping the profile's other fields, and once there is nothing to add; setup of another network is refused"
    )
    func setupAndDoctor() async throws {
        var seed = Self.seed()
        seed.accounts[1].labels = []
        let server = FakeBlueskyServer(seed: seed)
        try await server.withRunning { url in
            try await TestServers.withTemporaryFolder { folder in
                let environment = Self.environment(url, folder: folder)
                let before = try await MirrorBotProcess.run(["doctor"], environment: environment)
                #expect(before.status == 1)
                #expect(before.standardOutput.contains("ok    human account: @person.test (\(Self.person))"), "\(before.standardOutput)")
                #expect(
                    before.standardOutput.contains(
                        "FAIL  bot label: @mirror.test's profile on Bluesky does not carry the self-label \"bot\": run `mirror_bot setup bluesky`"),
                    "\(before.standardOutput)")
                #expect(!before.standardOutput.contains("bot-app-pass-word"))
                let setup = try await MirrorBotProcess.run(["setup", "bluesky"], environment: environment)
                #expect(setup.status == 0, "\(setup.standardError.suffix(1_000))")
                #expect(setup.standardOutput.contains("now carries the self-label \"bot\" (its other fields kept)"))
                let profile = try #require(await server.records(of: Self.bot, in: "app.bsky.actor.profile").first?.value)
                #expect(profile["description"]?.stringValue == "@person.test の自動ミラー" && profile["displayName"]?.stringValue == "mirror.test")
                #expect(profile["labels"]?["values"] == .array([.object(["val": .string("bot")])]))
                let again = try await MirrorBotProcess.run(["setup"], environment: environment)
                #expect(again.standardOutput.contains("already carries the self-label \"bot\""), "\(again.standardOutput)")
                let after = try await MirrorBotProcess.run(["doctor"], environment: environment)
                #expect(
                    after.standardOutput.contains("ok    bot label: @mirror.test's profile carries the self-label \"bot\""), "\(after.standardOutput)"
                )
                // Likes: off at LIKES=auto, and only that said; LIKES=on is taken, saying why Bluesky discourages it.
                #expect(
                    after.standardOutput.contains("likes: off (LIKES=auto: Bluesky asks bots") && !after.standardOutput.contains("likes: on"),
                    "\(after.standardOutput)")
                let forced = try await MirrorBotProcess.run(["doctor"], environment: environment.merging(["LIKES": "on"]) { $1 })
                #expect(forced.standardOutput.contains("likes: on (LIKES=on), though Bluesky asks bots"), "\(forced.standardOutput)")
                let wrong = try await MirrorBotProcess.run(["setup", "mastodon"], environment: environment)
                #expect(wrong.status != 0 && wrong.standardError.contains("NETWORK is bluesky, not mastodon"), "\(wrong.standardError)")
            }
        }
    }

    @Test(
        "HUMAN_NETWORK=archive: an X archive imported into a bot on Bluesky (the person signed in there as themselves) runs half a day: their tweets posted at their hours, nothing of theirs read on Bluesky; train refuses"
    )
    func personFromArchive() async throws {
        let server = FakeBlueskyServer(seed: Self.seed())
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE MMM dd HH:mm:ss Z yyyy"
        var tweets: [String] = []
        var texts: Set<String> = []
        for day in 1...21 {
            for (index, hour) in Self.hours.enumerated() {
                let text = index == 2 ? "\(day)日前のツイート \(index) https://example.com/x\(day)" : "\(day)日前のツイート \(index)"
                texts.insert(text)
                let date = Self.dayStart.addingTimeInterval(Double(-day * 86_400 + hour * 3_600 + index * 60))
                tweets.append(
                    #"{"tweet": {"id_str": "\#(1_000_000 + day * 10 + index)", "full_text": "\#(text)", "created_at": "\#(formatter.string(from: date))"}}"#
                )
            }
        }
        let archive = "window.YTD.tweets.part0 = [\n" + tweets.joined(separator: ",\n") + "\n]\n"
        try await server.withRunning { url in
            try await TestServers.withTemporaryFolder { folder in
                let environment = Self.environment(url, folder: folder, person: false)
                let imported = try await MirrorBotProcess.run(["import", "tweets.js"], environment: environment, files: ["tweets.js": archive])
                #expect(
                    imported.status == 0 && imported.standardOutput.hasPrefix("Imported 168 new tweets"),
                    "\(imported.standardOutput)\(imported.standardError)")
                let training = try await MirrorBotProcess.run(["train", "scheduler"], environment: environment)
                #expect(
                    training.status != 0 && training.standardError.contains("HUMAN_NETWORK=archive: the person is learned from their archive only"),
                    "\(training.standardError)")
                let doctor = try await MirrorBotProcess.run(["doctor"], environment: environment)
                #expect(doctor.status == 0, "\(doctor.standardOutput)")
                #expect(
                    doctor.standardOutput.contains("ok    person's consent: @person.test (\(Self.person) on Bluesky)"), "\(doctor.standardOutput)")

                await server.armClock(Self.dayStart, speed: 1_440)
                let run = try await MirrorBotProcess.run(
                    ["start", "--speed", "1440", "--start-time", "2026-11-22T00:00:00+09:00", "--duration", "12h"],
                    environment: environment)
                #expect(run.status == 0, "\(run.standardError.suffix(3_000))")
                #expect(run.standardError.contains("the person: from their imported archive only (HUMAN_NETWORK=archive)"))
                let records = try await server.records(of: Self.bot, in: PostRecord.type).map {
                    try JSONDecoder().decode(PostRecord.self, from: JSONEncoder().encode($0.value))
                }
                let posts = records.filter { $0.reply == nil }
                // As in the day above: each slot due by noon posted, or missed (production's grace under a loaded machine).
                let slots = try await BotParts(configuration: try Configuration(environment: environment), logger: TestServers.logger).withRunningAsIs
                { database in
                    try await database.plans.slots(of: "2026-11-22") ?? []
                }.filter { $0.minute < 12 * 60 }
                #expect(
                    slots.allSatisfy { $0.state == .posted || ($0.state == .skipped && ($0.reason ?? "").hasPrefix("missed: ")) },
                    "\(slots.map { ($0.minute, $0.state, $0.reason ?? "") })")
                #expect(!posts.isEmpty && posts.count == slots.filter { $0.state == .posted }.count, "\(run.standardError.suffix(3_000))")
                for post in posts {
                    #expect(texts.contains(post.text), "not one of the person's tweets: \(post.text)")
                    let date = try #require(ISO8601Time.date(from: post.createdAt))
                    let hour = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "Asia/Tokyo")!, from: date).hour ?? -1
                    #expect((7...13).contains(hour), "posted at \(hour):00")
                }
                // Nothing of the person's was asked of Bluesky: no feed of theirs, no handle of theirs resolved.
                let requests = await server.requestCounts()
                #expect(requests["app.bsky.feed.getAuthorFeed"] == nil && requests["app.bsky.feed.getActorLikes"] == nil, "\(requests)")
                #expect(requests["app.bsky.feed.getPosts"] == nil, "the person's originals are not looked up: \(requests)")
            }
        }
    }

    @Test(
        "mirror_bot import of the person's repository export (the CAR of getRepo, by address and as a file), HUMAN_NETWORK=archive: posts and replies stored, reposts, labelled posts and quotes left out, a shortened link written out whole, replies filed under the DID answered; again, nothing new; a cut file refused, nothing stored"
    )
    func importRepositoryExport() async throws {
        let server = FakeBlueskyServer(seed: Self.seed())
        // A post whose link the app showed shortened: the facet keeps the whole address.
        let long = "https://example.com/articles/2026/11/a-long-article-name"
        let shown = "読んだ example.com/articles/2026/1…"
        let shortened = try #require(shown.range(of: "example.com/articles/2026/1…"))
        let written = Self.dayStart.addingTimeInterval(-3_600)
        await server.add(
            post: .init(
                authorDID: Self.person, rkey: TID(date: written, clockID: 999).description,
                record: PostRecord(
                    text: shown, createdAt: Self.stamp(written), langs: ["ja"],
                    facets: [Facet(index: RichText.byteSlice(of: shortened, in: shown), features: [.link(uri: long)])]),
                indexedAt: written))
        try await server.withRunning { url in
            try await TestServers.withTemporaryFolder { folder in
                let environment = Self.environment(url, folder: folder, person: false)
                let address = "\(url.absoluteString)/xrpc/com.atproto.sync.getRepo?did=\(Self.person)"
                let imported = try await MirrorBotProcess.run(["import", address], environment: environment)
                // 21 days × (8 posts, a labelled one, a quote, a reply to the friend), 3 replies to the quiet account, the
                // shortened link; 21 reposts.
                #expect(imported.status == 0, "\(imported.standardError)")
                #expect(
                    imported.standardOutput.hasPrefix(
                        "Imported 193 new posts (256 read: 21 reposts skipped, 42 never copied: labelled, quotes or without text)"),
                    "\(imported.standardOutput)")
                let stored = try await BotParts(configuration: try Configuration(environment: environment), logger: TestServers.logger)
                    .withRunningAsIs { database in
                        try await database.archive.newest(limit: 1_000)
                    }
                #expect(stored.count == 193)
                #expect(stored.contains { $0.text == "読んだ \(long)" }, "the link written out whole")
                #expect(!stored.contains { $0.text.contains("注意") || $0.text.contains("引用") || $0.text.contains("…") })
                let friendID = AccountID(Self.friend)
                #expect(
                    stored.filter { $0.replyUserID == friendID }.count == 21 && stored.filter { $0.text.hasPrefix("@friend.test わかる") }.count == 21)
                #expect(stored.filter { $0.replyUserID != nil }.count == 24)
                let (logins, personLogins) = (await server.createSessionCalls(), await server.createSessionCalls(of: "person.test"))
                #expect(logins == 1 && personLogins == 1, "an export needs no login: the person logged in once, to prove they signed in")

                // The same export as a file: nothing new. Cut short: refused, saying so, nothing stored.
                let car = await server.repositoryExport(of: Self.person)
                let file = folder.appending(path: "repo.car")
                let cut = folder.appending(path: "cut.car")
                try Data(car).write(to: file)
                try Data(car.prefix(car.count / 2)).write(to: cut)
                let again = try await MirrorBotProcess.run(["import", file.path], environment: environment)
                #expect(again.standardOutput.hasPrefix("Imported 0 new posts (256 read"), "\(again.standardOutput)\(again.standardError)")
                let broken = try await MirrorBotProcess.run(["import", cut.path], environment: environment)
                #expect(
                    broken.status != 0 && broken.standardError.contains("it is not a readable Bluesky repository export: a block at byte"),
                    "\(broken.standardError)")
                #expect(broken.standardError.contains("Nothing was imported"))
                // POST_CW=true: the labelled posts too, each with its labels as its warning (the copy carries them).
                let labelled = try await MirrorBotProcess.run(["import", file.path], environment: environment.merging(["POST_CW": "true"]) { $1 })
                #expect(
                    labelled.standardOutput.hasPrefix("Imported 21 new posts (256 read: 21 reposts skipped, 21 never copied"),
                    "\(labelled.standardOutput)")
                let warned = try await BotParts(configuration: try Configuration(environment: environment), logger: TestServers.logger)
                    .withRunningAsIs { database in
                        try await database.archive.newest(limit: 1_000)
                    }.filter { $0.text.hasPrefix("注意 ") }
                #expect(warned.count == 21 && warned.allSatisfy { $0.contentWarning == "!warn" })
            }
        }
    }

    @Test(
        "HUMAN_NETWORK=mastodon with NETWORK=bluesky: doctor checks each account on its own network; train reads the person's statuses on Mastodon; start posts them on Bluesky at their hours and keeps reading the person on Mastodon; mentions on Bluesky find no past reply of theirs to the same account and are not answered"
    )
    func personOnMastodon() async throws {
        let persona = FakeXPersona(.init(randomSeed: 5, dayStart: Self.dayStart, historyDays: 30, postsPerDay: 12, followedAccounts: 4))
        let mastodon = FakeMastodonServer(seed: FakeMastodonSeed(persona: persona.persona))
        let bluesky = FakeBlueskyServer(seed: await FakeBlueskySeed(persona: persona.persona))
        let written = Set(
            persona.seed.tweets.filter { $0.authorID == persona.human.id && $0.retweetOf == nil && $0.inReplyToTweetID == nil }.map(\.writtenText))
        try await mastodon.withRunning { mastodonURL in
            try await bluesky.withRunning { blueskyURL in
                try await TestServers.withTemporaryFolder { folder in
                    let environment = [
                        "NETWORK": "bluesky", "HUMAN_NETWORK": "mastodon", "HUMAN_MASTODON_URL": mastodonURL.absoluteString,
                        "HUMAN_MASTODON_TOKEN": persona.humanAccount.accessToken, "BLUESKY_SERVICE_URL": blueskyURL.absoluteString,
                        "BOT_BLUESKY_HANDLE": "hanako-mirror.bsky.example", "BOT_BLUESKY_APP_PASSWORD": "demo-bot-app-password",
                        "MIRROR_BOT_DATA": folder.appending(path: "mirror_bot.sqlite").path, "TZ": "Asia/Tokyo",
                        "MIRROR_BOT_KEY": Self.tokenKey,
                        // At 1440x a real second is 24 bot minutes: as in the demo, a slot is missed only after an hour of bot time.
                        "MISSED_SLOT_GRACE": "60",
                    ]
                    let doctor = try await MirrorBotProcess.run(["doctor"], environment: environment)
                    #expect(doctor.status == 0, "\(doctor.standardOutput)")
                    #expect(
                        doctor.standardOutput.contains("ok    human account: @hanako (id 1001) at \(mastodonURL.absoluteString)"),
                        "\(doctor.standardOutput)")
                    #expect(
                        doctor.standardOutput.contains("ok    bot account: @hanako-mirror.bsky.example (did:plc:persona1002)"),
                        "\(doctor.standardOutput)")
                    #expect(
                        doctor.standardOutput.contains("ok    bot label:") && !doctor.standardOutput.contains("bot flag"), "\(doctor.standardOutput)")
                    #expect(
                        doctor.standardOutput.contains(
                            "ok    person's network: Mastodon (HUMAN_NETWORK): the person is read there; the bot posts on Bluesky"))

                    let training = try await MirrorBotProcess.run(["train", "scheduler"], environment: environment)
                    #expect(
                        training.status == 0 && training.standardOutput.contains("new posts of the human"),
                        "\(training.standardOutput)\(training.standardError)")
                    #expect(await bluesky.requestCounts()["app.bsky.feed.getAuthorFeed"] == nil, "nothing of the person's asked of Bluesky")
                    let readOnMastodon = await mastodon.requestCounts().values.reduce(0, +)

                    await bluesky.armClock(Self.dayStart, speed: 1_440)
                    await mastodon.armClock(Self.dayStart, speed: 1_440)
                    let run = try await MirrorBotProcess.run(
                        ["start", "--speed", "1440", "--start-time", "2026-11-22T00:00:00+09:00", "--duration", "12h"],
                        environment: environment)
                    #expect(run.status == 0, "\(run.standardError.suffix(3_000))")
                    #expect(
                        run.standardError.contains("the person: on Mastodon (HUMAN_NETWORK), read there; the bot: on Bluesky"),
                        "\(run.standardError.suffix(3_000))")
                    #expect(await mastodon.requestCounts().values.reduce(0, +) > readOnMastodon, "the person kept being read on Mastodon")
                    #expect(await mastodon.posted().isEmpty, "nothing posted on the person's network")
                    // What the bot wrote (the persona's seed has a note of the bot's own that mentions it).
                    let writes = Set(await bluesky.writes().map(\.uri))
                    let posts = try await bluesky.records(of: "did:plc:persona1002", in: PostRecord.type).filter { writes.contains($0.uri) }.map {
                        try JSONDecoder().decode(PostRecord.self, from: JSONEncoder().encode($0.value))
                    }
                    #expect(!posts.isEmpty && posts.allSatisfy { $0.reply == nil }, "\(posts.map(\.text)) \(run.standardError.suffix(3_000))")
                    for post in posts {
                        #expect(written.contains(post.text), "not one of the person's statuses: \(post.text)")
                        if let link = post.text.range(of: "https://") {
                            #expect(post.facets?.first?.index.byteStart == RichText.byteSlice(of: link, in: post.text).byteStart, "\(post)")
                        }
                    }
                    #expect(Set(posts.map(\.text)).count == posts.count)
                    // Taro mentions the bot at 10:05 on Bluesky: the person's replies to taro are filed under his Mastodon id.
                    #expect(
                        run.standardError.contains("no reply to @taro.bsky.example")
                            && run.standardError.contains("no past reply of the human to this user"),
                        "\(run.standardError.suffix(3_000))")
                }
            }
        }
    }

    @Test(
        "NETWORK=bluesky: train reads the person's public posts, their one login proving their sign-in; through 30% lost write answers and a SIGKILL, start posts only unlabelled posts of theirs at their hours with facets, answers the friend once in thread, not the #nobot account, likes nothing; ten starts log the bot in once and post nothing twice"
    )
    func halfADay() async throws {
        let seed = Self.seed()
        let server = FakeBlueskyServer(seed: seed)
        try await server.withRunning { url in
            try await TestServers.withTemporaryFolder { folder in
                let environment = Self.environment(url, folder: folder)
                let training = try await MirrorBotProcess.run(["train", "scheduler"], environment: environment)
                #expect(training.status == 0, "\(training.standardError.suffix(2_000))")
                // 21 days × 8 posts, 21 replies to the friend, 3 to the quiet account; never a labelled post, a quote or a repost.
                #expect(training.standardOutput.contains("Archived 192 new posts of the human"), "\(training.standardOutput)")
                let (logins, personLogins) = (await server.createSessionCalls(), await server.createSessionCalls(of: "person.test"))
                #expect(
                    logins == 1 && personLogins == 1, "the person logs in once, proving they signed in as themselves; their public posts need no more"
                )

                // 30% of the writes' answers are cut off after the write is made; the first run is killed (SIGKILL) after
                // its first post (at 08:00, or a later slot where a loaded machine made it miss that one), and the second
                // runs until 13:00, or three hours more.
                await server.setLostAnswerRate(0.3, seed: 11)
                await server.armClock(Self.dayStart, speed: 1_440)
                let first = try RunningBot(
                    ["start", "--speed", "1440", "--start-time", "2026-11-22T00:00:00+09:00"], environment: environment, folder: folder)
                #expect(try await first.waitForLog("posted slot "), "\(first.tail)")
                kill(first.process.processIdentifier, SIGKILL)
                _ = try await first.waitForExit()
                #expect(first.process.terminationReason == .uncaughtSignal)
                let resumeAt = await server.now()
                let endAt = min(
                    max(Self.dayStart.addingTimeInterval(13 * 3_600), resumeAt.addingTimeInterval(3 * 3_600)),
                    Self.dayStart.addingTimeInterval(23 * 3_600 + 50 * 60))
                let endMinute = Int(endAt.timeIntervalSince(Self.dayStart)) / 60
                let run = try await MirrorBotProcess.run(
                    [
                        "start", "--speed", "1440", "--start-time", resumeAt.formatted(.iso8601),
                        "--duration", "\(max(600, Int(endAt.timeIntervalSince(resumeAt))))s",
                    ],
                    environment: environment)
                let log = first.log + run.standardError
                #expect(run.status == 0, "\(run.standardError.suffix(3_000))")
                #expect(log.contains("network: Bluesky"))
                #expect(log.contains("likes: off (LIKES=auto: Bluesky asks bots"), "\(log.suffix(3_000))")

                let written = await server.records(of: Self.bot, in: PostRecord.type)
                let records = try written.map { try JSONDecoder().decode(PostRecord.self, from: JSONEncoder().encode($0.value)) }
                let posts = records.filter { $0.reply == nil }
                let personTexts = Set(
                    seed.posts.filter { $0.authorDID == Self.person && $0.record.reply == nil && $0.record.labels == nil && $0.record.embed == nil }
                        .map(\.record.text))
                // The stored plan: every slot due by the end posted, or skipped as missed. Production's grace (10 bot minutes)
                // is 417 ms of real time at 1440x, which a loaded machine can stall for: a slot may be missed for that reason
                // only, saying so (that each goes out at its minute exactly is proven on the virtual clock).
                let configuration = try Configuration(environment: environment)
                let slots = try await BotParts(configuration: configuration, logger: TestServers.logger).withRunningAsIs { database in
                    try await database.plans.slots(of: "2026-11-22") ?? []
                }
                // Every slot posted counts; the last ten minutes of the run are left out of the states checked (the run may
                // end before a slot due then is reached).
                let posted = slots.filter { $0.state == .posted }
                let due = slots.filter { $0.minute < endMinute - 10 }
                // The slot in flight at the SIGKILL (a loaded machine may have reached the next one by then) is read back at
                // the restart: not made, its minute past, it is skipped saying so.
                #expect(
                    due.allSatisfy { slot in
                        slot.state == .posted
                            || (slot.state == .skipped && ["missed: ", "interrupted while posting"].contains { (slot.reason ?? "").hasPrefix($0) })
                    }, "\(due.map { ($0.minute, $0.state, $0.reason ?? "") })")
                #expect(!posted.isEmpty && posts.count == posted.count, "\(posts.count) posts, \(posted.count) slots posted: \(log.suffix(3_000))")
                for post in posts {
                    #expect(personTexts.contains(post.text), "not one of the person's posts: \(post.text)")
                    let date = try #require(ISO8601Time.date(from: post.createdAt))
                    let hour = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "Asia/Tokyo")!, from: date).hour ?? -1
                    #expect(Self.hours.contains(hour), "posted at \(hour):00, not at the person's hours")
                    #expect(post.langs == ["ja"])
                    // A link is a facet over exactly its bytes (the fake refused the post otherwise).
                    if let link = post.text.range(of: "https://example.com/") {
                        let bytes = RichText.byteSlice(of: link, in: post.text).byteStart
                        #expect(post.facets?.first?.index.byteStart == bytes, "\(post)")
                    }
                }
                #expect(!records.contains { $0.text.contains("注意") || $0.text.contains("引用") })
                // The friend's mention at 02:00 is answered once, in its thread, with one of the person's replies to them.
                let friendMention = try #require(seed.posts.first { $0.authorDID == Self.friend && $0.record.text.hasPrefix("@mirror.test") })
                let mentionURI = "at://\(Self.friend)/app.bsky.feed.post/\(friendMention.rkey)"
                let answers = records.filter { $0.reply?.parent.uri == mentionURI }
                #expect(answers.count == 1, "\(records.map(\.text))")
                #expect(answers.first?.reply?.root.uri == mentionURI)
                #expect(answers.first?.text.contains("わかる") == true, "\(answers.map(\.text))")
                // The quiet account's mention is not answered: their profile says #nobot.
                let quietMention = try #require(seed.posts.first { $0.authorDID == Self.quiet && $0.record.text.hasPrefix("@mirror.test") })
                #expect(!records.contains { $0.reply?.parent.uri.hasSuffix(quietMention.rkey) == true })
                #expect(log.contains("their profile says #nobot"), "\(log.suffix(3_000))")
                #expect(await server.records(of: Self.bot, in: "app.bsky.feed.like").isEmpty)
                #expect(await server.createSessionCalls(of: "mirror.test") == 1, "the bot logged in once in all its starts")
                // Every lost answer was a write made: sent again to its key, it left no second post; no text posted twice.
                let puts = await server.writes().filter { $0.method == "com.atproto.repo.putRecord" }
                #expect(puts.count > written.count && Set(puts.map(\.uri)).count == written.count, "\(puts.count) writes, \(written.count) records")
                #expect(log.contains("putRecord failed (stream ended at an unexpected time); retrying"))
                #expect(Set(posts.map(\.text)).count == posts.count, "a text posted twice: \(posts.map(\.text))")

                // A third start for the afternoon: the stored session is used (renewed if need be), no slot twice.
                let afternoon = await server.now()
                let again = try await MirrorBotProcess.run(
                    ["start", "--speed", "1440", "--start-time", afternoon.formatted(.iso8601), "--duration", "2h"],
                    environment: environment)
                #expect(again.status == 0, "\(again.standardError.suffix(3_000))")
                #expect(
                    await server.createSessionCalls(of: "mirror.test") == 1, "a restart logs the bot in no more: \(again.standardError.suffix(2_000))"
                )
                let afterRestart = await server.records(of: Self.bot, in: PostRecord.type)
                #expect(Set(afterRestart.map(\.uri)).count == afterRestart.count)
                let texts = try afterRestart.map { try JSONDecoder().decode(PostRecord.self, from: JSONEncoder().encode($0.value)).text }
                #expect(Set(texts).count == texts.count, "a text posted twice: \(texts)")

                // Seven more starts, ten in all, the access token expired before every other one: still the one login; the
                // expired sessions were renewed.
                for start in 0..<7 {
                    if start % 2 == 0 { await server.expireAccessTokens() }
                    let now = await server.now()
                    let brief = try await MirrorBotProcess.run(
                        ["start", "--speed", "1440", "--start-time", now.formatted(.iso8601), "--duration", "10m"],
                        environment: environment)
                    #expect(brief.status == 0, "\(brief.standardError.suffix(2_000))")
                }
                #expect(await server.createSessionCalls(of: "mirror.test") == 1)
                #expect(await server.refreshSessionCalls() >= 4)
            }
        }
    }
}
