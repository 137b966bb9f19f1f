import AsyncHTTPClient
import FakeX
import Foundation
import NIOCore
import TestSupport
import Testing

/// `mirror_bot start` with `PORT`, as a user runs it: the status server answers while the bot runs and stops with it.
/// A process test because only a process shows it: a real port served beside the daemon, Chromium reading the page,
/// nothing listening once the process has ended.
@Suite("mirror_bot start with PORT: the status server")
struct StatusProcessTests {
    /// The body and status of `GET url` (with the password as basic auth), or nil when nothing answers.
    static func get(_ url: String, password: String? = nil) async -> (status: Int, body: String)? {
        var request = HTTPClientRequest(url: url)
        if let password { request.headers.add(name: "Authorization", value: "Basic " + Data("me:\(password)".utf8).base64EncodedString()) }
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(5)),
            let body = try? await response.body.collect(upTo: 1 << 20)
        else { return nil }
        return (Int(response.status.code), String(buffer: body))
    }

    @Test("PORT serves /healthz and, with STATUS_PASSWORD, today's plan while the bot runs; nothing listens after it stops")
    func servesWhileRunning() async throws {
        let persona = PersonaDayProcessTests.persona()
        try await PersonaDayProcessTests.withTrainedBot(persona, "status", StoreBackends(archive: .sqlite, counts: .sqlite)) {
            server, environment, _, _ in
            try await TestServers.withTemporaryFolder { folder in
                let port = try FreePort.pick()
                await server.armClock(PersonaDayProcessTests.dayStart, speed: 60)
                // At 60x, six bot hours are six real minutes: long enough to look, stopped by SIGTERM.
                let bot = try RunningBot(
                    ["start", "--speed", "60", "--start-time", "2026-11-22T00:00:00+09:00", "--duration", "6h"],
                    environment: environment.merging(["PORT": String(port), "STATUS_PASSWORD": "open sesame, please"]) { $1 },
                    folder: folder)
                #expect(try await bot.waitForLog("status: serving /healthz and /api/v1/"), "\(bot.tail)")
                let base = "http://127.0.0.1:\(port)"
                // Served from before the network answers: healthy once the start is done (asked until it is).
                var health = await Self.get(base + "/healthz")
                for _ in 0..<100 where health?.status != 200 {
                    try await Task.sleep(for: .milliseconds(100))
                    health = await Self.get(base + "/healthz")
                }
                #expect(health?.status == 200 && health?.body.contains("\"status\":\"ok\"") == true, "\(String(describing: health))")
                #expect(await Self.get(base + "/api/v1/plans/2026-11-22")?.status == 401)
                // The plan is drawn as the poster begins: asked until it is there.
                var plan = await Self.get(base + "/api/v1/plans/2026-11-22", password: "open sesame, please")
                for _ in 0..<50 where plan?.status != 200 {
                    try await Task.sleep(for: .milliseconds(100))
                    plan = await Self.get(base + "/api/v1/plans/2026-11-22", password: "open sesame, please")
                }
                #expect(plan?.status == 200 && plan?.body.contains("\"slots\":[") == true, "\(String(describing: plan))")
                #expect(plan?.body.contains("open sesame, please") == false)
                kill(bot.process.processIdentifier, SIGTERM)
                let (status, _) = try await bot.waitForExit()
                #expect(status == 0, "\(bot.tail)")
                #expect(await Self.get(base + "/healthz") == nil)
            }
        }
    }

    @Test(
        "PORT is bound before the network answers: with X unreachable, /healthz answers at once (the network part starting), the page says what the start waits for"
    )
    func portBoundBeforeTheNetwork() async throws {
        try await TestServers.withTemporaryFolder { folder in
            let port = try FreePort.pick()
            let silentX = RefusingPort()  // held: nothing else may listen there
            defer { silentX.close() }
            var environment = DoctorProcessTests.environment(URL(string: "http://127.0.0.1:\(silentX.port)")!, botSecret: "bts")
            environment.merge([
                "PORT": String(port), "STATUS_PASSWORD": "open sesame, please", "MIRROR_BOT_DATA": folder.appending(path: "bot.sqlite").path,
            ]) { $1 }
            try await MirrorBotProcess.personSignedIn(environment)
            let bot = try RunningBot(["start"], environment: environment, folder: folder)
            // SIGKILL: nothing is under way yet, and a child of the test runner inherits its blocked SIGTERM.
            defer { kill(bot.process.processIdentifier, SIGKILL) }
            #expect(try await bot.waitForLog("status: serving /healthz and /api/v1/"), "\(bot.tail)")
            let health = await Self.get("http://127.0.0.1:\(port)/healthz")
            #expect(health?.status == 503, "\(String(describing: health))")
            // Anyone sees the part and its code, nothing more.
            #expect(health?.body.contains(#"{"code":"starting","name":"network","ok":false}"#) == true, "\(String(describing: health))")
            #expect(health?.body.contains("waiting") == false, "\(String(describing: health))")
            // Behind the password, the page says what the start waits for, as soon as it does.
            var page: (status: Int, body: String)?
            for _ in 0..<40 {
                page = await Self.get("http://127.0.0.1:\(port)/", password: "open sesame, please")
                if page?.body.contains("waiting for X to answer who the human account is") == true { break }
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(
                page?.status == 200 && page?.body.contains("waiting for X to answer who the human account is") == true, "\(String(describing: page))")
            #expect(!bot.log.contains("mirroring @"))
        }
    }

    @Test(
        "PORT is bound before the database answers: with a Postgres that never answers, /healthz answers at once (the archive starting), the page says what the start waits for"
    )
    func portBoundBeforeTheDatabase() async throws {
        try await TestServers.withTemporaryFolder { folder in
            let (port, silentX) = (try FreePort.pick(), try FreePort.pick())
            let silentPostgres = try SilentListener()
            defer { silentPostgres.close() }
            var environment = DoctorProcessTests.environment(URL(string: "http://127.0.0.1:\(silentX)")!, botSecret: "bts")
            environment.merge([
                "PORT": String(port), "STATUS_PASSWORD": "open sesame, please",
                "DATABASE_URL": "postgres://mirror:secret@127.0.0.1:\(silentPostgres.port)/mirror?sslmode=disable&connect_timeout=600",
            ]) { $1 }
            // connect_timeout: the start waits on the silent database far longer than the test looks, however loaded the machine.
            let bot = try RunningBot(["start"], environment: environment, folder: folder)
            defer { kill(bot.process.processIdentifier, SIGKILL) }
            #expect(try await bot.waitForLog("status: serving /healthz and /api/v1/"), "\(bot.tail)")
            let health = await Self.get("http://127.0.0.1:\(port)/healthz")
            #expect(health?.status == 503, "\(String(describing: health))")
            #expect(health?.body.contains(#"{"code":"starting","name":"archive","ok":false}"#) == true, "\(String(describing: health))")
            // Neither the database's address nor its user reach anyone.
            #expect(health?.body.contains("mirror") == false && health?.body.contains(String(silentPostgres.port)) == false)
            let page = await Self.get("http://127.0.0.1:\(port)/", password: "open sesame, please")
            #expect(page?.status == 503 && page?.body.contains("Waiting for the archive to answer") == true, "\(String(describing: page))")
            let api = await Self.get("http://127.0.0.1:\(port)/api/v1/actions", password: "open sesame, please")
            #expect(api?.status == 503 && api?.body.contains(#""code":"1009""#) == true, "\(String(describing: api))")
            #expect(!bot.log.contains("lease:"))
        }
    }

    /// Runs headless Chromium (Debian's `chromium`) with `arguments` and the page's URL; returns its output and its log.
    static func chromium(_ arguments: [String], url: String, profile: URL) async throws -> (output: String, log: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chromium")
        // Root needs --no-sandbox; the console's messages go to the log (--enable-logging=stderr).
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", "--no-first-run",
                "--user-data-dir=" + profile.path, "--enable-logging=stderr", "--v=0",
            ] + arguments + [url]
        let output = Pipe()
        let log = Pipe()
        process.standardOutput = output
        process.standardError = log
        try process.run()
        // A screenshot takes seconds; two minutes is a hang, which the watchdog ends (the reads then reach their end).
        let watchdog = ChildWatchdog(process, limit: .seconds(120))
        defer { watchdog.cancel() }
        let reading = Task.detached { (output.fileHandleForReading.readDataToEndOfFile(), log.fileHandleForReading.readDataToEndOfFile()) }
        let (out, err) = await reading.value
        try await process.exit(within: .seconds(10), "chromium to end once its output closed")
        if watchdog.fired { throw ChildDidNotExit(what: "chromium \(arguments.joined(separator: " ")) \(url) to end", limit: .seconds(120)) }
        return (String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    /// Starts the persona's day at 720x (its clock armed by the caller) with the status page on a free port behind the
    /// password "process-test-password", and returns once `posts()` reaches `count` (real time: the bot is another process) or after 90 s.
    static func startServingPage(
        _ environment: [String: String], folder: URL, untilPosts count: Int,
        posts: () async -> Int
    ) async throws -> (bot: RunningBot, port: Int) {
        let port = try FreePort.pick()
        let bot = try RunningBot(
            ["start", "--speed", "720", "--start-time", "2026-11-22T00:00:00+09:00", "--duration", "1d"],
            environment: environment.merging(["PORT": String(port), "STATUS_PASSWORD": "process-test-password"]) { $1 },
            folder: folder)
        let deadline = ContinuousClock.now + .seconds(90)
        while await posts() < count, ContinuousClock.now < deadline, bot.process.isRunning {
            try await Task.sleep(for: .milliseconds(100))
        }
        return (bot, port)
    }

    @Test(
        "Headless Chromium loads the page of a running simulated day: no console errors, a screenshot, the chart and the actions with their reasons in the DOM"
    )
    func pageInChromium() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            "Debian's chromium is not installed: script/test installs it (apt-get install chromium)")
        let persona = PersonaDayProcessTests.persona()
        try await PersonaDayProcessTests.withTrainedBot(persona, "page", StoreBackends(archive: .sqlite, counts: .sqlite)) {
            server, environment, _, _ in
            try await TestServers.withTemporaryFolder { folder in
                await server.armClock(PersonaDayProcessTests.dayStart, speed: 720)
                let (bot, port) = try await Self.startServingPage(environment, folder: folder, untilPosts: 3) {
                    await server.posted().filter { $0.inReplyToTweetID == nil }.count
                }
                let url = "http://me:process-test-password@127.0.0.1:\(port)/"
                let shot = folder.appending(path: "status-page.png")
                let screenshot = try await Self.chromium(
                    ["--window-size=420,1600", "--screenshot=" + shot.path], url: url,
                    profile: folder.appending(path: "chrome-shot"))
                let dom = try await Self.chromium(["--dump-dom"], url: url, profile: folder.appending(path: "chrome-dom"))
                let metrics = await Self.get("http://127.0.0.1:\(port)/metrics", password: "process-test-password")
                kill(bot.process.processIdentifier, SIGTERM)
                let (status, _) = try await bot.waitForExit()
                #expect(status == 0, "\(bot.tail)")

                // The screenshot: a PNG 420 pixels wide.
                let png = try Data(contentsOf: shot)
                #expect(png.count > 10_000 && png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(png.count) bytes")
                let width = png.count > 24 ? png[16..<20].reduce(0) { $0 << 8 | Int($1) } : 0
                #expect(width == 420)
                // What it shows: the chart with today's slots, the actions with their reasons, no console errors.
                let html = dom.output
                #expect(html.contains("<svg id=\"rhythm\"") && html.contains("class=\"slot posted\""), "\(html.prefix(2_000))")
                #expect(html.contains("id=\"actions\"") && html.contains("<span class=\"kind\">posted</span>"))
                #expect(html.contains("the human's post") && html.contains("within ±"))
                #expect(html.contains("archive: answers"))
                // The X endpoints the bot called, each with its last success.
                #expect(html.contains("id=\"endpoints\"") && html.contains("POST /2/tweets <span class=\"muted\">as bot</span>"))
                for log in [screenshot.log, dom.log] {
                    let console = log.split(separator: "\n").filter { $0.contains("CONSOLE") }
                    #expect(console.isEmpty, "console: \(console)")
                }
                // The metrics of what it did: posts with their lateness, X calls by endpoint with their cost.
                let text = metrics?.body ?? ""
                #expect(metrics?.status == 200)
                #expect(text.range(of: #"(?m)^mirror_bot_posts_total [1-9]"#, options: .regularExpression) != nil, "\(text.prefix(3_000))")
                #expect(text.contains("mirror_bot_slot_lateness_seconds_bucket{"))
                #expect(text.contains(#"mirror_bot_api_calls_total{endpoint="POST /2/tweets",account="bot",outcome="ok"}"#), "\(text.prefix(3_000))")
                #expect(text.contains(#"mirror_bot_api_cost_dollars_total{endpoint="POST /2/tweets"}"#))
                // Kept for a person to look at (script/test prints where).
                if let keep = ProcessInfo.processInfo.environment["MIRROR_BOT_SCREENSHOT_DIR"] {
                    try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
                    try? FileManager.default.removeItem(atPath: keep + "/status-page-test.png")
                    try? FileManager.default.copyItem(at: shot, to: URL(fileURLWithPath: keep + "/status-page-test.png"))
                }
            }
        }
    }
}
