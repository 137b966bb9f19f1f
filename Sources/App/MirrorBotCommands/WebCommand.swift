import ArgumentParser
import BotConfiguration
import Foundation
import FrontDoor
import Logging
import NetworkRegistry
import ServiceLifecycle

/// `mirror_bot web`: the front door, where a person signs in as themselves from a browser.
struct WebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Serves the front door: a person signs in as themselves on their network, from a phone's or a desktop's browser.",
        discussion: """
            The first part of the front door (docs/front-door.md): the sign-in, on \(NetworkRegistry.webSignIns.map(\.definition.name).joined(separator: ", ")), \
            and the person's page. Listens on PORT (default 8080) at BIND (127.0.0.1; 0.0.0.0 on a dyno); PUBLIC_URL \
            is the address people reach it at, where the networks send browsers back (https:// on the internet; \
            http:// only for this machine). Sessions are kept in this process: a restart signs people out. Stops \
            gracefully on SIGTERM and SIGINT.
            """
    )

    func run() async throws {
        let environment = try EnvironmentFile.processEnvironment()
        var reader = EnvironmentReader(environment: environment)
        let listening = StatusPageSection(reading: &reader)
        let door = FrontDoorSection(reading: &reader)
        if !reader.problems.isEmpty { throw ValidationError(ConfigurationError(problems: reader.problems).description) }
        let port = listening.port ?? 8_080
        let publicURL = door.publicURL ?? URL(string: "http://localhost:\(port)")!
        let logger = Logger(label: "mirror_bot.web")
        let settings = FrontDoorServer.Settings(
            host: listening.bindAddress, port: port, publicURL: publicURL,
            networks: NetworkRegistry.webSignIns.map { ($0.definition.key, $0.definition.name, $0.flow) })
        let server = FrontDoorServer(settings: settings, logger: logger) { port in
            logger.info("web: the front door is open on port \(port), for people at \(publicURL.absoluteString)")
        }
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: server)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
