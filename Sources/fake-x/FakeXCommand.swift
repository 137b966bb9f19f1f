import ArgumentParser
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
            /2/users/:id/timelines/reverse_chronological, /2/users/:id/mentions; POST /2/tweets, /2/users/:id/likes. \
            Admin: GET /admin/state; POST /admin/clock, /admin/tweets, /admin/users, /admin/likes, /admin/faults, /admin/rate-limits.
            """
    )

    @Option(help: "The seed file (JSON: users, accounts, tweets, likes, follows, now, rate_limits).")
    var seed: String

    @Option(help: "Address to listen on; loopback only by default.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port = 0

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let seedValue = try FakeXSeed.load(path: seed)
        var logger = Logger(label: "fake-x")
        logger.logLevel = .warning
        let server = FakeXServer(seed: seedValue, logger: logger)
        let host = host
        try await server.run(host: host, port: port) { port in
            // Written unbuffered: scripts wait for this line to know the server is up.
            FileHandle.standardOutput.write(Data("fake-x listening on http://\(host):\(port)\n".utf8))
        }
    }
}
