import FakeMastodon
import Foundation
import TestSupport
import Testing

/// The operator's page of `mirror_bot web` as a process on a fleet's Postgres, against a fake Mastodon instance: signed
/// in with its password (a form, a new session id, wrong passwords limited), the fleet at a glance, invitations made,
/// used once and withdrawn at a door by invitation, bots paused and resumed (never a person's own pause lifted), and
/// the audit log of all of it, `mirror_bot bots` included.
@Suite("The operator's page: sign-ups by invitation, bots paused and resumed, an audit log", .serialized)
struct DoorOperatorProcessTests {
    static let password = "the operator's own password"

    /// The link's path and query, as a browser opens it at the door.
    static func path(of link: String) throws -> String {
        let url = try #require(URL(string: link), "\(link)")
        return url.path() + "?" + (url.query() ?? "")
    }

    /// The invitation's link on the page that made it.
    static func link(in html: String) throws -> String {
        try #require(html.firstMatch(of: /id="invitation-link" value="([^"]+)"/).map { String($0.1) }, "\(html)")
    }

    /// The audit log's lines on the operator's page, newest first.
    static func audit(in html: String) -> [String] {
        html.matches(of: /<li><time>[^<]*<\/time> ([^<]*)<\/li>/).map { String($0.1) }
    }

