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

    /// The demo at the defaults (no likes unless `likes`: Bluesky asks bots not to like unasked), with app passwords.
    public func demo(likes: Bool) -> FakeDemo {
        FakeDemo(
            // The fake plays the entryway, the PDS and the AppView; the person signs in with their own app password
            // (nobody is mirrored who has not signed in as themselves). The bot's session is kept in the store sealed
            // with MIRROR_BOT_KEY (a real deploy sets a random one: openssl rand -base64 32).
            environment: [
                ("BLUESKY_SERVICE_URL", FakeDemo.serverURL), ("HUMAN_BLUESKY_HANDLE", "hanako.bsky.example"),
                ("HUMAN_BLUESKY_APP_PASSWORD", FakeBlueskySeed.personaPersonPassword), ("BOT_BLUESKY_HANDLE", "hanako-mirror.bsky.example"),
                ("BOT_BLUESKY_APP_PASSWORD", "demo-bot-app-password"), ("MIRROR_BOT_KEY", "demo-key-not-a-secret-0123456789"),
            ],
            trainSchedulerNote: "the human's public posts into the archive (free on Bluesky)", likes: likes)
    }

    /// A free API's run; what the module never copies.
    public func run(after: Data, before: Data?, context: FakeReportContext) throws -> FakeRun {
        try .free(
            after: after, before: before, context: context,
            neverCopied: "reposts, quotes and posts with a content label (!warn, porn, …): never copied")
    }
}
