public import FakeKit
public import Foundation
import Logging

/// Fake Misskey as `fake-x --network misskey` serves it and the demo's report reads it.
public struct FakeMisskeyNetwork: FakeNetwork {
    /// The entry.
    public init() {}

    /// `misskey`.
    public var key: String { "misskey" }
    /// `Misskey`.
    public var name: String { "Misskey" }
    /// What it serves.
    public var summary: String {
        "a Misskey instance: its API, the main stream over a WebSocket, MiAuth, /admin/state and /admin/clock (with --persona only)"
    }
    /// It takes no option of its own.
    public var optionsHelp: String { "" }

    /// Serves the persona as an instance; each extra bot is `bench_bot_N` with the token `bench-bot-N` and the bot flag.
    public func serve(_ request: FakeServeRequest) async throws {
        var seed = FakeMisskeySeed(persona: try request.requirePersona(key))
        for index in stride(from: 1, through: request.extraBots, by: 1) {
            seed.accounts.append(
                .init(
                    id: "9xubench\(index)", username: "bench_bot_\(index)", token: "bench-bot-\(index)",
                    permissions: ["read:account", "write:notes", "write:reactions"], isBot: true,
                    description: "A mirror bot of a benchmark; operator: @admin"))
        }
        let server = FakeMisskeyServer(seed: seed, logger: .quiet("fake-misskey"))
        await server.setClock(seed.now, speed: request.speed ?? 0)
        try await server.run(host: request.host, port: request.port, onStarted: request.onListening)
    }

    /// The demo at the defaults (likes on: they are free here), with the persona's tokens for both accounts.
    public func demo(likes: Bool) -> FakeDemo {
        FakeDemo(
            // The fake instance serves both accounts; a real deploy may have them on two instances.
            environment: [
                ("HUMAN_MISSKEY_URL", FakeDemo.serverURL), ("HUMAN_MISSKEY_TOKEN", "1001-demo-human"), ("BOT_MISSKEY_URL", FakeDemo.serverURL),
                ("BOT_MISSKEY_TOKEN", "1002-demo-bot"),
            ],
            trainSchedulerNote: "the human's public posts into the archive (free on Misskey)", likes: true)
    }

    /// A free API's run; what the module never copies.
    public func run(after: Data, before: Data?, context: FakeReportContext) throws -> FakeRun {
        try .free(
            after: after, before: before, context: context,
            neverCopied: "renotes, quotes, and notes that were followers-only or specified, or carried a warning (cw): never copied")
    }
}
