import ArgumentParser
import BotAssembly
import BotConfiguration
import DemoReport
import FakeX
import Foundation
import Logging

/// `demo-report`: the demo's closing report, from what fake-x recorded and the reasons the bot stored.
@main
struct DemoReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-report",
        abstract: "Prints the demo's report (posting hours, replies, likes, refusals, API calls and cost) and writes its chart as SVG.",
        discussion:
            "Figures come from fake-x's /admin/state; the bot's database (DATABASE_URL, else the SQLite file MIRROR_BOT_DATA) supplies the reasons it logged."
    )

    @Option(help: "The seed fake-x served (fake-x --write-seed).")
    var seed: String

    @Option(help: "fake-x's /admin/state saved after the run.")
    var after: String

    @Option(help: "fake-x's /admin/state saved before the run (its calls are left out).")
    var before: String?

    @Option(help: "Where to write the SVG chart.")
    var svg: String

    @Option(help: "The human's user id in the seed.")
    var humanID = "1001"

    @Option(help: "The bot's user id in the seed.")
    var botID = "1002"

    func run() async throws {
        let seedValue = try FakeXSeed.load(path: seed)
        var record = try DemoReport.FakeRecord.decode(Data(contentsOf: URL(fileURLWithPath: after)))
        if let before { record = record.since(try DemoReport.FakeRecord.decode(Data(contentsOf: URL(fileURLWithPath: before)))) }
        let environment = ProcessInfo.processInfo.environment
        let timeZone = environment["TZ"].flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
        let logger = Logger(label: "demo-report", factory: { _ in SwiftLogNoOpLogHandler() })
        // The bot's stores as the bot finds them (the composition root opens them from the same environment).
        let configuration = try Configuration(environment: environment)
        let (mentions, likes, state) = try await BotParts(configuration: configuration, logger: logger).withRunningAsIs { database in
            (try await database.mentions.handledMentions(), try await database.likes.likes(), try await database.state.values())
        }
        let report = DemoReport(
            seed: seedValue, record: record, humanID: humanID, botID: botID, timeZone: timeZone,
            mentions: mentions, likes: likes, botState: state, postLinks: configuration.postLinks)
        print(report.text(), terminator: "")
        try report.svg().write(toFile: svg, atomically: true, encoding: .utf8)
        print("Chart: \(svg)")
    }
}
