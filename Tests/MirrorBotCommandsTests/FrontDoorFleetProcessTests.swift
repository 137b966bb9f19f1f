import AsyncHTTPClient
import BotConfiguration
import Consent
import FakeBluesky
import FakeMastodon
import FakeMisskey
import FakeX
import Fleet
import Foundation
import Logging
import PostgresNIO
import PostgresStores
import RedisClient
import Stores
import TestSupport
import Testing

/// The front door makes a person's mirror a fleet's bot: `mirror_bot web` and `mirror_bot fleet` as processes on one
/// Postgres and one Redis, against a fake Mastodon instance; the person signs in as themselves and with their bot's
/// account, makes the mirror (paused, their consent recorded), starts it, sees the fleet learn their posts and likes
/// and run it, pauses it and deletes it with a receipt. A second person reaches nothing of the first's mirror.
@Suite("The front door makes a fleet's mirror: sign in twice, make, start, pause, delete", .serialized)
struct FrontDoorFleetProcessTests {
    /// The fleet test's two people and their bots, alice favouriting some of bob's statuses (what the mirror learns her
    /// likes from, so that it has word counts in Redis for its deletion to remove).
    static func seed() -> FakeMastodonSeed {
        var seed = FleetProcessTests.seed()
        let bobs = seed.statuses.filter { $0.accountID == "101" }.prefix(30).map(\.id)
        seed.favourites["100"] = Array(bobs)
        seed.follows["100"] = ["101"]
        return seed
    }

    /// `mirror_bot web` on a fleet of `database` (its environment: `FleetProcessTests.environment`), on a free port with
    /// `PUBLIC_URL` on localhost, open before `body` runs with the environment, a temporary folder, the running door and
    /// its address; killed however `body` ends.
    static func withDoor(
        _ database: DatabaseURL, web extra: [String: String] = [:], arguments: [String] = [],
        _ body: ([String: String], URL, RunningBot, URL) async throws -> Void
    ) async throws {
        try await TestServers.withTemporaryFolder { folder in
            let fleet = try FleetProcessTests.environment(database)
            let port = try FreePort.pick()
            let web = try RunningBot(
                ["web"] + arguments,
                environment: fleet.merging(["PORT": String(port), "PUBLIC_URL": "http://localhost:\(port)"].merging(extra) { $1 }) { $1 },
                folder: folder)
            defer { if web.process.isRunning { kill(web.process.processIdentifier, SIGKILL) } }
            try #require(try await web.waitForLog("the front door is open on port \(port)", limit: .seconds(60)), "\(web.tail)")
            try await body(fleet, folder, web, URL(string: "http://127.0.0.1:\(port)")!)
        }
    }

    /// A Mastodon export's `outbox.json` of the actor at `actor`: `count` public posts ("from alice's archive 1", …).
    static func outbox(actor: String, count: Int, replyingTo friend: String? = nil) -> String {
        let audience = "https://www.w3.org/ns/activitystreams#Public"
        // Among the days she posted on the fake (a post years before would make every day since one of her quiet days).
        func published(_ number: Int) -> String {
            FleetProcessTests.dayStart.addingTimeInterval(Double(-number) * 86_400 + 1_800).formatted(.iso8601)
        }
        var items = (1...count).map { number in
            let id = 120_000_000_000_000_000 + number
            let text = "from \(actor.split(separator: "/").last ?? "")'s archive \(number)"
            return """
                {"id": "\(actor)/statuses/\(id)/activity", "type": "Create", "actor": "\(actor)", "published": "\(published(number))",
                 "to": ["\(audience)"], "cc": ["\(actor)/followers"],
                 "object": {"id": "\(actor)/statuses/\(id)", "type": "Note", "summary": null, "inReplyTo": null, "published": "\(published(number))",
                            "attributedTo": "\(actor)", "to": ["\(audience)"], "cc": ["\(actor)/followers"], "sensitive": false,
                            "content": "<p>\(text)</p>", "attachment": [], "tag": []}}
                """
        }
        // A reply to `friend` (an actor's address), mentioning them as Mastodon writes it.
        if let friend, let url = URL(string: friend), let host = url.host(), let username = friend.split(separator: "/").last {
            let server = host + (url.port.map { ":\($0)" } ?? "")
            let id = 120_000_000_000_000_100
            items.append(
                """
                {"id": "\(actor)/statuses/\(id)/activity", "type": "Create", "actor": "\(actor)", "published": "\(published(5))",
                 "to": ["\(audience)"], "cc": ["\(friend)"],
                 "object": {"id": "\(actor)/statuses/\(id)", "type": "Note", "summary": null, "inReplyTo": "\(friend)/statuses/1",
                            "published": "\(published(5))", "attributedTo": "\(actor)", "to": ["\(audience)"], "cc": ["\(friend)"], "sensitive": false,
                            "content": "<p><span class=\\"h-card\\"><a href=\\"\(friend)\\" class=\\"u-url mention\\">@<span>\(username)</span></a></span> それは いいね</p>",
                            "attachment": [], "tag": [{"type": "Mention", "href": "\(friend)", "name": "@\(username)@\(server)"}]}}
                """)
        }
        return
            #"{"@context": "https://www.w3.org/ns/activitystreams", "id": "outbox.json", "type": "OrderedCollection", "totalItems": \#(items.count), "orderedItems": [\#(items.joined(separator: ",\n"))]}"#
    }

