public import FakeKit
public import Foundation
import Logging

/// Fake Bluesky as `fake-x --network bluesky` serves it and the demo's report reads it.
public struct FakeBlueskyNetwork: FakeNetwork {
    /// The entry.
    public init() {}

    /// `bluesky`.
    public var key: String { "bluesky" }
    /// `Bluesky`.
    public var name: String { "Bluesky" }
    /// What it serves.
    public var summary: String {
        "the entryway, PDS and AppView in one: XRPC, /admin/state and /admin/clock; the bot logs in as hanako-mirror.bsky.example with the app password demo-bot-app-password (with --persona only)"
    }
    /// It takes no option of its own.
    public var optionsHelp: String { "" }

    /// Serves the persona; each extra bot is `bench-bot-N.bsky.example` with the app password `bench-bot-N` and the
    /// `bot` label.
    public func serve(_ request: FakeServeRequest) async throws {
        var seed = await FakeBlueskySeed(persona: try request.requirePersona(key))
        for index in stride(from: 1, through: request.extraBots, by: 1) {
            seed.accounts.append(
                .init(
                    did: "did:plc:benchbot\(index)", handle: "bench-bot-\(index).bsky.example", appPassword: "bench-bot-\(index)",
                    description: "A mirror bot of a benchmark", labels: ["bot"]))
        }
        let server = FakeBlueskyServer(seed: seed, logger: .quiet("fake-bluesky"))
        await server.setClock(seed.now, speed: request.speed ?? 0)
        try await server.run(host: request.host, port: request.port, onStarted: request.onListening)
    }

    /// A free API's run; what the module never copies.
    public func run(after: Data, before: Data?, context: FakeReportContext) throws -> FakeRun {
        try .free(
            after: after, before: before, context: context,
            neverCopied: "reposts, quotes and posts with a content label (!warn, porn, …): never copied")
    }
}
