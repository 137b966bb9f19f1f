import ArgumentParser
import FakeKit
import FakeNetworkRegistry
import Foundation
import Logging

/// `fake-x`: a network's fake server on loopback for tests, the demo and benchmarks; which networks, and what each
/// serves, come from the fakes' registry.
@main
struct FakeXCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-x",
        abstract: "Serves a network's fake API from memory (the generated persona or a seed file), with /admin endpoints for tests and demos.",
        discussion: FakeNetworkRegistry.fakes.map { fake in
            "--network \(fake.key): \(fake.summary)." + (fake.optionsHelp.isEmpty ? "" : " Its options: \(fake.optionsHelp).")
        }.joined(separator: "\n\n")
    )

    @Option(help: "The network to fake: \(FakeNetworkRegistry.fakes.map(\.key).joined(separator: ", ")) (see below).")
    var network = FakeNetworkRegistry.fakes[0].key

    @Option(help: "The fake's own seed file, for a fake that reads one (see below).")
    var seed: String?

    @Flag(help: "Serve a generated persona (months of a Japanese-writing person, friends, a timeline, a day of mentions) instead of a seed file.")
    var persona = false

    @Option(help: "With --persona: where the simulated day starts (ISO 8601); the server's clock starts there.")
    var dayStart: String?

    @Option(help: "With --persona: accounts the human and the bot follow.")
    var followed = 20

    @Option(help: "With --persona: posts per followed account per day.")
    var postsPerAccount = 6

    @Option(help: "With --persona: the human's posts per day on average.")
    var postsPerDay = 34

    @Option(help: "With --persona: its random seed (the same seed, the same persona).")
    var personaSeed: UInt64 = 2026

    @Option(help: "Server seconds per real second (a bot run with --speed N wants the same N); 0 stops the clock.")
    var speed: Double?

    @Option(
        help: "With --persona: write the persona served (JSON: people, posts, likes, follows, in no network's shape) to this file, then serve it.")
    var writeSeed: String?

    @Option(
        help:
            "This many more bot accounts, for a fleet's benchmark (script/bench-fleet): bench-bot-1 … with the token (or app password) bench-bot-N, each flagged or labelled a bot, on a fake that serves them."
    )
    var extraBots = 0

    @Option(help: "Address to listen on; loopback only by default.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port = 0

    @Flag(help: "Print how script/demo runs the persona's day on this fake (shell lines to eval), and serve nothing.")
    var demoScript = false

    @Flag(help: "With --demo-script: the demo with LIKES=on (DEMO_LIKES=on).")
    var demoLikes = false

    @Argument(parsing: .allUnrecognized, help: "The options only the chosen fake takes (see below).")
    var networkOptions: [String] = []

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        guard let fake = FakeNetworkRegistry.fake(for: network) else {
            throw ValidationError("--network must be one of \(FakeNetworkRegistry.fakes.map(\.key).joined(separator: ", ")), not \(network)")
        }
        if demoScript { return print(fake.demo(likes: demoLikes).shell(networkName: fake.name), terminator: "") }
        var generated: FakePersona?
        switch (seed, persona) {
        case (_?, false): break
        case (nil, true):
            var start = Date()
            if let text = dayStart {
                guard let date = ISO8601DateFormatter().date(from: text) else {
                    throw ValidationError("--day-start must look like 2026-11-22T00:00:00+09:00")
                }
                start = date
            }
            generated = FakePersona(
                .init(
                    randomSeed: personaSeed, dayStart: start, postsPerDay: postsPerDay, followedAccounts: followed,
                    postsPerAccountPerDay: postsPerAccount))
        default:
            throw ValidationError("Give either --seed FILE or --persona.")
        }
        if let writeSeed {
            guard let generated else { throw ValidationError("--write-seed writes the generated persona: give --persona.") }
            try generated.write(to: writeSeed)
        }
        let host = host
        let request = FakeServeRequest(
            persona: generated, seedPath: seed, speed: speed, extraBots: extraBots, options: networkOptions, host: host, port: port
        ) { port in
            // Written unbuffered: scripts wait for this line to know the server is up.
            FileHandle.standardOutput.write(Data("fake-x listening on http://\(host):\(port)\n".utf8))
        }
        do {
            try await fake.serve(request)
        } catch let error as FakeServeError {
            throw ValidationError(error.description)
        }
    }
}
