import BotAssembly
import BotConfiguration
import BotCore
import Consent
import FakeMastodon
import Foundation
import Stores
import TestSupport
import Testing

/// `mirror_bot train scheduler` and `start` run as a user runs them with `NETWORK=mastodon`, against the fake
/// instance (whose clock runs at the bot's speed) and one SQLite file: the same mirror as on X.
@Suite("mirror_bot on Mastodon: training and half a simulated day")
struct MastodonDayProcessTests {
    static let dayStart = Date(timeIntervalSince1970: 1_795_273_200)  // 2026-11-22 00:00 in Tokyo
    static let personID = "100", botID = "200", friendID = "300", shyID = "500"
    static let hours = [8, 9, 10, 11, 13, 17, 21, 23]

    static func id(_ number: Int) -> String { String(100_000_000_000_000_000 + UInt64(number)) }

    /// Three weeks of the person: eight statuses a day at the same hours (each its own text), a followers-only one and
    /// one behind a content warning each day (never to be copied), and replies to the friend's posts; then, during the
    /// simulated day, the friend's mention of the bot and one by someone whose profile says #nobot.
    static func seed() -> FakeMastodonSeed {
        var statuses: [FakeMastodonSeed.Status] = []
        var number = 0
        func add(
            _ account: String, _ content: String, at date: Date, visibility: String = "public", spoiler: String = "",
            replyTo: String? = nil, mentions: [String] = []
        ) -> String {
            number += 1
            statuses.append(
                .init(
                    id: id(number), accountID: account, content: content, createdAt: date, visibility: visibility,
                    spoilerText: spoiler, inReplyToID: replyTo, mentionIDs: mentions))
            return id(number)
        }
        for day in 1...21 {
            let start = dayStart.addingTimeInterval(Double(-day) * 86_400)
            for (index, hour) in hours.enumerated() {
                _ = add(personID, "<p>\(day)日前の投稿 \(index) &amp; 今日も<br>元気</p>", at: start.addingTimeInterval(Double(hour * 3_600 + index * 60)))
            }
            _ = add(personID, "<p>秘密 \(day)</p>", at: start.addingTimeInterval(12 * 3_600), visibility: "private")
            _ = add(personID, "<p>ネタバレ本文 \(day)</p>", at: start.addingTimeInterval(14 * 3_600), spoiler: "注意")
            let friendPost = add(friendID, "<p>友達の投稿 \(day)</p>", at: start.addingTimeInterval(15 * 3_600))
            _ = add(
                personID,
                #"<p><span class="h-card"><a href="https://mastodon.example/@friend" class="u-url mention">@<span>friend</span></a></span> わかる \#(day)</p>"#,
                at: start.addingTimeInterval(15 * 3_600 + 120), replyTo: friendPost, mentions: [friendID])
            if day <= 3 {
                let shyPost = add(shyID, "<p>静かな投稿 \(day)</p>", at: start.addingTimeInterval(16 * 3_600))
                _ = add(personID, "<p>@shy ありがとう \(day)</p>", at: start.addingTimeInterval(16 * 3_600 + 60), replyTo: shyPost, mentions: [shyID])
            }
        }
        // Someone the person answers, whose profile asks bots not to: never answered by the bot.
        _ = add(shyID, "<p>@mirror こんにちは</p>", at: dayStart.addingTimeInterval(5 * 3_600), mentions: [botID])
        _ = add(
            friendID,
            #"<p><span class="h-card"><a href="https://mastodon.example/@mirror" class="u-url mention">@<span>mirror</span></a></span> 元気?</p>"#,
            at: dayStart.addingTimeInterval(4 * 3_600), mentions: [botID])
        return FakeMastodonSeed(
            now: dayStart,
            accounts: [
                .init(id: personID, username: "person", token: "person-token", scopes: ["read"]),
                .init(id: botID, username: "mirror", token: "bot-token", scopes: ["read", "write:statuses", "write:favourites"], bot: true),
                .init(id: friendID, username: "friend", token: "friend-token"),
                .init(id: shyID, username: "shy", note: "<p>人間です。 <a href=\"https://mastodon.example/tags/nobot\">#<span>NoBot</span></a></p>"),
            ],
            statuses: statuses, follows: [personID: [friendID], botID: [personID, friendID]])
    }

