import ArgumentParser
import BotAssembly
import BotClock
import BotConfiguration
import Fleet
import Foundation
import FrontDoor
import Logging
import NetworkRegistry
import ServiceLifecycle
import SocialNetwork

/// `mirror_bot web`: the front door, where a person signs in as themselves from a browser.
struct WebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Serves the front door: a person signs in as themselves on their network, from a phone's or a desktop's browser.",
        discussion: """
            The front door (docs/front-door.md): a person signs in as themselves on \
            \(NetworkRegistry.webSignIns.map(\.definition.name).joined(separator: ", ")), then with their bot's account, \
            and makes their mirror: a bot of the fleet on DATABASE_URL, its settings sealed with FLEET_KEY (both set as \
            for `mirror_bot fleet`; without them the door only signs people in), made paused. On their page they \
            upload their archive (up to 1 GiB), see what it would post, start, pause, change their choices, download \
            everything it keeps of them, and delete it. DOOR_SIGN_UP says who may make one (open, servers: those of \
            DOOR_SERVERS, invitations, or closed), DOOR_MAX_MIRRORS how many (100). With DOOR_OPERATOR_PASSWORD, the \
            operator's page is at /operator: every bot with its state and last failure (pause, resume), the fleet's \
            processes, the sign-ups against the quota, invitations (made and withdrawn there), and the audit log of \
            what the operator did, here and with `mirror_bot bots`. Listens on PORT (default 8080) at BIND (127.0.0.1; 0.0.0.0 on a dyno); \
            PUBLIC_URL is the address people reach it at, where the networks send browsers back (https:// on the \
            internet; http:// only for this machine). Sessions are kept in this process: a restart signs people out \
            (their mirrors go on). Stops gracefully on SIGTERM and SIGINT. A network whose client is the door itself \
            is served its documents here (its client metadata and keys, derived from FLEET_KEY); one that needs the \
            operator's app is offered only with it (docs/front-door.md).
            """
    )

    @Option(
        help:
            "Stamp the networks' sign-in requests with a clock this many times faster, for rehearsals against fakes whose clock runs so (as `fleet --speed`); the door's own sessions keep real time."
    )
    var speed: Double = 1

    @Option(help: "Start that clock at this time (ISO 8601), for rehearsals (as `fleet --start-time`).")
    var startTime: String?

    @Option(
        help:
            "How many seconds an archive's upload waits for its import before its answer shows the import's progress instead (a platform's router ends a longer answer: Heroku's at 30 s)."
    )
    var importWait: Double = 20

    func validate() throws {
        try StartCommand.validateRehearsal(speed: speed, startTime: startTime)
        guard importWait >= 0, importWait <= 25 else {
            throw ValidationError("--import-wait is 0 to 25 seconds (Heroku's router ends an answer that takes 30 s), not \(importWait).")
        }
    }

    func run() async throws {
        let environment = try EnvironmentFile.processEnvironment()
        var reader = EnvironmentReader(environment: environment)
        let listening = StatusPageSection(reading: &reader)
        let door = FrontDoorSection(reading: &reader)
        if !reader.problems.isEmpty { throw ValidationError(ConfigurationError(problems: reader.problems).description) }
        let port = listening.port ?? 8_080
        let publicURL = door.publicURL ?? URL(string: "http://localhost:\(port)")!
        let logger = Logger(label: "mirror_bot.web")
        // The door's own secret, for the networks whose client it is (Bluesky's keys): from FLEET_KEY, so the same in
        // every process and after restarts; without a fleet, one for this run (sign-ins then end with it).
        let secret =
            (try? FleetKey(text: environment["FLEET_KEY"]))?.derivedSecret(for: "front door client")
            ?? Data((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        let clock: any BotClock =
            speed == 1 && startTime == nil
            ? SystemBotClock() : SimulatedBotClock(start: startTime.flatMap(StartCommand.parseTime) ?? Date(), speed: speed)
        let webDoor = WebDoor(publicURL: publicURL, secret: secret, environment: environment, clock: clock)
        var settings = FrontDoorServer.Settings(
            host: listening.bindAddress, port: port, publicURL: publicURL,
            networks: NetworkRegistry.webSignIns.compactMap { entry in
                entry.flow.at(webDoor).map { (entry.definition.key, entry.definition.name, $0) }
            })
        switch door.signUp {
        case .open: settings.signUp = .open
        case .closed: settings.signUp = .closed
        case .invitations: settings.signUp = .invitations
        case .servers:
            settings.signUp = .servers(
                Set(door.servers.compactMap { URL(string: $0.contains("://") ? $0 : "https://" + $0).map(FleetServers.name(of:)) }))
        }
        settings.behindRouter = listening.behindRouter
        settings.importAnswerWithin = .milliseconds(Int(importWait * 1000))
        settings.visibilityNetworks = Set(
            NetworkRegistry.webSignIns.map(\.definition).filter { $0.variableNames.contains("POST_VISIBILITY") }.map(\.key))
        settings.archiveFiles = Dictionary(NetworkRegistry.exportFormats.map { ($0.network, $0.fileNames) }) { first, _ in first }
        /// The door and its service group, its mirrors set.
        @Sendable func serve(_ settings: FrontDoorServer.Settings) async throws {
            let server = FrontDoorServer(settings: settings, logger: logger) { port in
                logger.info(
                    "web: the front door is open on port \(port), for people at \(publicURL.absoluteString)\(settings.mirrors == nil ? " (signing in only: no DATABASE_URL and FLEET_KEY, so no mirror is made)" : "")"
                )
            }
            let group = ServiceGroup(
                configuration: .init(services: [.init(service: server)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        }
        guard environment["DATABASE_URL"].map({ !$0.isEmpty }) == true || environment["FLEET_KEY"].map({ !$0.isEmpty }) == true else {
            try await serve(settings)
            return
        }
        // With the fleet's database and key, people's mirrors are its bots; one pool serves every page.
        let (bots, key) = try BotsCommand.open()
        try await bots.withOnePool { bots in
            var mirrors = FleetDoorMirrors(bots: bots, key: key, logger: logger)
            mirrors.maxMirrors = door.maxMirrors
            settings.mirrors = mirrors
            settings.operations = FleetDoorOperations(bots: bots, maxMirrors: door.maxMirrors, logger: logger)
            settings.operatorPassword = door.operatorPassword
            try await serve(settings)
        }
    }
}
