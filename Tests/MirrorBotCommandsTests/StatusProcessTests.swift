import AsyncHTTPClient
import FakeX
import Foundation
import NIOCore
import Testing
import TestSupport

/// `mirror_bot start` with `PORT`, as a user runs it: the status server answers while the bot runs and stops with it.
@Suite("mirror_bot start with PORT: the status server")
struct StatusProcessTests {
    /// The body and status of `GET url` (with the password as basic auth), or nil when nothing answers.
    static func get(_ url: String, password: String? = nil) async -> (status: Int, body: String)? {
        var request = HTTPClientRequest(url: url)
        if let password { request.headers.add(name: "Authorization", value: "Basic " + Data("me:\(password)".utf8).base64EncodedString()) }
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(5)),
              let body = try? await response.body.collect(upTo: 1 << 20) else { return nil }
        return (Int(response.status.code), String(buffer: body))
    }

    @Test("PORT serves /healthz and, with STATUS_PASSWORD, today's plan while the bot runs; nothing listens after it stops")
    func servesWhileRunning() async throws {
        let persona = PersonaDayProcessTests.persona()
        try await PersonaDayProcessTests.withTrainedBot(persona, "status", StoreBackends(archive: .sqlite, counts: .sqlite)) { server, environment, _, _ in
            try await TestServers.withTemporaryFolder { folder in
                let port = try FreePort.pick()
                await server.armClock(PersonaDayProcessTests.dayStart, speed: 60)
                // At 60x, six bot hours are six real minutes: long enough to look, stopped by SIGTERM.
                let bot = try RunningBot(["start", "--speed", "60", "--start-time", "2026-11-22T00:00:00+09:00", "--duration", "6h"],
                                         environment: environment.merging(["PORT": String(port), "STATUS_PASSWORD": "open sesame"]) { $1 },
                                         folder: folder)
                #expect(try await bot.waitForLog("status: serving /healthz and /api/v1/"), "\(bot.tail)")
                let base = "http://127.0.0.1:\(port)"
                let health = await Self.get(base + "/healthz")
                #expect(health?.status == 200 && health?.body.contains("\"status\":\"ok\"") == true, "\(String(describing: health))")
                #expect(await Self.get(base + "/api/v1/plans/2026-11-22")?.status == 401)
                // The plan is drawn as the poster begins: asked until it is there.
                var plan = await Self.get(base + "/api/v1/plans/2026-11-22", password: "open sesame")
                for _ in 0..<50 where plan?.status != 200 {
                    try await Task.sleep(for: .milliseconds(100))
                    plan = await Self.get(base + "/api/v1/plans/2026-11-22", password: "open sesame")
                }
                #expect(plan?.status == 200 && plan?.body.contains("\"slots\":[") == true, "\(String(describing: plan))")
                #expect(plan?.body.contains("open sesame") == false)
                kill(bot.process.processIdentifier, SIGTERM)
                let (status, _) = try await bot.waitForExit()
                #expect(status == 0, "\(bot.tail)")
                #expect(await Self.get(base + "/healthz") == nil)
            }
        }
    }
}
