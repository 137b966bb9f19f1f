import Foundation
import TestSupport
import Testing

/// One `mirror_bot start` per bot: a second one on the same store stops at once with one line naming the first; a
/// killed one's lease is taken over by the next start without any manual step; `train clear` and `train rebuild`
/// refuse while the bot runs. On Postgres (an advisory lock) and on the SQLite file (a file lock).
@Suite("mirror_bot start: one daemon per bot", .serialized)
struct DaemonLeaseProcessTests {
    @Test(
        "A second start exits 1 naming the first; clear and rebuild refuse while it runs; after a SIGKILL the next start takes over",
        arguments: PersonaDayProcessTests.backends)
    func oneDaemon(_ backends: StoreBackends) async throws {
        let persona = PersonaDayProcessTests.persona()
        try await PersonaDayProcessTests.withTrainedBot(persona, "lease", backends) { server, environment, _, _ in
            try await TestServers.withTemporaryFolder { folder in
                await server.armClock(PersonaDayProcessTests.dayStart, speed: 1_440)
                let first = try RunningBot(
                    ["start", "--speed", "1440", "--start-time", "2026-11-22T00:00:00+09:00"], environment: environment, folder: folder)
                defer { if first.process.isRunning { kill(first.process.processIdentifier, SIGKILL) } }
                #expect(try await first.waitForLog("running; SIGTERM or SIGINT stops it gracefully"), "\(first.tail)")
                #expect(first.log.contains("lease: this bot's store is held by pid \(first.process.processIdentifier)"))

                let second = try await MirrorBotProcess.run(["start", "--speed", "1440", "--duration", "1h"], environment: environment)
                #expect(second.status == 1, "\(second.standardError.suffix(1_000))")
                let refusal = second.standardError.split(separator: "\n").filter { $0.contains("Another mirror_bot start is running for this bot") }
                #expect(refusal.count == 1, "\(second.standardError.suffix(1_000))")
                #expect(refusal.first?.contains("pid \(first.process.processIdentifier) on host ") == true)
                #expect(!second.standardError.contains("posted slot"))

                for command in [["train", "clear"], ["train", "rebuild"]] {
                    let refused = try await MirrorBotProcess.run(command, environment: environment)
                    #expect(
                        refused.status != 0 && refused.standardError.contains("so it does not run while the bot does"),
                        "\(command): \(refused.standardError)")
                }

                kill(first.process.processIdentifier, SIGKILL)
                _ = try await first.waitForExit()
                let resumeAt = await server.now()
                await server.armClock(resumeAt, speed: 1_440)
                let next = try await MirrorBotProcess.run(
                    ["start", "--speed", "1440", "--start-time", resumeAt.formatted(.iso8601), "--duration", "1h"],
                    environment: environment)
                #expect(next.status == 0, "\(next.standardError.suffix(1_000))")
                #expect(next.standardError.contains("lease: this bot's store is held by pid "))
            }
        }
    }
}
