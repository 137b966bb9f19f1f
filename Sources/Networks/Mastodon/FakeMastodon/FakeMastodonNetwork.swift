public import FakeKit
public import Foundation
import Logging

/// Fake Mastodon as `fake-x --network mastodon` serves it and the demo's report reads it.
public struct FakeMastodonNetwork: FakeNetwork {
    /// The entry.
    public init() {}

    /// `mastodon`.
    public var key: String { "mastodon" }
    /// `Mastodon`.
    public var name: String { "Mastodon" }
    /// What it serves.
    public var summary: String { "a Mastodon instance: REST, streaming, /admin/state and /admin/clock (with --persona only)" }
    /// `--password`.
    public var optionsHelp: String {
        "--password WORD: every account of the persona signs in with WORD on the instance's authorization page "
            + "(/oauth/authorize), as a person does in a browser (`DEMO=web script/demo`); without it none can"
    }

    /// Serves the persona as an instance; each extra bot is `bench_bot_N` with the token `bench-bot-N` and the bot flag.
    public func serve(_ request: FakeServeRequest) async throws {
        var seed = FakeMastodonSeed(persona: try request.requirePersona(key, takesOptions: true))
        var options = request.options[...]
        while let option = options.popFirst() {
            let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
            let (name, inline) = (parts.first ?? option, parts.count > 1 ? parts[1] : nil)
            guard name == "--password" else { throw FakeServeError("fake Mastodon takes --password, not \(name).") }
            guard let word = inline ?? options.popFirst(), !word.isEmpty else { throw FakeServeError("--password needs a value.") }
            for index in seed.accounts.indices { seed.accounts[index].password = word }
        }
        for index in stride(from: 1, through: request.extraBots, by: 1) {
            seed.accounts.append(
                .init(
                    id: String(9_000_000 + index), username: "bench_bot_\(index)", token: "bench-bot-\(index)",
                    scopes: ["read", "write:statuses", "write:favourites"], bot: true))
        }
        let server = FakeMastodonServer(seed: seed, logger: .quiet("fake-mastodon"))
        await server.setClock(seed.now, speed: request.speed ?? 0)
        try await server.run(host: request.host, port: request.port, onStarted: request.onListening)
    }

    /// The demo at the defaults (likes on: they are free here), with the persona's tokens for both accounts.
    public func demo(likes: Bool) -> FakeDemo {
        FakeDemo(
            // The fake instance serves both accounts; a real deploy may have them on two instances.
            environment: [
                ("HUMAN_MASTODON_URL", FakeDemo.serverURL), ("HUMAN_MASTODON_TOKEN", "1001-demo-human"), ("BOT_MASTODON_URL", FakeDemo.serverURL),
                ("BOT_MASTODON_TOKEN", "1002-demo-bot"),
            ],
            trainSchedulerNote: "the human's public posts into the archive (free on Mastodon)", likes: true)
    }

    /// A free API's run; what the module never copies.
    public func run(after: Data, before: Data?, context: FakeReportContext) throws -> FakeRun {
        try .free(
            after: after, before: before, context: context,
            neverCopied: "statuses that were followers-only or direct, or carried a content warning: never copied")
    }
}
