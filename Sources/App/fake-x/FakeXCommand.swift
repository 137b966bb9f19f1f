import ArgumentParser
import FakeBluesky
import FakeMastodon
import FakeMisskey
import FakeX
import Foundation
import Logging

/// `fake-x`: a fake X API v2 on loopback for tests and the demo.
@main
struct FakeXCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-x",
        abstract: "Serves a fake X API v2 from memory, seeded from a JSON file, with /admin endpoints for tests and demos.",
        discussion: """
            Endpoints: GET /2/users/me, /2/users/:id/tweets, /2/users/:id/liked_tweets, \
            /2/users/:id/timelines/reverse_chronological, /2/users/:id/mentions; POST /2/tweets, /2/users/:id/likes; \
            DELETE /2/users/:id/likes/:tweet_id. Bills as X does (per resource, once per UTC day and app) and, by default, \
            refuses likes as X refuses self-serve apps today. Admin: GET /admin/state (with the billing record); POST \
            /admin/clock, /admin/tweets, /admin/users, /admin/likes, /admin/faults, /admin/rate-limits, /admin/access, \
            /admin/credits, /admin/revoke.
            """
    )

    @Option(
        help:
            "The network to fake: x (X API v2), mastodon (a Mastodon instance: REST, streaming, /admin/state and /admin/clock) bluesky (entryway, PDS and AppView in one: XRPC, /admin/state and /admin/clock; the bot logs in as hanako-mirror.bsky.example with the app password demo-bot-app-password) or misskey (a Misskey instance: its API, the main stream over a WebSocket, MiAuth, /admin/state and /admin/clock); mastodon, bluesky and misskey with --persona only."
    )
    var network = "x"

    @Option(help: "The seed file (JSON: users, accounts, tweets, likes, follows, now, speed, rate_limits, auto_repliers).")
    var seed: String?

    @Flag(help: "Serve a generated persona (months of a Japanese-tweeting human, friends, a timeline, a day of mentions) instead of a seed file.")
    var persona = false

    @Option(help: "With --persona: where the simulated day starts (ISO 8601); the server's clock starts there.")
    var dayStart: String?

    @Option(help: "With --persona: accounts the human and the bot follow.")
    var followed = 20

    @Option(help: "With --persona: posts per followed account per day.")
    var postsPerAccount = 6

    @Option(help: "With --persona: the human's posts per day on average.")
    var postsPerDay = 34

    @Option(help: "The apps' access level: pay-per-use (today's self-serve access: likes answered 403 client-forbidden) or enterprise (likes work).")
    var access = "pay-per-use"

    @Option(help: "Each app's prepaid credits in US dollars; spent credits answer 402. Unlimited when not given.")
    var credits: Double?

    @Option(help: "With --persona: its random seed (the same seed, the same persona).")
    var personaSeed: UInt64 = 2026

    @Option(help: "Server seconds per real second (a bot run with --speed N wants the same N); 0 stops the clock.")
    var speed: Double?

    @Option(help: "Write the seed served (for example the generated persona) to this file, then serve it.")
    var writeSeed: String?

    @Option(
        help:
            "With --network mastodon, misskey or bluesky: this many more bot accounts, for a fleet's benchmark (script/bench-fleet): bench-bot-1 … with the token (Bluesky: the handle bench-bot-N.bsky.example and the app password) bench-bot-N, each flagged or labelled a bot."
    )
    var extraBots = 0

    @Option(help: "Address to listen on; loopback only by default.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port = 0

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var seedValue: FakeXSeed
        var generated: FakeXPersona?
        switch (seed, persona) {
        case (let path?, false):
            seedValue = try FakeXSeed.load(path: path)
        case (nil, true):
            var start = Date()
            if let text = dayStart {
                guard let date = ISO8601DateFormatter().date(from: text) else {
                    throw ValidationError("--day-start must look like 2026-11-22T00:00:00+09:00")
                }
                start = date
            }
            generated = FakeXPersona(personaOptions(start))
            seedValue = generated!.seed
        default:
            throw ValidationError("Give either --seed FILE or --persona.")
        }
        if let speed { seedValue.speed = speed }
        switch network {
        case "x": break
        case "mastodon":
            guard let generated else { throw ValidationError("--network mastodon serves the generated persona: give --persona.") }
            if let writeSeed { try seedValue.write(to: writeSeed) }
            var mastodon = FakeMastodonSeed(persona: generated)
            for index in stride(from: 1, through: extraBots, by: 1) {
                mastodon.accounts.append(
                    .init(
                        id: String(9_000_000 + index), username: "bench_bot_\(index)", token: "bench-bot-\(index)",
                        scopes: ["read", "write:statuses", "write:favourites"], bot: true))
            }
            let server = FakeMastodonServer(seed: mastodon, logger: Self.quietLogger("fake-mastodon"))
            await server.setClock(mastodon.now, speed: speed ?? 0)
            return try await serve(server.run)
        case "bluesky":
            guard let generated else { throw ValidationError("--network bluesky serves the generated persona: give --persona.") }
            if let writeSeed { try seedValue.write(to: writeSeed) }
            var bluesky = await FakeBlueskySeed(persona: generated)
            for index in stride(from: 1, through: extraBots, by: 1) {
                bluesky.accounts.append(
                    .init(
                        did: "did:plc:benchbot\(index)", handle: "bench-bot-\(index).bsky.example", appPassword: "bench-bot-\(index)",
                        description: "A mirror bot of a benchmark", labels: ["bot"]))
            }
            let server = FakeBlueskyServer(seed: bluesky, logger: Self.quietLogger("fake-bluesky"))
            await server.setClock(bluesky.now, speed: speed ?? 0)
            return try await serve(server.run)
        case "misskey":
            guard let generated else { throw ValidationError("--network misskey serves the generated persona: give --persona.") }
            if let writeSeed { try seedValue.write(to: writeSeed) }
            var misskey = FakeMisskeySeed(persona: generated)
            for index in stride(from: 1, through: extraBots, by: 1) {
                misskey.accounts.append(
                    .init(
                        id: "9xubench\(index)", username: "bench_bot_\(index)", token: "bench-bot-\(index)",
                        permissions: ["read:account", "write:notes", "write:reactions"], isBot: true,
                        description: "A mirror bot of a benchmark; operator: @admin"))
            }
            let server = FakeMisskeyServer(seed: misskey, logger: Self.quietLogger("fake-misskey"))
            await server.setClock(misskey.now, speed: speed ?? 0)
            return try await serve(server.run)
        default: throw ValidationError("--network must be x, mastodon, bluesky or misskey, not \(network)")
        }
        guard let accessLevel = FakeXSeed.Access(rawValue: access) else {
            throw ValidationError("--access must be pay-per-use or enterprise, not \(access)")
        }
        seedValue.access = accessLevel
        if let credits { seedValue.credits = credits }
        if let writeSeed { try seedValue.write(to: writeSeed) }
        let server = FakeXServer(seed: seedValue, logger: Self.quietLogger("fake-x"))
        try await serve(server.run)
    }

    /// The persona's options from the command line, its day starting at `start`.
    func personaOptions(_ start: Date) -> FakeXPersona.Options {
        .init(randomSeed: personaSeed, dayStart: start, postsPerDay: postsPerDay, followedAccounts: followed, postsPerAccountPerDay: postsPerAccount)
    }

    /// A logger that says only warnings and worse.
    static func quietLogger(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        return logger
    }

    /// Runs `run` on the host and port, saying where once it listens.
    func serve(_ run: (String, Int, @escaping @Sendable (Int) async -> Void) async throws -> Void) async throws {
        let host = host
        try await run(host, port) { port in
            // Written unbuffered: scripts wait for this line to know the server is up.
            FileHandle.standardOutput.write(Data("fake-x listening on http://\(host):\(port)\n".utf8))
        }
    }
}