    @Test(
        "By invitation: a person without one signs in but makes nothing; the operator's link makes one mirror, once; a withdrawn one opens nothing; the operator pauses and resumes but never starts what its person has not; every step in the audit log"
    )
    func anOperatorRunsTheDoor() async throws {
        let server = FakeMastodonServer(seed: FrontDoorFleetProcessTests.seed())
        try await server.withRunning { instance in
            try await TestServers.withScratchDatabase("operator") { database in
                let web = ["DOOR_SIGN_UP": "invitations", "DOOR_OPERATOR_PASSWORD": Self.password]
                try await FrontDoorFleetProcessTests.withDoor(database, web: web) { fleet, folder, process, door in
                    try await DoorBrowser.with(door) { operatorBrowser in
                        try await DoorBrowser.with(door) { alice in
                            try await DoorBrowser.with(door) { bob in
                                // The password's form; without its token, or with a wrong password, nobody is signed in.
                                let form = try await operatorBrowser.get("/operator")
                                #expect(form.status == 200 && form.html.contains("name=\"password\" type=\"password\""), "\(form.html)")
                                let visitorToken = try #require(form.csrf)
                                #expect(try await operatorBrowser.post("/operator/sign-in", [("password", Self.password)]).status == 403)
                                let wrong = try await operatorBrowser.post("/operator/sign-in", [("csrf", visitorToken), ("password", "not it")])
                                #expect(wrong.status == 401, "\(wrong.html)")
                                let before = operatorBrowser.cookie
                                let signedIn = try await operatorBrowser.post(
                                    "/operator/sign-in", [("csrf", visitorToken), ("password", Self.password)])
                                #expect(signedIn.status == 303 && signedIn.location == "/operator", "\(signedIn.html)")
                                #expect(operatorBrowser.cookie != before, "a new session id at the operator's sign-in")
                                let first = try await operatorBrowser.get("/operator")
                                #expect(first.html.contains("by invitation") && first.html.contains("0 of 100 mirrors made"), "\(first.html)")
                                let token = try #require(first.csrf)
                                #expect(token != visitorToken, "a new CSRF token at the operator's sign-in")

                                // Alice, without an invitation: she signs in (to see a mirror she has), and is asked for one.
                                let aliceIn = try await FrontDoorFleetProcessTests.signIn(
                                    alice, account: "person", on: instance, as: "100", server: server)
                                #expect(aliceIn.status == 303 && aliceIn.location == "/me", "\(aliceIn.html)")
                                let asked = try await alice.get("/me")
                                #expect(asked.html.contains("by invitation") && asked.html.contains("name=\"invitation\""), "\(asked.html)")
                                let aliceToken = try #require(asked.csrf)
                                let noBot = try await alice.post(
                                    "/sign-in",
                                    [("csrf", aliceToken), ("network", "mastodon"), ("server", instance.absoluteString), ("account", "bot")])
                                #expect(noBot.status == 403 && noBot.html.contains("by invitation"), "\(noBot.html)")
                                // Her session is not the operator's: the page asks her for the password, her forms reach nothing.
                                #expect(try await alice.get("/operator").html.contains("name=\"password\""))
                                let hers = try await alice.post("/operator/invitations", [("csrf", aliceToken), ("note", "me"), ("days", "90")])
                                #expect(hers.status == 403, "\(hers.html)")

                                // The operator invites her: the link is shown once, and only its digest is kept.
                                let made = try await operatorBrowser.post(
                                    "/operator/invitations", [("csrf", token), ("note", "for alice"), ("days", "7")])
                                #expect(made.status == 200, "\(made.html)")
                                let link = try Self.link(in: made.html)
                                #expect(
                                    link.hasPrefix(door.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/?invitation="))
                                let code = String(link.split(separator: "=").last ?? "")
                                #expect(code.count == 22, "128 bits")
                                let listed = try await operatorBrowser.get("/operator")
                                #expect(listed.html.contains("for alice") && listed.html.contains("open until") && !listed.html.contains(code))
                                #expect(try await alice.get("/?invitation=not-a-code").status == 404)

                                // Alice opens it: kept in her session, off the address bar; her page now asks for the bot.
                                let opened = try await alice.get(try Self.path(of: link))
                                #expect(opened.status == 303 && opened.location == "/", "\(opened.html)")
                                let ready = try await alice.get("/me")
                                #expect(
                                    !ready.html.contains("name=\"invitation\"") && ready.html.contains("name=\"account\" value=\"bot\""),
                                    "\(ready.html)")
                                let bot = try await FrontDoorFleetProcessTests.signIn(alice, account: "bot", on: instance, as: "200", server: server)
                                #expect(bot.status == 303, "\(bot.html)")
                                let mirror = try await alice.post(
                                    "/mirror", [("csrf", aliceToken), ("tz", "Asia/Tokyo"), ("style", "copy"), ("likes", "on"), ("agree", "yes")])
                                #expect(mirror.status == 303 && mirror.location == "/me", "\(mirror.html)")

                                // Bob brings the same link: used.
                                let used = try await bob.get(try Self.path(of: link))
                                #expect(used.status == 404 && used.html.contains("used already"), "\(used.html)")

                                // The operator sees the mirror, made at the door, its pause its person's (not started yet).
                                let withMirror = try await operatorBrowser.get("/operator")
                                let name = try #require(withMirror.html.firstMatch(of: /data-bot="(door-[0-9a-f]{16})"/).map { String($0.1) })
                                #expect(
                                    withMirror.html.contains("1 of 100 mirrors made at the door (DOOR_MAX_MIRRORS); 1 in the last day"),
                                    "\(withMirror.html)")
                                #expect(withMirror.html.contains("used ") && withMirror.html.contains("for \(name)"), "\(withMirror.html)")
                                #expect(withMirror.html.contains("paused: not started yet") && withMirror.html.contains("its person's"))
                                // The operator never starts what its person has not.
                                let refused = try await operatorBrowser.post("/operator/resume", [("csrf", token), ("bot", name)])
                                #expect(refused.status == 400 && refused.html.contains("only its person starts it"), "\(refused.html)")
                                #expect(try await alice.get("/me").html.contains("Paused: not started yet"))

                                // Alice starts it; the operator pauses it (she cannot lift that), then resumes it.
                                #expect(try await alice.post("/mirror/start", [("csrf", aliceToken)]).status == 303)
                                #expect(try await operatorBrowser.post("/operator/pause", [("bot", name)]).status == 403, "no token")
                                #expect(!(try await alice.get("/me").html.contains("Paused")), "unchanged without the token")
                                let paused = try await operatorBrowser.post("/operator/pause", [("csrf", token), ("bot", name)])
                                #expect(paused.status == 303, "\(paused.html)")
                                #expect(try await alice.get("/me").html.contains("paused by the operator or after a failure"))
                                #expect(try await alice.post("/mirror/start", [("csrf", aliceToken)]).status == 400)
                                #expect(try await operatorBrowser.post("/operator/resume", [("csrf", token), ("bot", name)]).status == 303)
                                #expect(!(try await alice.get("/me").html.contains("Paused")))

                                // Paused by the operator, she pauses it too: when the operator lifts theirs, hers stays.
                                #expect(try await operatorBrowser.post("/operator/pause", [("csrf", token), ("bot", name)]).status == 303)
                                let underOperator = try await alice.get("/me")
                                #expect(
                                    underOperator.html.contains("action=\"/mirror/pause\"")
                                        && !underOperator.html.contains("action=\"/mirror/start\""),
                                    "\(underOperator.html)")
                                #expect(try await alice.post("/mirror/pause", [("csrf", aliceToken)]).status == 303)
                                #expect(!(try await alice.get("/me").html.contains("action=\"/mirror/pause\"")), "paused by her too")
                                #expect(try await operatorBrowser.post("/operator/resume", [("csrf", token), ("bot", name)]).status == 303)
                                #expect(try await alice.get("/me").html.contains("Paused: paused by its person"))
                                #expect(try await alice.post("/mirror/start", [("csrf", aliceToken)]).status == 303)

                                // She pauses it herself; the operator's pause goes over hers, and their resume gives hers back.
                                #expect(try await alice.post("/mirror/pause", [("csrf", aliceToken)]).status == 303)
                                let byHand = try await MirrorBotProcess.run(["bots", "pause", name], environment: fleet)
                                #expect(byHand.status == 0, "\(byHand.standardError)")
                                let resumed = try await MirrorBotProcess.run(["bots", "resume", name], environment: fleet)
                                #expect(resumed.status == 0, "\(resumed.standardError)")
                                #expect(try await alice.get("/me").html.contains("Paused: paused by its person"))
                                let notTheirs = try await MirrorBotProcess.run(["bots", "resume", name], environment: fleet)
                                #expect(
                                    notTheirs.status != 0 && notTheirs.standardError.contains("only its person starts it"),
                                    "\(notTheirs.standardError)")

                                // An invitation withdrawn opens nothing.
                                let forBob = try await operatorBrowser.post(
                                    "/operator/invitations", [("csrf", token), ("note", "for bob"), ("days", "1")])
                                let bobsLink = try Self.link(in: forBob.html)
                                let open = try await operatorBrowser.get("/operator")
                                let number = try #require(
                                    open.html.firstMatch(of: /data-invitation="([0-9]+)"><td>[0-9]+<\/td><td>for bob/).map { String($0.1) })
                                let withdrawn = try await operatorBrowser.post(
                                    "/operator/invitations/withdraw", [("csrf", token), ("invitation", number)])
                                #expect(withdrawn.status == 303, "\(withdrawn.html)")
                                #expect(try await bob.get(try Self.path(of: bobsLink)).status == 404)

                                // The audit log: every step, newest first, the page's with its address, the command's with its host.
                                let last = try await operatorBrowser.get("/operator")
                                let lines = Self.audit(in: last.html)
                                let expected = [
                                    "withdrew an invitation", "made an invitation", "mirror_bot bots on .*: resumed \(name)",
                                    "mirror_bot bots on .*: paused \(name)", "resumed \(name)", "paused \(name)", "resumed \(name)", "paused \(name)",
                                    "made an invitation", "signed in",
                                ]
                                #expect(lines.count == expected.count, "\(lines)")
                                for (line, pattern) in zip(lines, expected) {
                                    #expect(line.contains(try Regex(pattern)), "\(line) is not \(pattern)")
                                }
                                #expect(lines.last?.hasPrefix("the operator&#39;s page (127.0.0.1): signed in") == true, "\(lines)")
                                try await FrontDoorFleetProcessTests.screenshots(of: [("operator", last.html)], in: folder)

                                // Signed out, the page asks for the password again; wrong passwords are limited per address.
                                #expect(try await operatorBrowser.post("/operator/sign-out", [("csrf", token)]).status == 303)
                                let again = try await operatorBrowser.get("/operator")
                                #expect(again.html.contains("name=\"password\""))
                                let retry = try #require(again.csrf)
                                for _ in 0..<9 {
                                    _ = try await operatorBrowser.post("/operator/sign-in", [("csrf", retry), ("password", "guess")])
                                }
                                let limited = try await operatorBrowser.post("/operator/sign-in", [("csrf", retry), ("password", Self.password)])
                                #expect(limited.status == 429, "the right password after ten wrong ones is not even checked: \(limited.html)")
                                #expect(!process.log.contains(Self.password) && !process.log.contains(code), "a secret in the door's log")
                            }
                        }
                    }
                    kill(process.process.processIdentifier, SIGTERM)
                    #expect(try await process.waitForExit(within: .seconds(30)).status == 0, "\(process.tail)")
                }
            }
        }
    }
}

