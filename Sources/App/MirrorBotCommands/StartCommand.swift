import ArgumentParser
import BotAssembly
import Daemon
import Foundation
import NetworkRegistry

/// `mirror_bot start`: the bot itself.
struct StartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Runs the bot: posts at the human's times, answers mentions, likes what the human would (where allowed), keeps learning.",
        discussion: """
            Needs the configured NETWORK's two accounts (each network's below). HUMAN_NETWORK=archive runs without \
            any account of the person's, from what `mirror_bot import` stored; HUMAN_NETWORK=<network> \
            (\(NetworkRegistry.choices.keysInWords)) reads the person on that network with its HUMAN_ variables while \
            the bot posts on NETWORK. The archive is in DATABASE_URL (run `mirror_bot migrate` first) and the word \
            counts in REDIS_URL; without either, it lives in the SQLite file MIRROR_BOT_DATA (default \
            mirror_bot.sqlite), created and migrated at start. The first log lines say which. Stops gracefully on \
            SIGTERM or SIGINT within 10 seconds; everything it did is stored, and starting again posts nothing twice. \
            --speed, --start-time and --duration change only the bot's clock, for rehearsals: what is sent to the API \
            is real. The scheduled posts are copies of the person's unless POST_STYLE=remix or the network's rules \
            say otherwise (below).
            """ + networksHelp("start")
    )

    @Flag(help: "Do everything except posting and liking: log what would be done.")
    var dryRun = false

    @Option(
        help:
            "Run the bot's clock this many times faster (1440: a day in a minute). At such speeds raise MISSED_SLOT_GRACE (minutes; the demo uses 60 at 1440): a real second is 24 bot minutes there."
    )
    var speed: Double = 1

    @Option(help: "Start the bot's clock here (ISO 8601, such as 2026-11-22T00:00:00+09:00).")
    var startTime: String?

    @Option(help: "Stop cleanly after this much bot time (90m, 2h, 1d, or seconds; at most ten years) and print a summary.")
    var duration: String?

    /// Checks a rehearsal's `--speed` and `--start-time` (`start`'s, `fleet`'s and `web`'s).
    static func validateRehearsal(speed: Double, startTime: String?) throws {
        guard speed > 0, speed <= 1_000_000 else { throw ValidationError("--speed must be above 0 and at most 1000000, not \(speed)") }
        if let startTime, parseTime(startTime) == nil {
            throw ValidationError("--start-time must be ISO 8601 within the years 1970 to 9999, such as 2026-11-22T00:00:00Z, not \(startTime)")
        }
    }

    func validate() throws {
        try Self.validateRehearsal(speed: speed, startTime: startTime)
        if let duration, Self.parseDuration(duration) == nil {
            throw ValidationError("--duration must look like 90m, 2h, 1d or a number of seconds (at most ten years), not \(duration)")
        }
        // The run's last bot time is stored too: it must be a date the stores read back.
        if let start = startTime.flatMap(Self.parseTime), let seconds = duration.flatMap(Self.parseDuration),
            start.addingTimeInterval(seconds) > Self.latestTime
        {
            throw ValidationError("--start-time with --duration ends past 9999-12-31T23:59:59Z; start earlier or run shorter")
        }
    }

    func run() async throws {
        let context = try CommandContext.load(requiring: [.humanCredentials, .botCredentials])
        let options = DaemonRunner.Options(
            dryRun: dryRun, speed: speed, startTime: startTime.flatMap(Self.parseTime),
            duration: duration.flatMap(Self.parseDuration))
        let summary = try await DaemonStart.run(configuration: context.configuration, options: options, logger: context.logger)
        let slots = summary.slots
        print("Ran from \(summary.from.formatted(.iso8601)) to \(summary.until.formatted(.iso8601)) (bot time).")
        if let problem = summary.storedFiguresProblem {
            print("Slots, mentions and likes: not read at the end (\(problem)); they are stored, and `mirror_bot schedule` shows the plan.")
        } else {
            let unchecked =
                summary.postedUnchecked == 0
                ? ""
                : " (\(summary.postedUnchecked) of them unchecked: their originals could not be looked up ahead, and were looked up within the hour)"
            print(
                "Slots: \(slots.values.reduce(0, +)) planned, \(slots[.posted] ?? 0) posted\(unchecked), \(slots[.skipped] ?? 0) skipped, \((slots[.planned] ?? 0) + (slots[.posting] ?? 0)) still to come."
            )
            print("Mentions: \(summary.replies) answered, \(summary.mentionsNotAnswered) not answered. Likes: \(summary.likes).")
        }
        for line in summary.usage { print("API: \(line)") }
        for day in summary.spend {
            print(
                String(
                    format:
                        "Cost: $%.3f on the UTC day %@ (this run; $%.3f with the day's other runs) of X_DAILY_BUDGET $%.2f, by mirror_bot's count.",
                    day.thisRun, day.day, day.allRuns, summary.budget ?? 0))
        }
        print(summary.liking.prefix(1).uppercased() + summary.liking.dropFirst() + ".")
        if let memory = summary.memory { print("Memory: \(memory.description).") }
    }

    /// The moment an ISO 8601 `text` names, within the years 1970 to 9999; nil otherwise.
    static func parseTime(_ text: String) -> Date? {
        guard
            let date = (try? Date(text, strategy: Date.ISO8601FormatStyle()))
                ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        else { return nil }
        // A bot time past 9999 is stored as a date no store reads back (year 99999 poisoned a SQLite file for good).
        return earliestTime...latestTime ~= date ? date : nil
    }

    /// The earliest `--start-time`: 1970-01-01T00:00:00Z.
    static let earliestTime = Date(timeIntervalSince1970: 0)
    /// The latest `--start-time`: 9999-12-31T23:59:59Z.
    static let latestTime = Date(timeIntervalSince1970: 253_402_300_799)

    /// Seconds in `90m`, `2h`, `1d`, `30s` or `45`.
    static func parseDuration(_ text: String) -> TimeInterval? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        var seconds: Double?
        if let unit = text.last, let factor = units[unit], let number = Double(text.dropLast()) {
            seconds = number * factor
        } else {
            seconds = Double(text)
        }
        // At most 10 years: a bot time past that could not be a date the stores or the clock take ("inf" trapped).
        guard let seconds, seconds.isFinite, seconds > 0, seconds <= longestDuration else { return nil }
        return seconds
    }

    /// The longest `--duration`: ten years of bot time.
    static let longestDuration: TimeInterval = 10 * 366 * 86_400
}
