import ArgumentParser
import BotAssembly
import BotClock
import Foundation
import Schedule
import Stores

/// `mirror_bot schedule`: draws a day's posting plan from the archive and shows it beside the human's habits.
struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Draws a day's posting plan from the archive, in the human's time zone (TZ).",
        discussion: """
            The number of posts is a day's count of the human's (quiet days included), at most MAX_POSTS_PER_DAY; \
            the minutes follow the human's posting minutes, drawn without replacement. Without --json, a text \
            histogram of the human's posting hours is shown beside the plan.
            """
    )

    @Option(help: "The day to plan, YYYY-MM-DD; today in TZ by default.")
    var date: String?

    @Option(help: "Seed for the random draws, to reproduce a plan.")
    var seed: UInt64?

    @Flag(help: "Print {\"date\",\"time_zone\",\"count\",\"minutes\"} instead of the chart.")
    var json = false

    func validate() throws {
        if let date, LocalTime.parts(ofDay: date) == nil {
            throw ValidationError("--date must look like 2026-11-22 (YYYY-MM-DD, a day the calendar has), not \(date)")
        }
    }

    func run() async throws {
        let context = try CommandContext.load()
        let configuration = context.configuration
        let day = date ?? SchedulePlanner.day(of: Date(), in: configuration.behaviour.timeZone)
        let seed = seed
        let (plan, histogram) = try await BotParts(configuration: configuration, logger: context.logger).withRunning { parts in
            let archive = parts.archive
            var generator = seed.map(SplitMix64.init(seed:)) ?? SplitMix64()
            let plan = try await SchedulePlanner(archive: archive, maxPostsPerDay: configuration.behaviour.maxPostsPerDay)
                .plan(for: day, using: &generator)
            return (plan, try await archive.minuteHistogram(includingReplies: false))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(plan), as: UTF8.self))
            return
        }
        print(Self.chart(plan: plan, histogram: histogram))
    }

    /// The plan as text: a header line, then one row per hour with the human's share of posts and the plan's posts.
    static func chart(plan: DayPlan, histogram: [Int]) -> String {
        let total = histogram.reduce(0, +)
        guard total > 0 else {
            return "The archive has no posts yet: nothing to plan. Run `mirror_bot train scheduler` or `mirror_bot import`."
        }
        let perHour = (0..<24).map { hour in histogram[(hour * 60)..<(hour * 60 + 60)].reduce(0, +) }
        let largest = max(1, perHour.max() ?? 1)
        var lines = [
            "Plan for \(plan.date) (\(plan.timeZone)): \(plan.count) post\(plan.count == 1 ? "" : "s")"
                + (plan.minutes.isEmpty ? "" : " at " + plan.minutes.map(LocalTime.clockTime).joined(separator: ", ")),
            "",
            "hour  human's posts (\(total) in the archive)                 plan",
        ]
        for hour in 0..<24 {
            let bar = String(repeating: "█", count: Int((Double(perHour[hour]) / Double(largest) * 40).rounded()))
            let share = String(format: "%5.1f%%", Double(perHour[hour]) / Double(total) * 100)
            let planned = plan.minutes.filter { $0 / 60 == hour }.map(LocalTime.clockTime)
            let barColumn = bar.padding(toLength: 40, withPad: " ", startingAt: 0)
            lines.append(String(format: "%02d    ", hour) + share + " " + barColumn + "  " + planned.joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }
}