/// An archive's import beside its upload's answer, `mirror_bot web` as a process: past the answer's wait, the answer
/// is the progress page, which shows the outcome once the import ends.
@Suite("The front door's import beside its answer")
struct DoorImportProcessTests {
    @Test(
        "With --import-wait 0 an upload answers at once with the progress page (it looks again every 2 s, no script); the import's page is shown once it ends, once"
    )
    func progressPage() async throws {
        let server = FakeMastodonServer(seed: FrontDoorFleetProcessTests.seed())
        try await server.withRunning { instance in
            try await TestServers.withScratchDatabase("doorimport") { database in
                try await FrontDoorFleetProcessTests.withDoor(database, arguments: ["--import-wait", "0"]) { _, _, process, door in
                    try await DoorBrowser.with(door) { alice in
                        _ = try await FrontDoorFleetProcessTests.signIn(alice, account: "person", on: instance, as: "100", server: server)
                        _ = try await FrontDoorFleetProcessTests.signIn(alice, account: "bot", on: instance, as: "200", server: server)
                        let csrf = try #require(try await alice.get("/me").csrf)
                        let made = try await alice.post("/mirror", [("csrf", csrf), ("tz", "UTC"), ("style", "copy"), ("agree", "yes")])
                        #expect(made.status == 303, "\(made.html)")
                        #expect(try await alice.get("/mirror/archive/progress").location == "/me", "no import: her page")
                        let actor = instance.appending(path: "users/alice").absoluteString
                        let outbox = Data(FrontDoorFleetProcessTests.outbox(actor: actor, count: 2_000).utf8)
                        let uploaded = try await alice.upload("/mirror/archive", [("csrf", csrf)], file: ("archive", "outbox.json", outbox))
                        #expect(uploaded.status == 303 && uploaded.location == "/mirror/archive/progress", "\(uploaded.html)")
                        // The progress page until the import ends (bounded), then its page.
                        var page = try await alice.get("/mirror/archive/progress")
                        var looks = 1
                        while page.html.contains("id=\"importing\""), looks < 300 {
                            #expect(page.status == 200 && page.html.contains("<meta http-equiv=\"refresh\" content=\"2\">"), "\(page.html)")
                            #expect(page.html.contains("Importing for") && !page.html.contains("<script"), "\(page.html)")
                            try await Task.sleep(for: .milliseconds(100))
                            page = try await alice.get("/mirror/archive/progress")
                            looks += 1
                        }
                        #expect(page.status == 200 && page.html.contains("id=\"imported\""), "the import's page within 30 s: \(page.html)")
                        #expect(page.html.contains("The archive holds 2000 posts"), "\(page.html)")
                        #expect(try await alice.get("/mirror/archive/progress").location == "/me", "shown once")
                        #expect(process.log.contains("web: a person imported an archive on Mastodon: their mirror's archive holds 2000 posts"))
                    }
                    kill(process.process.processIdentifier, SIGTERM)
                    #expect(try await process.waitForExit(within: .seconds(30)).status == 0, "\(process.tail)")
                }
            }
        }
    }

