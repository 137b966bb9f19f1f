import Foundation
import TestSupport
import Testing

/// `mirror_bot import` where a one-off dyno finds the export: standard input, and an https:// (here loopback http)
/// presigned link, whose signature never shows in what the command prints.
@Suite("mirror_bot import from standard input and from a link")
struct ImportSourceProcessTests {
    static let tweetsJS = """
        window.YTD.tweets.part0 = [
          {"tweet": {"id_str": "101", "full_text": "朝のラーメン", "created_at": "Sat Aug 12 16:10:37 +0000 2023", "entities": {"urls": []}}},
          {"tweet": {"id_str": "102", "full_text": "@taro それな", "created_at": "Sat Aug 12 17:00:00 +0000 2023", "in_reply_to_user_id_str": "300", "entities": {"urls": []}}}
        ]
        """

    @Test("import - reads the export from standard input")
    func standardInput() async throws {
        try await TestServers.withTemporaryFolder { folder in
            let environment = ["MIRROR_BOT_DATA": folder.appending(path: "bot.sqlite").path]
            try await MirrorBotProcess.personSignedIn(environment)
            let run = try await MirrorBotProcess.run(["import", "-"], environment: environment, input: Self.tweetsJS)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("Imported 2 new tweets (2 read"), "\(run.standardOutput)")
            let empty = try await MirrorBotProcess.run(["import", "-"], environment: environment, input: "")
            #expect(empty.status != 0 && empty.standardError.contains("standard input: it is empty"), "\(empty.standardError)")
        }
    }

    @Test("import https://… downloads the export; a refused link says to make a new one; the link's query (its signature) is never printed")
    func link() async throws {
        try await TestServers.withTemporaryFolder { folder in
            let served = folder.appending(path: "served")
            try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
            try Self.tweetsJS.write(to: served.appending(path: "archive-data"), atomically: true, encoding: .utf8)
            // A file server on loopback (plain http is taken from loopback only; a real link is https).
            let port = try FreePort.pick()
            let server = try await Self.python(
                ["-m", "http.server", "--bind", "127.0.0.1", "--directory", served.path, String(port)], listeningOn: port)
            // SIGKILL: a child of the test runner inherits its blocked SIGTERM.
            defer {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }

            let environment = ["MIRROR_BOT_DATA": folder.appending(path: "bot.sqlite").path]
            try await MirrorBotProcess.personSignedIn(environment)
            let secret = "X-Amz-Signature=0123456789abcdef"
            let run = try await MirrorBotProcess.run(["import", "http://127.0.0.1:\(port)/archive-data?\(secret)"], environment: environment)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("Imported 2 new tweets"), "\(run.standardOutput)")
            let missing = try await MirrorBotProcess.run(["import", "http://127.0.0.1:\(port)/gone.zip?\(secret)"], environment: environment)
            #expect(missing.status != 0 && missing.standardError.contains("answered HTTP 404"), "\(missing.standardError)")
            #expect(missing.standardError.contains("make a new one"))
            for output in [run.standardOutput, run.standardError, missing.standardOutput, missing.standardError] { #expect(!output.contains(secret)) }
        }
    }

    /// A Python server started with `arguments`, once it listens on `port` (or after 10 s).
    static func python(_ arguments: [String], listeningOn port: Int) async throws -> Process {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3"] + arguments
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        let deadline = ContinuousClock.now + .seconds(10)
        while !((try? FreePort.isListening(port)) ?? false), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        return server
    }

    @Test("import follows a few redirects, each checked: never to plain http off this machine, never more than 5")
    func redirects() async throws {
        try await TestServers.withTemporaryFolder { folder in
            // A loopback server: /plain redirects to a plain-http address elsewhere, /loop/N to /loop/N+1, /hop to /data.
            let script = folder.appending(path: "redirects.py")
            try """
            import http.server, sys
            class Redirects(http.server.BaseHTTPRequestHandler):
                def log_message(self, *args): pass
                def do_GET(self):
                    if self.path == "/data":
                        body = open(sys.argv[2], "rb").read()
                        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body); return
                    self.send_response(302)
                    if self.path == "/plain": self.send_header("Location", "http://mirror-bot-downgrade.invalid/data")
                    elif self.path.startswith("/loop/"): self.send_header("Location", "/loop/" + str(int(self.path[6:]) + 1))
                    else: self.send_header("Location", "/data")
                    self.send_header("Content-Length", "0"); self.end_headers()
            http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Redirects).serve_forever()
            """.write(to: script, atomically: true, encoding: .utf8)
            let data = folder.appending(path: "tweets.js")
            try Self.tweetsJS.write(to: data, atomically: true, encoding: .utf8)
            let port = try FreePort.pick()
            let server = try await Self.python([script.path, String(port), data.path], listeningOn: port)
            defer {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }

            let environment = ["MIRROR_BOT_DATA": folder.appending(path: "bot.sqlite").path]
            try await MirrorBotProcess.personSignedIn(environment)
            let followed = try await MirrorBotProcess.run(["import", "http://127.0.0.1:\(port)/hop"], environment: environment)
            #expect(followed.status == 0 && followed.standardOutput.contains("Imported 2 new tweets"), "\(followed.standardError)")
            let downgrade = try await MirrorBotProcess.run(["import", "http://127.0.0.1:\(port)/plain"], environment: environment)
            #expect(
                downgrade.status != 0
                    && downgrade.standardError.contains("redirects to http://mirror-bot-downgrade.invalid/data, which is not https://"),
                "\(downgrade.standardError)")
            let loop = try await MirrorBotProcess.run(["import", "http://127.0.0.1:\(port)/loop/0"], environment: environment)
            #expect(loop.status != 0 && loop.standardError.contains("redirects more than 5 times"), "\(loop.standardError)")
        }
    }
}
