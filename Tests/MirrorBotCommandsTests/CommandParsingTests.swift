import ArgumentParser
import Foundation
import MastodonNetwork
import MisskeyNetwork
import Testing
import XNetwork

@testable import MirrorBotCommands

@Suite("Parsing the mirror_bot command line")
struct CommandParsingTests {
    @Test("migrate takes no arguments")
    func migrate() throws {
        #expect(try MirrorBot.parseAsRoot(["migrate"]) is MigrateCommand)
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["migrate", "extra"]) }
    }

    @Test("auth takes x and misskey, each with --account and --write-env; misskey an --instance; an unknown account is refused")
    func auth() throws {
        let misskey = try #require(
            try MirrorBot.parseAsRoot(["auth", "misskey", "--account", "human", "--instance", "https://misskey.io", "--write-env"]) as? MisskeyAuth)
        #expect(misskey.signIn.account == "human" && misskey.instance == "https://misskey.io" && misskey.signIn.writeEnv && !misskey.noLikes)
        #expect(try #require(try MirrorBot.parseAsRoot(["auth", "x", "--pin", "1234"]) as? XAuth).pin == "1234")
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["auth", "misskey", "--account", "someone"]) }
    }

    @Test("auth mastodon takes --account, --instance, --write-env, --code and --no-likes; the bot by default; an unknown account is refused")
    func authMastodon() throws {
        let human = try #require(
            try MirrorBot.parseAsRoot([
                "auth", "mastodon", "--account", "human", "--instance", "https://mastodon.social", "--write-env",
                "--code", "abc-123",
            ]) as? MastodonAuth)
        #expect(
            human.signIn.account == "human" && human.instance == "https://mastodon.social" && human.signIn.writeEnv && human.code == "abc-123"
                && !human.noLikes)
        let bot = try #require(try MirrorBot.parseAsRoot(["auth", "mastodon", "--no-likes"]) as? MastodonAuth)
        #expect(bot.signIn.account == "bot" && bot.instance == nil && !bot.signIn.writeEnv && bot.code == nil && bot.noLikes)
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["auth", "mastodon", "--account", "someone"]) }
    }

    @Test("doctor takes no arguments")
    func doctor() throws {
        #expect(try MirrorBot.parseAsRoot(["doctor"]) is DoctorCommand)
    }

    @Test("tokenize takes any number of texts")
    func tokenize() throws {
        let command = try #require(try MirrorBot.parseAsRoot(["tokenize", "猫が好き", "寿司"]) as? TokenizeCommand)
        #expect(command.texts == ["猫が好き", "寿司"])
        let none = try #require(try MirrorBot.parseAsRoot(["tokenize"]) as? TokenizeCommand)
        #expect(none.texts.isEmpty)
    }

    @Test("train has scheduler and classifier, each with --force, and clear")
    func train() throws {
        let scheduler = try #require(try MirrorBot.parseAsRoot(["train", "scheduler"]) as? TrainSchedulerCommand)
        #expect(!scheduler.force)
        #expect(try #require(try MirrorBot.parseAsRoot(["train", "scheduler", "--force"]) as? TrainSchedulerCommand).force)
        #expect(try #require(try MirrorBot.parseAsRoot(["train", "classifier", "--force"]) as? TrainClassifierCommand).force)
        #expect(try MirrorBot.parseAsRoot(["train", "clear"]) is TrainClearCommand)
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["train", "clear", "--force"]) }
    }

    @Test("schedule takes --date, --seed and --json, and checks the date's form")
    func schedule() throws {
        let command = try #require(try MirrorBot.parseAsRoot(["schedule", "--date", "2026-11-22", "--seed", "42", "--json"]) as? ScheduleCommand)
        #expect(command.date == "2026-11-22")
        #expect(command.seed == 42)
        #expect(command.json)
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["schedule", "--date", "22/11/2026"]) }
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["schedule", "--seed", "-1"]) }
    }

    @Test("classify takes --json and --explain")
    func classify() throws {
        let command = try #require(try MirrorBot.parseAsRoot(["classify", "--json", "--explain"]) as? ClassifyCommand)
        #expect(command.json && command.explain)
        #expect(try #require(try MirrorBot.parseAsRoot(["classify"]) as? ClassifyCommand).json == false)
    }

    @Test("start takes --dry-run, --speed, --start-time and --duration, and checks them")
    func start() throws {
        let command = try #require(
            try MirrorBot.parseAsRoot([
                "start", "--dry-run", "--speed", "1440", "--start-time", "2026-11-22T00:00:00+09:00",
                "--duration", "1d",
            ]) as? StartCommand)
        #expect(command.dryRun)
        #expect(command.speed == 1440.0)
        let expectedStart = Date(timeIntervalSince1970: 1_795_273_200)
        #expect(StartCommand.parseTime(command.startTime ?? "") == expectedStart)
        #expect(StartCommand.parseDuration("90m") == TimeInterval(5_400))
        #expect(StartCommand.parseDuration("1d") == TimeInterval(86_400))
        #expect(StartCommand.parseDuration("45") == TimeInterval(45))
        #expect(StartCommand.parseDuration("soon") == nil)
        // What would reach a date past any the clock or the stores take is refused where it is parsed ("inf" trapped).
        for unbounded in ["inf", "infd", "nan", "-1h", "0", "1e300", "3661d", "1e9h"] {
            #expect(StartCommand.parseDuration(unbounded) == nil, "\(unbounded)")
        }
        #expect(StartCommand.parseDuration("3660d") == TimeInterval(3_660 * 86_400))
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["start", "--duration", "inf"]) }
        let plain = try #require(try MirrorBot.parseAsRoot(["start"]) as? StartCommand)
        #expect(!plain.dryRun)
        #expect(plain.speed == 1.0)
        #expect(plain.duration == nil)
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["start", "--speed", "0"]) }
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["start", "--duration", "forever"]) }
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["start", "--start-time", "tomorrow"]) }
    }

    @Test("schedule refuses a day the calendar does not have, or one not in ASCII digits (issue 43: 2026-02-30 printed a plan)")
    func scheduleRefusesImpossibleDays() throws {
        for impossible in ["2026-02-30", "2026-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "２０２６-１１-２２", "+2026-11-22", "2026-+1-22"] {
            #expect(throws: (any Error).self, "\(impossible)") { try MirrorBot.parseAsRoot(["schedule", "--date", impossible]) }
        }
        #expect(try #require(try MirrorBot.parseAsRoot(["schedule", "--date", "2028-02-29"]) as? ScheduleCommand).date == "2028-02-29")
    }

    @Test("start and fleet refuse a --start-time outside the years 1970 to 9999 (issue 43: year 99999 poisoned the SQLite store)")
    func startTimeBounded() throws {
        for outside in ["99999-01-01T00:00:00Z", "+99999-01-01T00:00:00Z", "10000-01-01T00:00:00Z", "1969-12-31T23:59:59Z"] {
            #expect(StartCommand.parseTime(outside) == nil, "\(outside)")
            #expect(throws: (any Error).self, "\(outside)") { try MirrorBot.parseAsRoot(["start", "--start-time", outside]) }
            #expect(throws: (any Error).self, "\(outside)") { try MirrorBot.parseAsRoot(["fleet", "--start-time", outside]) }
        }
        #expect(StartCommand.parseTime("9999-12-31T23:59:59Z") != nil)
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["start", "--start-time", "9999-12-31T00:00:00Z", "--duration", "2d"]) }
        #expect(try MirrorBot.parseAsRoot(["start", "--start-time", "9999-12-30T00:00:00Z", "--duration", "1d"]) is StartCommand)
        #expect(StartCommand.parseTime("1970-01-01T00:00:00Z") != nil)
        do {
            _ = try MirrorBot.parseAsRoot(["start", "--start-time", "99999-01-01T00:00:00Z"])
            Issue.record("--start-time 99999-01-01T00:00:00Z was accepted")
        } catch {
            #expect(MirrorBot.message(for: error).contains("within the years 1970 to 9999"), "\(MirrorBot.message(for: error))")
        }
    }

    @Test("import takes one path")
    func importPath() throws {
        #expect(try #require(try MirrorBot.parseAsRoot(["import", "twitter-2026.zip"]) as? ImportCommand).path == "twitter-2026.zip")
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["import"]) }
    }

    @Test("An unknown subcommand is an error, and help names every subcommand")
    func unknownAndHelp() throws {
        #expect(throws: (any Error).self) { try MirrorBot.parseAsRoot(["tweet-now"]) }
        let help = MirrorBot.helpMessage()
        for name in ["start", "migrate", "train", "import", "schedule", "classify", "doctor", "optout", "tokenize"] { #expect(help.contains(name)) }
        #expect(MirrorBot.configuration.commandName == "mirror_bot")
    }
}
