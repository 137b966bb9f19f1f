import Foundation
import TestSupport
import Testing

/// `mirror_bot web` as a process: the front door opens on its port, headless Chromium reads its start page at a phone's
/// width, SIGTERM closes it; a public address that would send browsers back over plain http is refused.
@Suite("mirror_bot web: the front door as a process, in headless Chromium")
struct WebProcessTests {
    @Test("The start page at 360 px and 1280 px: the sign-in form with its token, no script, no console error; SIGTERM ends it with 0")
    func startPageInChromium() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            "Debian's chromium is not installed: script/test installs it (apt-get install chromium)")
        try await TestServers.withTemporaryFolder { folder in
            let port = try FreePort.pick()
            let door = try RunningBot(["web"], environment: ["PORT": String(port), "PUBLIC_URL": "http://localhost:\(port)"], folder: folder)
            #expect(try await door.waitForLog("the front door is open on port \(port)", limit: .seconds(60)), "\(door.tail)")
            let url = "http://127.0.0.1:\(port)/"
            let dom = try await StatusProcessTests.chromium(["--dump-dom"], url: url, profile: folder.appending(path: "chrome-dom"))
            var widths: [Int] = []
            for width in [360, 1280] {
                let shot = folder.appending(path: "door-\(width).png")
                _ = try await StatusProcessTests.chromium(
                    ["--window-size=\(width),900", "--screenshot=" + shot.path], url: url, profile: folder.appending(path: "chrome-\(width)"))
                let png = (try? Data(contentsOf: shot)) ?? Data()
                widths.append(png.count > 24 ? png[16..<20].reduce(0) { $0 << 8 | Int($1) } : 0)
            }
            kill(door.process.processIdentifier, SIGTERM)
            let (status, _) = try await door.waitForExit(within: .seconds(30))
            #expect(status == 0, "\(door.tail)")

            let html = dom.output
            #expect(html.contains("<form method=\"post\" action=\"/sign-in\">") && html.contains("name=\"csrf\""), "\(html.prefix(1_500))")
            #expect(html.contains("<label for=\"server\">") && html.contains("<option value=\"mastodon\">"))
            #expect(!html.contains("<script"))
            #expect(dom.log.split(separator: "\n").filter { $0.contains("CONSOLE") }.isEmpty, "\(dom.log)")
            #expect(widths == [360, 1280], "screenshots at a phone's and a desktop's width")
        }
    }

    @Test("A public address on plain http that is not this machine is refused before anything listens")
    func plainHTTPRefused() async throws {
        try await TestServers.withTemporaryFolder { folder in
            let run = try await MirrorBotProcess.run(["web"], environment: ["PORT": "8099", "PUBLIC_URL": "http://door.example"])
            #expect(run.status != 0)
            #expect(
                run.standardError.contains("PUBLIC_URL") && run.standardError.contains("http://door.example")
                    && run.standardError.contains("https://"), "\(run.standardError)")
            _ = folder
        }
    }
}