    /// Signs `browser` in on `instance` as `accountID` (`account`: the person's sign-in from the start page, or the
    /// bot's from the person's page), and returns the callback's answer.
    static func signIn(
        _ browser: DoorBrowser, account: String, on instance: URL, as accountID: String, server: FakeMastodonServer
    ) async throws -> DoorBrowser.Answer {
        let page = try await browser.get(account == "bot" ? "/me" : "/")
        let csrf = try #require(page.csrf, "\(page.html)")
        var form = [("csrf", csrf), ("network", "mastodon"), ("server", instance.absoluteString)]
        if account == "bot" { form.append(("account", "bot")) }
        let started = try await browser.post("/sign-in", form)
        #expect(started.status == 303, "\(started.html)")
        let address = try #require(started.location.flatMap(URL.init(string:)))
        let state = try #require(URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value)
        let code = try await server.approveAuthorization(at: address, as: accountID)
        return try await browser.get("/sign-in/callback?code=\(code)&state=\(state)")
    }

    /// Each page of the path as headless Chromium shows it at a phone's width (360 px) and a desktop's (1280 px): the
    /// page's own HTML (it loads nothing else), each shot as wide as asked, no console error. Kept in
    /// `MIRROR_BOT_SCREENSHOTS` when it names a folder.
    static func screenshots(of pages: [(step: String, html: String)], in folder: URL) async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            "Debian's chromium is not installed: script/test installs it (apt-get install chromium)")
        let keep = ProcessInfo.processInfo.environment["MIRROR_BOT_SCREENSHOTS"].flatMap { $0.isEmpty ? nil : URL(filePath: $0) }
        if let keep { try FileManager.default.createDirectory(at: keep, withIntermediateDirectories: true) }
        for (step, html) in pages {
            let file = folder.appending(path: "door-\(step).html")
            try Data(html.utf8).write(to: file)
            for width in [360, 1280] {
                let shot = folder.appending(path: "door-\(step)-\(width).png")
                let run = try await StatusProcessTests.chromium(
                    ["--window-size=\(width),1000", "--screenshot=" + shot.path], url: file.absoluteString,
                    profile: folder.appending(path: "chrome-\(width)"))
                let png = (try? Data(contentsOf: shot)) ?? Data()
                let shotWidth = png.count > 24 ? png[16..<20].reduce(0) { $0 << 8 | Int($1) } : 0
                #expect(shotWidth == width, "\(step) at \(width) px: \(png.count) bytes")
                #expect(run.log.split(separator: "\n").filter { $0.contains("CONSOLE") }.isEmpty, "\(step): \(run.log)")
                if let keep { try? FileManager.default.copyItem(at: shot, to: keep.appending(path: shot.lastPathComponent)) }
            }
        }
    }

    @Test(
        "Sign in as oneself and as the bot, make the mirror (paused, consent recorded), start it, the fleet posts, pause, delete: 0 rows, 0 keys; another person reaches none of it"
    )
    func aMirrorMadeInTheBrowser() async throws {
        let server = FakeMastodonServer(seed: Self.seed())
        try await server.withRunning { instance in
            try await TestServers.withScratchDatabase("door") { database in
                // A door that makes one mirror: alice's; bob's is refused, saying why.
                try await Self.withDoor(database, web: ["DOOR_MAX_MIRRORS": "1"]) { fleet, folder, web, door in
                    try await DoorBrowser.with(door) { alice in
                        try await DoorBrowser.with(door) { bob in

                            // Alice signs in as herself; her page asks for the bot's account.
                            let signedIn = try await Self.signIn(alice, account: "person", on: instance, as: "100", server: server)
                            #expect(signedIn.status == 303 && signedIn.location == "/me", "\(signedIn.html)")
                            var pages: [(step: String, html: String)] = [("1-start", try await DoorBrowser.with(door) { try await $0.get("/").html })]
                            let first = try await alice.get("/me")
                            pages.append(("2-the-bot", first.html))
                            #expect(
                                first.html.contains("<strong>@alice</strong>") && first.html.contains("name=\"account\" value=\"bot\""),
                                "\(first.html)")
                            // Her own account as the bot's: refused.
                            let herself = try await Self.signIn(alice, account: "bot", on: instance, as: "100", server: server)
                            #expect(herself.status == 400 && herself.html.contains("your own account"), "\(herself.html)")
                            let bot = try await Self.signIn(alice, account: "bot", on: instance, as: "200", server: server)
                            #expect(bot.status == 303 && bot.location == "/me", "\(bot.html)")
                            let choose = try await alice.get("/me")
                            #expect(
                                choose.html.contains("<strong>@alice_mirror</strong>") && choose.html.contains("action=\"/mirror\""), "\(choose.html)"
                            )
                            let csrf = try #require(choose.csrf)
                            pages.append(("3-make", choose.html))

                            // Making it: without the token refused, without agreeing refused, then made, paused. Its posts for her
                            // followers only (Mastodon's posts say who sees them), two words it never posts.
                            #expect(
                                choose.html.contains("name=\"visibility\" value=\"unlisted\" checked") && choose.html.contains("name=\"blocked\""))
                            let choices = [
                                ("tz", "Asia/Tokyo"), ("style", "copy"), ("likes", "on"), ("visibility", "private"), ("blocked", "secret、 秘密,secret"),
                            ]
                            let unseen = try await alice.post(
                                "/mirror", [("csrf", csrf), ("tz", "UTC"), ("style", "copy"), ("visibility", "direct")])
                            #expect(unseen.status == 400, "a visibility not offered: \(unseen.html)")
                            #expect(try await alice.post("/mirror", choices + [("agree", "yes")]).status == 403)
                            let unagreed = try await alice.post("/mirror", [("csrf", csrf)] + choices)
                            #expect(unagreed.status == 400 && unagreed.html.contains("agree"), "\(unagreed.html)")
                            let made = try await alice.post("/mirror", [("csrf", csrf)] + choices + [("agree", "yes")])
                            #expect(made.status == 303 && made.location == "/me", "\(made.html)")
                            let paused = try await alice.get("/me")
                            #expect(
                                paused.html.contains("Paused: not started yet") && paused.html.contains("action=\"/mirror/start\""), "\(paused.html)")
                            #expect(
                                paused.html.contains("name=\"visibility\" value=\"private\" checked")
                                    && paused.html.contains(">secret, 秘密</textarea>"),
                                "\(paused.html)")
                            pages.append(("4-paused", paused.html))
                            // Before it learned anything, its preview says so.
                            let early = try await alice.get("/mirror/preview")
                            #expect(early.status == 200 && early.html.contains("id=\"preview-empty\""), "\(early.html)")
                            let again = try await alice.post("/mirror", [("csrf", csrf)] + choices + [("agree", "yes")])
                            #expect(again.status == 400, "a second mirror")

                            // In the fleet: one bot, paused, its consent recorded as a sign-in at the door, naming both accounts.
                            let listed = try await MirrorBotProcess.run(["bots", "list"], environment: fleet)
                            let line = try #require(
                                listed.standardOutput.split(separator: "\n").first { $0.hasPrefix("door-") }, "\(listed.standardOutput)")
                            let name = String(line.split(separator: "\t")[0])
                            #expect(line.contains("\tmastodon\tpaused: not started yet"), "\(line)")
                            try await PostgresStoreSet(url: database, logger: TestServers.logger).withRunningAsPool { pool in
                                let registry = PostgresFleetRegistry(database: PostgresStoreSet(sharing: pool, schema: pool.schema ?? "public"))
                                let row = try #require(try await registry.bot(named: name))
                                let consent = try #require(
                                    try await ConsentRecords(state: PostgresStoreSet(sharing: pool, schema: row.schema).state).current())
                                #expect(consent.personAccount.hasPrefix("100@") && consent.personHandle == "alice", "\(consent.summary)")
                                #expect(
                                    consent.how.contains("front door") && consent.botAccount?.hasPrefix("@alice_mirror (200@") == true,
                                    "\(consent.summary)")
                                #expect(!consent.isWithdrawn && consent.agreedTo.contains(.copies))
                            }

                            // Bob signs in: his page offers the bot's sign-in, nothing of alice's; every change of his reaches none of hers.
                            _ = try await Self.signIn(bob, account: "person", on: instance, as: "101", server: server)
                            let bobs = try await bob.get("/me")
                            #expect(!bobs.html.contains("alice") && !bobs.html.contains("Paused"), "\(bobs.html)")
                            let bobsToken = try #require(bobs.csrf)
                            for path in ["/mirror/start", "/mirror/pause"] {
                                #expect(try await bob.post(path, [("csrf", bobsToken)]).status == 404, "\(path)")
                            }
                            #expect(try await bob.post("/mirror/delete", [("csrf", bobsToken), ("confirm", "delete")]).status == 404)
                            #expect(try await bob.get("/mirror/download").status == 404, "bob downloads nothing of alice's")
                            _ = try await Self.signIn(bob, account: "bot", on: instance, as: "201", server: server)
                            let full = try await bob.post("/mirror", [("csrf", bobsToken), ("tz", "UTC"), ("style", "copy"), ("agree", "yes")])
                            #expect(full.status == 400 && full.html.contains("as many mirrors as its operator allows for now (1)"), "\(full.html)")
                            // Alice's token in bob's browser, or bob's in alice's: refused.
                            #expect(try await bob.post("/mirror/start", [("csrf", csrf)]).status == 403)
                            #expect(try await alice.post("/mirror/delete", [("csrf", bobsToken), ("confirm", "delete")]).status == 403)
                            #expect(try await alice.get("/me").html.contains("Paused: not started yet"))

                            // An operator's pause is the operator's to lift: shown in a sentence, Start refused; resumed by them.
                            let operatorPause = try await MirrorBotProcess.run(["bots", "pause", name], environment: fleet)
                            #expect(operatorPause.status == 0, "\(operatorPause.standardError)")
                            let byOperator = try await alice.get("/me")
                            #expect(byOperator.html.contains("paused by the operator or after a failure"), "\(byOperator.html)")
                            let refusedStart = try await alice.post("/mirror/start", [("csrf", csrf)])
                            #expect(refusedStart.status == 400 && refusedStart.html.contains("only the operator"), "\(refusedStart.html)")
                            #expect(try await MirrorBotProcess.run(["bots", "resume", name], environment: fleet).status == 0)

                            // Started from the page; a fleet process takes it up and posts as the bot.
                            let started = try await alice.post("/mirror/start", [("csrf", csrf)])
                            #expect(started.status == 303, "\(started.html)")
                            #expect(try await alice.get("/me").html.contains("action=\"/mirror/pause\""))
                            await server.armClock(FleetProcessTests.dayStart, speed: 1_440)
                            let runner = try RunningBot(
                                ["fleet", "--speed", "1440", "--start-time", FleetProcessTests.dayStart.formatted(.iso8601)], environment: fleet,
                                folder: folder)
                            defer { if runner.process.isRunning { kill(runner.process.processIdentifier, SIGKILL) } }
                            #expect(try await runner.waitForLog("fleet: running bot \(name) "), "\(runner.tail)")
                            // Nothing archived yet, on a network where reading is free: it learns its person first, by itself.
                            #expect(try await runner.waitForLog("fleet: bot \(name) learned its person first: 504 posts archived"), "\(runner.tail)")
                            #expect(try await runner.waitForLog("fleet: bot \(name) learned its person's likes: 30 liked"), "\(runner.tail)")
                            #expect(
                                try await FleetProcessTests.waitUntil { await server.posted().contains { $0.accountID == "200" } },
                                "no post by the bot within a minute\n\(runner.tail)")
                            // Her page shows what it posted: her post's text, and where to see the bot's copy.
                            var running = try await alice.get("/me")
                            _ = try await FleetProcessTests.waitUntil {
                                running = (try? await alice.get("/me")) ?? running
                                return running.html.contains("Posted your post: <q>")
                            }
                            #expect(running.html.contains("Running: a process of the fleet runs it now."), "\(running.html)")
                            let copies = await server.posted().filter { $0.accountID == "200" && $0.inReplyToID == nil }
                            let shown = copies.map { $0.content.replacingOccurrences(of: "<p>", with: "").replacingOccurrences(of: "</p>", with: "") }
                            #expect(shown.contains { running.html.contains("Posted your post: <q>\($0)</q>") }, "\(shown)\n\(running.html)")
                            #expect(
                                copies.contains { running.html.contains("/\($0.id)\" rel=\"noreferrer noopener\">see it</a>") }, "\(running.html)")
                            #expect(!copies.isEmpty && copies.allSatisfy { $0.visibility == "private" }, "\(copies.map(\.visibility))")
                            pages.append(("5-running", running.html))

                            // Her choices changed while it runs (UTC, likes off): only with her token and only hers; the fleet lets it
                            // go and starts it again with them, and her consent record says what she now agrees to.
                            #expect(
                                running.html.contains("<option value=\"Asia/Tokyo\" selected>") && running.html.contains("action=\"/mirror/choices\"")
                            )
                            let newChoices = [("tz", "UTC"), ("style", "copy"), ("visibility", "public"), ("blocked", "")]
                            #expect(try await alice.post("/mirror/choices", newChoices).status == 403)
                            #expect(try await bob.post("/mirror/choices", [("csrf", bobsToken)] + newChoices).status == 404)
                            let changed = try await alice.post("/mirror/choices", [("csrf", csrf)] + newChoices)
                            #expect(changed.status == 303, "\(changed.html)")
                            let afterChange = try await alice.get("/me")
                            #expect(
                                afterChange.html.contains("<option value=\"UTC\" selected>")
                                    && !afterChange.html.contains("name=\"likes\" value=\"on\" checked")
                                    && afterChange.html.contains("name=\"visibility\" value=\"public\" checked")
                                    && afterChange.html.contains("aria-describedby=\"blocked-hint\"></textarea>"), "\(afterChange.html)")
                            #expect(
                                try await runner.waitForLog("fleet: bot \(name) is no longer this process's", limit: .seconds(30)), "\(runner.tail)")
                            #expect(
                                try await FleetProcessTests.waitUntil {
                                    runner.log.components(separatedBy: "fleet: running bot \(name) ").count - 1 >= 2
                                }, "started again with her choices\n\(runner.tail)")

                            // Her download: everything it keeps of her, as JSON.
                            let download = try await alice.get("/mirror/download")
                            #expect(download.status == 200, "\(download.html.prefix(300))")
                            let takeout = try #require(try JSONSerialization.jsonObject(with: Data(download.html.utf8)) as? [String: Any])
                            #expect(
                                takeout["handle"] as? String == "alice"
                                    && (takeout["consent"] as? [String: Any])?["person_handle"] as? String == "alice")
                            let posts = takeout["posts"] as? [[String: Any]] ?? []
                            #expect(
                                posts.count == 504 && posts.allSatisfy { ($0["text"] as? String)?.hasPrefix("alice ") == true },
                                "\(posts.count) posts")
                            #expect((takeout["training_examples"] as? [Any])?.isEmpty == false, "what it learned her likes from")
                            #expect((takeout["actions"] as? [[String: Any]])?.contains { $0["kind"] as? String == "posted" } == true)
                            let agreed = (takeout["consent"] as? [String: Any])?["agreed_to"] as? [String]
                            #expect(agreed == ["learn posts", "copies"], "likes off: her likes are no longer learned (\(agreed ?? []))")

                            // Paused from the page: the fleet lets it go.
                            #expect(try await alice.post("/mirror/pause", [("csrf", csrf)]).status == 303)
                            #expect(try await alice.get("/me").html.contains("Paused: paused by its person"))
                            #expect(
                                try await runner.waitForLog("fleet: bot \(name) is no longer this process's", limit: .seconds(30)), "\(runner.tail)")
                            kill(runner.process.processIdentifier, SIGTERM)
                            #expect(try await runner.waitForExit(within: .seconds(30)).status == 0, "\(runner.tail)")

                            // Her archive, uploaded from her page, joins what the fleet learned: only with her page's token, only
                            // hers, only a file it can read; nothing stored from a refused one.
                            let page = try await alice.get("/me")
                            #expect(
                                page.html.contains("enctype=\"multipart/form-data\"") && page.html.contains("name=\"archive\"")
                                    && page.html.contains("archive Mastodon lets you download (outbox.json / likes.json"), "\(page.html)")
                            let hers = Data(
                                Self.outbox(
                                    actor: instance.appending(path: "users/alice").absoluteString, count: 3,
                                    replyingTo: instance.appending(path: "users/bob").absoluteString
                                ).utf8)
                            let theirs = Data(Self.outbox(actor: instance.appending(path: "users/bob").absoluteString, count: 2).utf8)
                            let tokenless = try await alice.upload("/mirror/archive", [], file: ("archive", "outbox.json", hers))
                            #expect(tokenless.status == 403, "\(tokenless.html)")
                            let wrongToken = try await alice.upload("/mirror/archive", [("csrf", bobsToken)], file: ("archive", "outbox.json", hers))
                            #expect(wrongToken.status == 403, "\(wrongToken.html)")
                            #expect(
                                try await bob.upload("/mirror/archive", [("csrf", bobsToken)], file: ("archive", "outbox.json", hers)).status == 404,
                                "bob has no mirror to import into, and reaches none of alice's")
                            let bobsArchive = try await alice.upload("/mirror/archive", [("csrf", csrf)], file: ("archive", "outbox.json", theirs))
                            #expect(bobsArchive.status == 422 && bobsArchive.html.contains("not the person"), "\(bobsArchive.html)")
                            let broken = try await alice.upload(
                                "/mirror/archive", [("csrf", csrf)], file: ("archive", "outbox.json", hers.prefix(hers.count / 2)))
                            #expect(
                                broken.status == 422 && broken.html.contains("Cannot import outbox.json") && !broken.html.contains(folder.path)
                                    && !broken.html.contains("mirror_bot-upload-"), "\(broken.html)")
                            // Larger than a form's body is ever read whole (5 MiB of the JSON's own leading spaces): streamed through.
                            let padded = Data(repeating: 0x20, count: 5 << 20) + hers
                            let uploaded = try await alice.upload("/mirror/archive", [("csrf", csrf)], file: ("archive", "outbox.json", padded))
                            #expect(uploaded.status == 200 && uploaded.html.contains("id=\"imported\""), "\(uploaded.html)")
                            pages.append(("6-imported", uploaded.html))
                            let afterUpload = try await alice.get("/mirror/download")
                            let archived =
                                (try JSONSerialization.jsonObject(with: Data(afterUpload.html.utf8)) as? [String: Any])?["posts"] as? [[String: Any]]
                            #expect(archived?.count == 508, "504 learned from the network and 4 from her archive, none from bob's or the broken file")
                            #expect(archived?.contains { $0["text"] as? String == "from alice's archive 1" } == true)
                            #expect(web.tail.contains("web: a person imported an archive on Mastodon"), "\(web.tail)")
                            #expect(!web.tail.contains(csrf), "a token in the log")
                            #expect(
                                web.log.contains("web: a person's archive was refused on Mastodon") && !web.log.contains("@bob (Mastodon"),
                                "a refusal logged without the accounts it names")

                            // Her preview: her hours beside today's plan, a dozen posts as they would go out, each with the post of
                            // hers it copies, how it would answer bob, its likes; drawn the same all day; bob's is none of hers.
                            let preview = try await alice.get("/mirror/preview")
                            #expect(preview.status == 200, "\(preview.html)")
                            #expect(preview.html.components(separatedBy: "<tr>").count - 1 == 24, "an hour a row")
                            let samples = preview.html.components(separatedBy: "id=\"samples\"").last?.components(separatedBy: "</ol>").first ?? ""
                            let items = samples.components(separatedBy: "<li>").dropFirst()
                            #expect(items.count == 12, "\(preview.html)")
                            #expect(
                                items.allSatisfy { $0.contains("<q>alice ") || $0.contains("<q>from alice&#39;s archive") }
                                    && items.allSatisfy { $0.contains("from your posts:") }, "\(samples)")
                            #expect(preview.html.contains("@bob: <q>それは いいね</q>"), "\(preview.html)")
                            #expect(!preview.html.contains("id=\"likes\""), "likes off: no likes in her preview")
                            #expect(preview.html.contains("2026") && preview.html.contains(", UTC)"), "her plan in her new zone")
                            #expect(try await alice.get("/mirror/preview").html == preview.html, "the same preview all day")
                            #expect(try await bob.get("/mirror/preview").status == 404)
                            pages.append(("7-preview", preview.html))

                            // Deleted: not without ticking the box; then a receipt, and nothing of hers is left.
                            let redis = try TestServers.redisConnection()
                            defer { redis.close() }
                            func keys() async throws -> Int { try await redis.pipeline([["KEYS", name + ":*"]])[0].arrayValue?.count ?? -1 }
                            let keysBefore = try await keys()
                            #expect(keysBefore > 0, "the mirror's word counts in Redis")
                            // Her two tokens, as the mirror keeps them (sealed), live until the deletion takes them back.
                            let tokens = try await PostgresStoreSet(url: database, logger: TestServers.logger).withRunningAsPool { pool in
                                let registry = PostgresFleetRegistry(database: PostgresStoreSet(sharing: pool, schema: pool.schema ?? "public"))
                                let settings = try FleetKey(text: fleet["FLEET_KEY"]).open(
                                    try #require(try await registry.bot(named: name)).sealedSettings, bot: name)
                                return [settings["HUMAN_MASTODON_TOKEN"], settings["BOT_MASTODON_TOKEN"]].compactMap { $0 }
                            }
                            #expect(tokens.count == 2)
                            for token in tokens { #expect(await server.isLive(token: token)) }
                            let unticked = try await alice.post("/mirror/delete", [("csrf", csrf)])
                            #expect(unticked.status == 400 && unticked.html.contains("nothing was deleted"))
                            let receipt = try await alice.post("/mirror/delete", [("csrf", csrf), ("confirm", "delete")])
                            #expect(receipt.status == 200 && receipt.html.contains("id=\"receipt\""), "\(receipt.html)")
                            #expect(receipt.html.contains("\(keysBefore) word-count keys"), "\(receipt.html)")
                            pages.append(("8-deleted", receipt.html))
                            #expect(try await keys() == 0)
                            let none = try await MirrorBotProcess.run(["bots", "list"], environment: fleet)
                            #expect(!none.standardOutput.contains(name), "\(none.standardOutput)")
                            let schemas = try await PostgresStoreSet(url: database, logger: TestServers.logger).withRunningAsPool { pool in
                                var count: Int64 = -1
                                let rows = try await pool.client.query(
                                    "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'bot\\_%'", logger: TestServers.logger)
                                for try await value in rows.decode(Int64.self) { count = value }
                                return count
                            }
                            #expect(schemas == 0, "a bot's schema left")
                            #expect(receipt.html.contains("their approvals were taken back there"), "\(receipt.html)")
                            for token in tokens { #expect(await !server.isLive(token: token), "a token the deletion left approved on the instance") }
                            // Signed out with it: her page is gone, and a new mirror starts from a new sign-in.
                            #expect(receipt.setCookie?.contains("Max-Age=0") == true)
                            #expect(try await alice.get("/me").location == "/")

                            kill(web.process.processIdentifier, SIGTERM)
                            #expect(try await web.waitForExit(within: .seconds(30)).status == 0, "\(web.tail)")
                            try await Self.screenshots(of: pages, in: folder)
                        }
                    }
                }
            }
        }
    }

    /// Signs `browser` in on the Misskey `instance` as `accountID` through MiAuth (the instance's consent page pressed
    /// through its admin route, with the permissions the door asked for), and returns the callback's answer.
    static func signInMisskey(
        _ browser: DoorBrowser, account: String, on instance: URL, as accountID: String, server: FakeMisskeyServer
    ) async throws -> DoorBrowser.Answer {
        let page = try await browser.get(account == "bot" ? "/me" : "/")
        var form = [("csrf", try #require(page.csrf, "\(page.html)")), ("network", "misskey"), ("server", instance.absoluteString)]
        if account == "bot" { form.append(("account", "bot")) }
        let started = try await browser.post("/sign-in", form)
        let address = try #require(started.location.flatMap { URLComponents(string: $0) }, "\(started.html)")
        let session = try #require(address.path.split(separator: "/").last.map(String.init))
        let permissions = (address.queryItems?.first { $0.name == "permission" }?.value ?? "").split(separator: ",").map(String.init)
        let state = try #require(
            address.queryItems?.first { $0.name == "callback" }?.value.flatMap(URLComponents.init(string:))?.queryItems?.first { $0.name == "state" }?
                .value)
        #expect(await server.approveMiAuth(session: session, accountID: accountID, permissions: permissions))
        return try await browser.get("/sign-in/callback?state=\(state)&session=\(session)")
    }

    /// `mirror_bot fleet` at 1440x from `start` until it logged `learned` and the person's page (`page`'s browser)
    /// shows a post; then `body` with the run and the page, and the fleet stopped by SIGTERM, exiting cleanly.
    static func runFleetUntilPosted(
        _ fleet: [String: String], folder: URL, from start: Date, learned: String, page browser: DoorBrowser,
        _ body: (RunningBot, DoorBrowser.Answer) async throws -> Void
    ) async throws {
        let runner = try RunningBot(["fleet", "--speed", "1440", "--start-time", start.formatted(.iso8601)], environment: fleet, folder: folder)
        defer { if runner.process.isRunning { kill(runner.process.processIdentifier, SIGKILL) } }
        #expect(try await runner.waitForLog(learned), "\(runner.tail)")
        var page = try await browser.get("/me")
        #expect(
            try await FleetProcessTests.waitUntil {
                page = (try? await browser.get("/me")) ?? page
                return page.html.contains("Posted your post: <q>")
            }, "no post shown on the person's page within a minute\n\(runner.tail)")
        try await body(runner, page)
        kill(runner.process.processIdentifier, SIGTERM)
        #expect(try await runner.waitForExit(within: .seconds(30)).status == 0, "\(runner.tail)")
    }

    @Test(
        "On Misskey too: sign in with MiAuth as oneself and as the bot, make, start; the fleet learns the person's notes and posts one; her page shows it; delete"
    )
    func aMisskeyMirrorMadeInTheBrowser() async throws {
        let server = FakeMisskeyServer(seed: FleetMisskeyProcessTests.seed())
        try await server.withRunning { instance in
            try await TestServers.withScratchDatabase("doormk") { database in
                try await Self.withDoor(database) { fleet, folder, web, door in
                    try await DoorBrowser.with(door) { person in
                        let signedIn = try await Self.signInMisskey(
                            person, account: "person", on: instance, as: FleetMisskeyProcessTests.person, server: server)
                        #expect(signedIn.status == 303 && signedIn.location == "/me", "\(signedIn.html)")
                        let bot = try await Self.signInMisskey(person, account: "bot", on: instance, as: FleetMisskeyProcessTests.bot, server: server)
                        #expect(bot.status == 303 && bot.location == "/me", "\(bot.html)")
                        let choose = try await person.get("/me")
                        #expect(choose.html.contains("<strong>@mirror</strong>") && choose.html.contains("action=\"/mirror\""), "\(choose.html)")
                        let csrf = try #require(choose.csrf)
                        let made = try await person.post(
                            "/mirror", [("csrf", csrf), ("tz", "Asia/Tokyo"), ("style", "copy"), ("likes", "off"), ("agree", "yes")])
                        #expect(made.status == 303, "\(made.html)")
                        #expect(try await person.get("/me").html.contains("Paused: not started yet"))
                        #expect(try await person.post("/mirror/start", [("csrf", csrf)]).status == 303)

                        await server.armClock(FleetMisskeyProcessTests.dayStart, speed: 1_440)
                        try await Self.runFleetUntilPosted(
                            fleet, folder: folder, from: FleetMisskeyProcessTests.dayStart, learned: "learned its person first: 504 posts archived",
                            page: person
                        ) { _, page in
                            let notes = await server.posted().filter { $0.userID == FleetMisskeyProcessTests.bot && $0.replyID == nil }
                            #expect(notes.contains { page.html.contains("<q>\($0.text ?? "")</q>") }, "\(notes.map(\.text))\n\(page.html)")
                        }

                        let receipt = try await person.post("/mirror/delete", [("csrf", csrf), ("confirm", "delete")])
                        #expect(
                            receipt.status == 200 && receipt.html.contains("id=\"receipt\"") && receipt.html.contains("still approved on Misskey"))
                        let none = try await MirrorBotProcess.run(["bots", "list"], environment: fleet)
                        #expect(!none.standardOutput.contains("door-"), "\(none.standardOutput)")
                    }
                    kill(web.process.processIdentifier, SIGTERM)
                    #expect(try await web.waitForExit(within: .seconds(30)).status == 0, "\(web.tail)")
                }
            }
        }
    }
}