    @Test("Sign-ins no mirror was made with are taken back on the instance: the bot's signed in again, and a person who signs out before making one")
    func unusedSignInsRevoked() async throws {
        let server = FakeMastodonServer(seed: FrontDoorFleetProcessTests.seed())
        try await server.withRunning { instance in
            try await TestServers.withScratchDatabase("doorunused") { database in
                try await FrontDoorFleetProcessTests.withDoor(database) { _, _, process, door in
                    try await DoorBrowser.with(door) { alice in
                        let (persons, bots) = (await server.liveTokens(of: "100"), await server.liveTokens(of: "200"))
                        _ = try await FrontDoorFleetProcessTests.signIn(alice, account: "person", on: instance, as: "100", server: server)
                        _ = try await FrontDoorFleetProcessTests.signIn(alice, account: "bot", on: instance, as: "200", server: server)
                        #expect(await server.liveTokens(of: "200") == bots + 1)
                        // The bot's account signed in again: the first grant is taken back, the second kept.
                        _ = try await FrontDoorFleetProcessTests.signIn(alice, account: "bot", on: instance, as: "200", server: server)
                        #expect(
                            try await FleetProcessTests.waitUntil { await server.liveTokens(of: "200") == bots + 1 },
                            "the replaced bot sign-in's token revoked within the wait")
                        // Signed out before making a mirror: both grants taken back.
                        let csrf = try #require(try await alice.get("/me").csrf)
                        #expect(try await alice.post("/sign-out", [("csrf", csrf)]).status == 303)
                        #expect(
                            try await FleetProcessTests.waitUntil {
                                let person = await server.liveTokens(of: "100")
                                let bot = await server.liveTokens(of: "200")
                                return person == persons && bot == bots
                            }, "every unused token revoked within the wait")
                    }
                    kill(process.process.processIdentifier, SIGTERM)
                    #expect(try await process.waitForExit(within: .seconds(30)).status == 0, "\(process.tail)")
                }
            }
        }
    }
}