    @Test(
        "doctor on Mastodon: whose each token is, its scopes, the bot flag; a token without a scope the bot needs, and an account without the bot flag, fail with what to do"
    )
    func doctor() async throws {
        var seed = Self.seed()
        try await TestServers.withTemporaryFolder { folder in
            try await FakeMastodonServer(seed: seed).withRunning { url in
                let run = try await MirrorBotProcess.run(
                    ["doctor"], environment: Self.environment(url, data: folder.appending(path: "a.sqlite").path))
                #expect(run.status == 0, "\(run.standardOutput)\n\(run.standardError.suffix(1_000))")
                #expect(run.standardOutput.contains("ok    human account: @person (id 100)"))
                #expect(run.standardOutput.contains("ok    bot token's scopes: read write:favourites write:statuses"), "\(run.standardOutput)")
                #expect(run.standardOutput.contains("ok    bot flag: @mirror says it is automated"))
                #expect(run.standardOutput.contains("takes statuses of up to 500 characters"))
                #expect(!run.standardOutput.contains("X's prices"))
                // Whose mirror it is: advice, not a failure, until the bot's profile names the person.
                #expect(
                    run.standardOutput.contains(
                        #"note  profile link: @mirror's profile does not say whose mirror it is: in its Preferences → Profile → Extra fields add "Mirror of" with https://mastodon.example/@person, and on @person's profile a field with https://mastodon.example/@mirror"#
                    ),
                    "\(run.standardOutput)")
            }
            // The bot names the person; verified once the person's profile links back, as Mastodon finds rel="me".
            var linked = seed
            linked.accounts[1].fields = [.init(name: "Mirror of", value: "https://mastodon.example/@person")]
            for (personLinksBack, expected) in [
                (
                    false,
                    #"note  profile link: @mirror's field "Mirror of" names @person, not verified yet: the person adds a field with https://mastodon.example/@mirror"#
                ),
                (
                    true,
                    #"ok    profile link: @mirror's field "Mirror of" names @person, verified by the instance: the person's profile links back (rel="me")"#
                ),
            ] {
                linked.accounts[0].fields = personLinksBack ? [.init(name: "Mirror", value: "https://mastodon.example/@mirror")] : []
                try await FakeMastodonServer(seed: linked).withRunning { url in
                    let run = try await MirrorBotProcess.run(
                        ["doctor"], environment: Self.environment(url, data: folder.appending(path: "linked-\(personLinksBack).sqlite").path))
                    #expect(run.status == 0, "\(run.standardOutput)\n\(run.standardError.suffix(1_000))")
                    #expect(run.standardOutput.contains(expected), "\(run.standardOutput)")
                }
            }
            seed.accounts[1].bot = false
            seed.accounts[1].scopes = ["read", "write:statuses"]
            try await FakeMastodonServer(seed: seed).withRunning { url in
                let run = try await MirrorBotProcess.run(
                    ["doctor"], environment: Self.environment(url, data: folder.appending(path: "b.sqlite").path))
                #expect(run.status == 1)
                #expect(
                    run.standardOutput.contains("FAIL  bot token's scopes:") && run.standardOutput.contains("without write:favourites"),
                    "\(run.standardOutput)")
                #expect(run.standardOutput.contains("FAIL  bot flag: @mirror is not marked as automated: in Preferences → Profile tick"))
            }
        }
    }

    @Test(
        "mirror_bot import of the person's Mastodon export: public statuses stored, replies filed under the friend's id on the person's instance, and train scheduler then reads only what the export did not have"
    )
    func importsExport() async throws {
        let seed = Self.seed()
        let usernames = Dictionary(uniqueKeysWithValues: seed.accounts.map { ($0.id, $0.username) })
        let parents = Dictionary(uniqueKeysWithValues: seed.statuses.map { ($0.id, $0) })
        let exported = seed.statuses.filter { $0.accountID == Self.personID && $0.visibility == "public" && $0.spoilerText.isEmpty }.prefix(30)
        // The export names its actor by the instance's address: the fake's, where the person signs in.
        func outbox(of actor: String) -> String {
            let items = exported.map { status -> String in
                let uri = "https://mastodon.example/users/person/statuses/\(status.id)"
                let parent = status.inReplyToID.flatMap { parents[$0] }
                let parentURI = parent.map { "\"https://mastodon.example/users/\(usernames[$0.accountID] ?? "?")/statuses/\($0.id)\"" } ?? "null"
                let content = status.content.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                return
                    #"{"type": "Create", "actor": "\#(actor)", "object": {"id": "\#(uri)", "type": "Note", "published": "\#(status.createdAt.formatted(.iso8601))", "content": "\#(content)", "inReplyTo": \#(parentURI), "to": ["https://www.w3.org/ns/activitystreams#Public"], "cc": [], "tag": []}}"#
            }
            return #"{"type": "OrderedCollection", "orderedItems": [\#(items.joined(separator: ","))]}"#
        }
        try await TestServers.withTemporaryFolder { folder in
            let export = folder.appending(path: "archive")
            try FileManager.default.createDirectory(at: export, withIntermediateDirectories: true)
            try await FakeMastodonServer(seed: seed).withRunning { url in
                let environment = Self.environment(url, data: folder.appending(path: "bot.sqlite").path)
                let instance = "http://\(url.host() ?? ""):\(url.port ?? 0)"
                // The friend's archive is not the person's, who signed in: refused, nothing stored.
                try outbox(of: "\(instance)/users/friend").write(to: export.appending(path: "outbox.json"), atomically: true, encoding: .utf8)
                let refused = try await MirrorBotProcess.run(["import", export.path], environment: environment)
                #expect(refused.status != 0)
                #expect(
                    refused.standardError.contains(
                        "Cannot import \(export.path): this archive is @friend (Mastodon \(instance)/users/friend)'s, not the person's who signed in: @person (100@\(instance.dropFirst(7)) on Mastodon)"
                    ),
                    "\(refused.standardError.suffix(1_000))")
                #expect(refused.standardError.contains("Nothing was imported."))
                try outbox(of: "\(instance)/users/person").write(to: export.appending(path: "outbox.json"), atomically: true, encoding: .utf8)
                let imported = try await MirrorBotProcess.run(["import", export.path], environment: environment)
                #expect(imported.status == 0, "\(imported.standardError.suffix(1_000))")
                let replies = exported.filter { $0.inReplyToID != nil }.count
                #expect(replies > 0)
                #expect(
                    imported.standardOutput.contains("Imported 30 new statuses (30 read: 0 boosts skipped, 0 never copied"),
                    "\(imported.standardOutput)")
                #expect(
                    imported.standardOutput.contains(
                        "Replies filed under whom they answered: \(Set(exported.compactMap(\.inReplyToID).compactMap { parents[$0]?.accountID }).count) accounts looked up"
                    ),
                    "\(imported.standardOutput)")
                let configuration = try Configuration(environment: environment)
                try await BotParts(configuration: configuration, logger: TestServers.logger).withRunningAsIs { database in
                    let stored = try await database.archive(timeZone: configuration.behaviour.timeZone, rowLimit: 10_000).newest(limit: 100)
                    let friendReplies = stored.filter { $0.replyUserID == AccountID(Self.friendID) }
                    #expect(friendReplies.count == exported.filter { $0.inReplyToID.flatMap { parents[$0]?.accountID } == Self.friendID }.count)
                    #expect(!friendReplies.isEmpty && friendReplies.allSatisfy { $0.text.hasPrefix("@friend わかる") })
                }
                // The person moved here from X: their X archive names an X account, which their Mastodon sign-in cannot
                // prove theirs. The first is imported on their word and noted in their record; another X account's is refused.
                func xArchive(_ name: String, id: String, username: String) throws -> String {
                    let data = folder.appending(path: "\(name)/data")
                    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
                    try
                        #"window.YTD.tweets.part0 = [{"tweet": {"id_str": "\#(id)0001", "full_text": "\#(username)のXでの投稿", "created_at": "Sat Aug 12 16:10:37 +0000 2023"}}]"#
                        .write(to: data.appending(path: "tweets.js"), atomically: true, encoding: .utf8)
                    try #"window.YTD.account.part0 = [{"account": {"username": "\#(username)", "accountId": "\#(id)"}}]"#
                        .write(to: data.appending(path: "account.js"), atomically: true, encoding: .utf8)
                    return folder.appending(path: name).path
                }
                let fromX = try await MirrorBotProcess.run(
                    ["import", try xArchive("x1", id: "1234567", username: "person_x")], environment: environment)
                #expect(fromX.status == 0, "\(fromX.standardError.suffix(1_000))")
                #expect(
                    fromX.standardOutput.contains(
                        "The archive is @person_x (X 1234567)'s, on X, where the person did not sign in (they signed in on Mastodon as @person)"),
                    "\(fromX.standardOutput)")
                let otherX = try await MirrorBotProcess.run(["import", try xArchive("x2", id: "999", username: "taro")], environment: environment)
                #expect(otherX.status != 0)
                #expect(
                    otherX.standardError.contains("an archive of another X account (1234567 @person_x) was imported for the person"),
                    "\(otherX.standardError.suffix(1_000))")
                try await BotParts(configuration: configuration, logger: TestServers.logger).withRunningAsIs { database in
                    let consent = try #require(try await ConsentRecords(state: database.state).current())
                    #expect(consent.archivesFromElsewhere == ["X 1234567 @person_x"])
                    let stored = try await database.archive(timeZone: configuration.behaviour.timeZone, rowLimit: 10_000).newest(limit: 100)
                    #expect(stored.contains { $0.text == "person_xのXでの投稿" } && !stored.contains { $0.text == "taroのXでの投稿" })
                }

                // The export's statuses and the API's are the same statuses: training reads the rest.
                let training = try await MirrorBotProcess.run(["train", "scheduler"], environment: environment)
                #expect(training.standardOutput.contains("Archived 162 new posts of the human"), "\(training.standardOutput)")
            }
        }
    }

    static func environment(_ url: URL, data: String) -> [String: String] {
        [
            "NETWORK": "mastodon", "HUMAN_MASTODON_URL": url.absoluteString, "HUMAN_MASTODON_TOKEN": "person-token",
            "BOT_MASTODON_URL": url.absoluteString, "BOT_MASTODON_TOKEN": "bot-token", "MIRROR_BOT_DATA": data, "TZ": "Asia/Tokyo",
        ]
    }

    @Test(
        "NETWORK=mastodon: train scheduler reads the person's statuses, start posts them unlisted at the person's hours and answers the friend with the person's own reply"
    )
    func halfADay() async throws {
        let seed = Self.seed()
        let server = FakeMastodonServer(seed: seed)
        try await server.withRunning { url in
            let folder = FileManager.default.temporaryDirectory.appending(path: TestServers.uniqueName("mastodon-day"))
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let environment = [
                "NETWORK": "mastodon", "HUMAN_MASTODON_URL": url.absoluteString, "HUMAN_MASTODON_TOKEN": "person-token",
                "BOT_MASTODON_URL": url.absoluteString, "BOT_MASTODON_TOKEN": "bot-token",
                "MIRROR_BOT_DATA": folder.appending(path: "mirror_bot.sqlite").path, "TZ": "Asia/Tokyo",
                "LIKES": "off",
            ]
            let training = try await MirrorBotProcess.run(["train", "scheduler"], environment: environment)
            #expect(training.status == 0, "\(training.standardError.suffix(2_000))")
            // 21 days × 8 public statuses and 24 replies; the followers-only and warned ones are never archived.
            #expect(training.standardOutput.contains("Archived 192 new posts of the human"), "\(training.standardOutput)")
            #expect(!training.standardOutput.contains("X's bill"), "a free network has no bill: \(training.standardOutput)")

            // The instance's clock starts with the bot's first request (as in the other day tests): started before the
            // process, it ran on through the bot's start-up (seconds of real time, hours of the bot's on a loaded
            // machine), so that the friend's mention was already there at the bot's first start, and not answered.
            // At 720x production's grace of ten bot minutes is 0.8 real seconds (at 1440x, 0.4: CI's load once held the
            // poster three bot hours, 7.5 real seconds, past all four morning slots).
            await server.armClock(Self.dayStart, speed: 720)
            let run = try await MirrorBotProcess.run(
                ["start", "--speed", "720", "--start-time", "2026-11-22T00:00:00+09:00", "--duration", "12h"],
                environment: environment)
            #expect(run.status == 0, "\(run.standardError.suffix(3_000))")
            #expect(run.standardError.contains("network: Mastodon"))

            let posted = await server.posted()
            let posts = posted.filter { $0.inReplyToID == nil }
            let personTexts = Set(
                seed.statuses.filter { $0.accountID == Self.personID && $0.inReplyToID == nil && $0.visibility == "public" && $0.spoilerText.isEmpty }
                    .map {
                        $0.content.replacingOccurrences(of: "<p>", with: "").replacingOccurrences(of: "</p>", with: "")
                            .replacingOccurrences(of: "<br>", with: "<br />")
                    })
            // The person posts from 08:00: by noon the bot has posted some of the day's statuses, each a status of the person's.
            #expect(!posts.isEmpty, "\(run.standardError.suffix(3_000))")
            for post in posts {
                #expect(post.visibility == "unlisted")
                #expect(
                    personTexts.contains(post.content.replacingOccurrences(of: "<p>", with: "").replacingOccurrences(of: "</p>", with: "")),
                    "not one of the person's statuses: \(post.content)")
                let hour = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "Asia/Tokyo")!, from: post.createdAt).hour ?? -1
                #expect((7...13).contains(hour), "posted at \(hour):00, not at the person's hours")
            }
            #expect(!posted.contains { $0.content.contains("秘密") || $0.content.contains("ネタバレ") })
            // The friend's mention at 04:00 is answered once, in the same thread, with one of the person's replies to them.
            let mentionID = try #require(seed.statuses.last { $0.accountID == Self.friendID }?.id)
            let replies = posted.filter { $0.inReplyToID == mentionID }
            #expect(replies.count == 1, "\(posted.map(\.content))")
            #expect(replies.first?.content.contains("わかる") == true, "\(replies.map(\.content))")
            #expect(replies.first?.visibility == "unlisted")
            // Shy's mention at 05:00 is not answered, though the person has replies to them: their profile says #nobot.
            let shyMention = try #require(seed.statuses.last { $0.accountID == Self.shyID }?.id)
            #expect(!posted.contains { $0.inReplyToID == shyMention })
            #expect(run.standardError.contains("no reply to @shy (\(shyMention)): their profile says #nobot"), "\(run.standardError.suffix(3_000))")
        }
    }
}