/// The front door's mirror on Bluesky: both accounts signed in with atproto OAuth, the door a confidential client
/// whose metadata the fake reads at `PUBLIC_URL`; the fleet runs the mirror with the sessions the door kept.
extension FrontDoorFleetProcessTests {
    /// Signs `browser` in on Bluesky as `handle` (the bot's account when `account` is "bot"): the door's sign-in, the
    /// fake's own page filled in as that account, and the door's callback; returns the callback's answer.
    static func signInBluesky(_ browser: DoorBrowser, account: String, handle: String) async throws -> DoorBrowser.Answer {
        let page = try await browser.get(account == "bot" ? "/me" : "/")
        var form = [("csrf", try #require(page.csrf, "\(page.html)")), ("network", "bluesky"), ("server", handle)]
        if account == "bot" { form.append(("account", "bot")) }
        let started = try await browser.post("/sign-in", form)
        let address = try #require(started.location.flatMap(URL.init(string:)), "\(started.html)")
        let (redirect, text) = try await SignInPage.submit(at: address, identifier: handle, password: "\(handle)-password")
        let callback = try #require(redirect, "\(text)")
        return try await browser.get(SignInPage.pathAndQuery(of: callback))
    }

    @Test(
        "On Bluesky too: sign in with atproto OAuth as oneself and as the bot (the door a confidential client), make, start; the fleet runs it on the kept sessions and posts as the bot; delete"
    )
    func aBlueskyMirrorMadeInTheBrowser() async throws {
        let server = FakeBlueskyServer(seed: BlueskyDayProcessTests.seed())
        try await server.withRunning { service in
            // The door signs with the wall clock; the fleet later runs on the fake's simulated day.
            await server.setClock(Date())
            try await TestServers.withScratchDatabase("doorbs") { database in
                try await Self.withDoor(database, web: ["BLUESKY_SERVICE_URL": service.absoluteString]) { fleet, folder, web, door in
                    try await DoorBrowser.with(door) { person in
                        let signedIn = try await Self.signInBluesky(person, account: "person", handle: "person.test")
                        #expect(signedIn.status == 303 && signedIn.location == "/me", "\(signedIn.html)")
                        let herself = try await Self.signInBluesky(person, account: "bot", handle: "person.test")
                        #expect(herself.status == 400 && herself.html.contains("your own account"), "\(herself.html)")
                        let bot = try await Self.signInBluesky(person, account: "bot", handle: "mirror.test")
                        #expect(bot.status == 303 && bot.location == "/me", "\(bot.html)")
                        let choose = try await person.get("/me")
                        #expect(choose.html.contains("<strong>@mirror.test</strong>") && choose.html.contains("action=\"/mirror\""), "\(choose.html)")
                        let csrf = try #require(choose.csrf)
                        let made = try await person.post(
                            "/mirror", [("csrf", csrf), ("tz", "Asia/Tokyo"), ("style", "copy"), ("likes", "on"), ("agree", "yes")])
                        #expect(made.status == 303, "\(made.html)")
                        #expect(try await person.get("/me").html.contains("Paused: not started yet"))
                        // Both grants were given to the door's client, which the fake read at its address.
                        let refusals = await server.oauthRefusals()
                        #expect(!refusals.contains { $0.contains("invalid_client") }, "\(refusals)")
                        #expect(await server.oauthGrantsLive(of: BlueskyDayProcessTests.person) == 1)
                        #expect(await server.oauthGrantsLive(of: BlueskyDayProcessTests.bot) == 1)
                        let listed = try await MirrorBotProcess.run(["bots", "list"], environment: fleet)
                        #expect(listed.standardOutput.contains("\tbluesky\tpaused: not started yet"), "\(listed.standardOutput)")
                        #expect(try await person.post("/mirror/start", [("csrf", csrf)]).status == 303)

                        await server.armClock(BlueskyDayProcessTests.dayStart, speed: 1_440)
                        try await Self.runFleetUntilPosted(
                            fleet, folder: folder, from: BlueskyDayProcessTests.dayStart, learned: "learned its person first:", page: person
                        ) { runner, _ in
                            let posts = await server.records(of: BlueskyDayProcessTests.bot, in: "app.bsky.feed.post")
                            #expect(!posts.isEmpty, "the bot posted with its kept OAuth session\n\(runner.tail)")
                            #expect(await server.createSessionCalls() == 0, "no password login: the sessions are the ones the door kept")
                        }

                        // Deleted: the two grants are taken back at Bluesky before their tokens go, and the receipt says so (the
                        // rehearsal over, the fake's clock is the door's again).
                        await server.setClock(Date())
                        let receipt = try await person.post("/mirror/delete", [("csrf", csrf), ("confirm", "delete")])
                        #expect(receipt.status == 200 && receipt.html.contains("id=\"receipt\""), "\(receipt.html)")
                        #expect(receipt.html.contains("their approvals were taken back there"), "\(receipt.html)")
                        #expect(await server.oauthGrantsLive(of: BlueskyDayProcessTests.person) == 0)
                        #expect(await server.oauthGrantsLive(of: BlueskyDayProcessTests.bot) == 0)
                        let none = try await MirrorBotProcess.run(["bots", "list"], environment: fleet)
                        #expect(!none.standardOutput.contains("door-"), "\(none.standardOutput)")
                    }
                    kill(web.process.processIdentifier, SIGTERM)
                    #expect(try await web.waitForExit(within: .seconds(30)).status == 0, "\(web.tail)")
                }
            }
        }
    }
}

/// The front door's mirror on X: OAuth 1.0a with the door's callback, with the app its operator brings.
extension FrontDoorFleetProcessTests {
    /// Signs `browser` in on X as `username` (the bot's account when `account` is "bot"), X's page approving
    /// (`decision` "deny": cancelling); returns the door's answer to the callback.
    static func signInX(_ browser: DoorBrowser, account: String, as username: String, decision: String = "accept") async throws
        -> DoorBrowser.Answer
    {
        let page = try await browser.get(account == "bot" ? "/me" : "/")
        var form = [("csrf", try #require(page.csrf, "\(page.html)")), ("network", "x"), ("server", "")]
        if account == "bot" { form.append(("account", "bot")) }
        let started = try await browser.post("/sign-in", form)
        let address = try #require(started.location.flatMap(URL.init(string:)), "\(started.html)")
        // X's page, logged in as the account (the fake takes who is logged in from `screen_name`).
        let approval = address.appending(queryItems: [
            URLQueryItem(name: "screen_name", value: username), URLQueryItem(name: "decision", value: decision),
        ])
        let answer = try await browser.client.execute(HTTPClientRequest(url: approval.absoluteString), timeout: .seconds(10))
        let callback = try #require(answer.headers.first(name: "Location").flatMap(URL.init(string:)), "HTTP \(answer.status.code)")
        return try await browser.get(SignInPage.pathAndQuery(of: callback))
    }

    @Test(
        "On X too: offered only with the operator's app; sign in as oneself and as the bot on X's page (OAuth 1.0a, the door's callback, no PIN), a cancelled approval keeps nothing; the mirror made paused with the app's keys; delete"
    )
    func anXMirrorMadeInTheBrowser() async throws {
        let persona = FakeXPersona(.init(randomSeed: 3, dayStart: Date(), historyDays: 2, postsPerDay: 2, followedAccounts: 1))
        let server = FakeXServer(seed: persona.seed, logger: Logger(label: "door-x", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.withRunning { base in
            try await TestServers.withScratchDatabase("doorx") { database in
                // Without the operator's app, X is not offered.
                try await Self.withDoor(database) { _, _, web, door in
                    let start = try await DoorBrowser.with(door) { try await $0.get("/").html }
                    #expect(!start.contains("<option value=\"x\">") && start.contains("<option value=\"mastodon\">"), "\(start)")
                    kill(web.process.processIdentifier, SIGTERM)
                    _ = try await web.waitForExit(within: .seconds(30))
                }
                let app = persona.botAccount
                let operatorApp = [
                    "X_API_BASE_URL": base.absoluteString, "DOOR_X_CONSUMER_KEY": app.consumerKey, "DOOR_X_CONSUMER_SECRET": app.consumerSecret,
                ]
                try await Self.withDoor(database, web: operatorApp) { fleet, _, web, door in
                    try await DoorBrowser.with(door) { person in
                        #expect(try await person.get("/").html.contains("<option value=\"x\">"))
                        let cancelled = try await Self.signInX(person, account: "person", as: persona.human.username, decision: "deny")
                        #expect(cancelled.status == 400 && cancelled.html.contains("not authorized on X"), "\(cancelled.html)")
                        #expect(try await person.get("/me").location == "/", "nothing kept of a cancelled sign-in")
                        let signedIn = try await Self.signInX(person, account: "person", as: persona.human.username)
                        #expect(signedIn.status == 303 && signedIn.location == "/me", "\(signedIn.html)")
                        let bot = try await Self.signInX(person, account: "bot", as: persona.bot.username)
                        #expect(bot.status == 303 && bot.location == "/me", "\(bot.html)")
                        let choose = try await person.get("/me")
                        #expect(choose.html.contains("<strong>@\(persona.bot.username)</strong>"), "\(choose.html)")
                        let csrf = try #require(choose.csrf)
                        let made = try await person.post(
                            "/mirror", [("csrf", csrf), ("tz", "Asia/Tokyo"), ("style", "remix"), ("likes", "off"), ("agree", "yes")])
                        #expect(made.status == 303, "\(made.html)")
                        let listed = try await MirrorBotProcess.run(["bots", "list"], environment: fleet)
                        #expect(listed.standardOutput.contains("\tx\tpaused: not started yet"), "\(listed.standardOutput)")
                        // Its settings sign with the operator's app and each account's own token.
                        let name = try #require(listed.standardOutput.split(separator: "\t").first.map(String.init))
                        let settings = try await PostgresStoreSet(url: database, logger: TestServers.logger).withRunningAsPool { pool in
                            let registry = PostgresFleetRegistry(database: PostgresStoreSet(sharing: pool, schema: pool.schema ?? "public"))
                            let row = try #require(try await registry.bot(named: name))
                            return try FleetKey(text: fleet["FLEET_KEY"]).open(row.sealedSettings, bot: name)
                        }
                        #expect(settings["HUMAN_CONSUMER_KEY"] == app.consumerKey && settings["BOT_CONSUMER_KEY"] == app.consumerKey)
                        #expect(settings["X_API_BASE_URL"] == base.absoluteString)
                        #expect(
                            settings["HUMAN_ACCESS_TOKEN"]?.hasPrefix("\(persona.human.id)-") == true
                                && settings["BOT_ACCESS_TOKEN"]?.hasPrefix("\(persona.bot.id)-") == true, "each account's own new token")
                        #expect(!web.log.contains(app.consumerSecret), "the app's secret in the door's log")
                        let receipt = try await person.post("/mirror/delete", [("csrf", csrf), ("confirm", "delete")])
                        #expect(receipt.status == 200 && receipt.html.contains("id=\"receipt\""), "\(receipt.html)")
                    }
                    kill(web.process.processIdentifier, SIGTERM)
                    #expect(try await web.waitForExit(within: .seconds(30)).status == 0, "\(web.tail)")
                }
            }
        }
    }
}

extension PostgresStoreSet {
    /// `body` with this pool running.
    fileprivate func withRunningAsPool<Result: Sendable>(_ body: (PostgresStoreSet) async throws -> Result) async throws -> Result {
        try await withRunning { try await body(self) }
    }
}
