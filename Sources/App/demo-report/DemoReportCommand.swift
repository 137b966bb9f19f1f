import ArgumentParser
import BotAssembly
import BotConfiguration
import DemoReport
import FakeKit
import FakeNetworkRegistry
import Foundation
import Logging

/// `demo-report`: the demo's closing report, from what the network's fake recorded and the reasons the bot stored.
@main
struct DemoReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-report",
        abstract: "Prints the demo's report (posting hours, replies, likes, refusals, API calls and cost) and writes its chart as SVG.",
        discussion:
            "Figures come from the fake's /admin/state; the bot's database (DATABASE_URL, else the SQLite file MIRROR_BOT_DATA) supplies the reasons it logged."
    )

    @Option(help: "The persona the fake served (fake-x --write-seed).")
    var seed: String

    @Option(help: "The fake's /admin/state saved after the run.")
    var after: String

    @Option(help: "The fake's /admin/state saved before the run (its calls are left out).")
    var before: String?

    @Option(help: "Where to write the SVG chart.")
    var svg: String

    @Option(help: "The fake's network (its key); NETWORK when not given, else the default network.")
    var network: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let key = network ?? environment["NETWORK"] ?? FakeNetworkRegistry.fakes[0].key
        guard let fake = FakeNetworkRegistry.fake(for: key) else {
            throw ValidationError("--network must be one of \(FakeNetworkRegistry.fakes.map(\.key).joined(separator: ", ")), not \(key)")
        }
        let persona = try FakePersona.load(path: seed)
        let timeZone = environment["TZ"].flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
        let logger = Logger(label: "demo-report", factory: { _ in SwiftLogNoOpLogHandler() })
        // The bot's stores as the bot finds them (the composition root opens them from the same environment).
        let configuration = try Configuration(environment: environment)
        let (mentions, likes, state) = try await BotParts(configuration: configuration, logger: logger).withRunningAsIs { database in
            (try await database.mentions.handledMentions(), try await database.likes.likes(), try await database.state.values())
        }
        let context = FakeReportContext(
            botState: state, postLinks: configuration.postLinks,
            humanPostsWithLinks: DemoReport.humanPostsWithLinks(in: persona, humanID: persona.human.id), human: "@" + persona.human.username)
        let run = try fake.run(
            after: Data(contentsOf: URL(fileURLWithPath: after)), before: try before.map { try Data(contentsOf: URL(fileURLWithPath: $0)) },
            context: context)
        let report = DemoReport(
            persona: persona, run: run, networkName: fake.name, humanID: persona.human.id, botID: persona.bot.id, timeZone: timeZone,
            mentions: mentions, likes: likes)
        print(report.text(), terminator: "")
        try report.svg().write(toFile: svg, atomically: true, encoding: .utf8)
        print("Chart: \(svg)")
    }
}
