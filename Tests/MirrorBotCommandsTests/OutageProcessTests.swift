import BotAssembly
import BotConfiguration
import FakeX
import Foundation
import Logging
import RedisClient
import Stores
import TestSupport
import Testing

/// `mirror_bot start` in a separate process, watched through its log file.
final class RunningBot: @unchecked Sendable {
    let process = Process()
    let logFile: URL
    let outputFile: URL

    /// Starts `mirror_bot arguments` with `environment`, writing its log and summary to files in `folder`.
    init(_ arguments: [String], environment: [String: String], folder: URL) throws {
        logFile = folder.appending(path: "bot-\(UUID().uuidString).log")
        outputFile = folder.appending(path: "bot-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        process.executableURL = try MirrorBotProcess.executable
        process.arguments = arguments
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { mine, _ in mine }
        process.currentDirectoryURL = folder
        process.standardError = try FileHandle(forWritingTo: logFile)
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        try process.run()
    }

    /// The log so far.
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }
    /// The last lines of the log, without the hourly usage lines, for failure messages.
    var tail: String {
        log.split(separator: "\n").filter { !$0.contains("API usage") }.suffix(40).joined(separator: "\n")
    }
    /// What it printed (the summary).
    var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

    /// Waits, in real time (the bot is another process), until its log contains `text`; false after `limit`.
    func waitForLog(_ text: String, limit: Duration = .seconds(120)) async throws -> Bool {
        try await waitForLogLine(containing: [text], limit: limit)
    }

    /// Waits, in real time, until one line of its log contains every one of `texts` (one event, not two lines that
    /// each say a part of it); false after `limit`.
    func waitForLogLine(containing texts: [String], limit: Duration = .seconds(120)) async throws -> Bool {
        func found() -> Bool { log.split(separator: "\n").contains { line in texts.allSatisfy { line.contains($0) } } }
        let deadline = ContinuousClock.now + limit
        while !found() {
            guard ContinuousClock.now < deadline, process.isRunning else { return found() }
            try await Task.sleep(for: .milliseconds(100))
        }
        return true
    }

    /// Waits for the process to end, at most `limit` of real time (then it is killed and the wait throws, naming the
    /// bot's arguments and the last lines of its log); returns its status and how long that took. The default bounds a
    /// simulated day run to its end (a minute at 1,440x, a few under CI's load); after a signal, pass production's.
    func waitForExit(within limit: Duration = .seconds(600)) async throws -> (status: Int32, took: Duration) {
        let started = ContinuousClock.now
        do {
            try await process.exit(within: limit, "mirror_bot \(process.arguments?.joined(separator: " ") ?? "") to end")
        } catch let error as ChildDidNotExit {
            throw ChildDidNotExit(what: "\(error.what); its log ended:\n\(tail)", limit: limit)
        }
        return (process.terminationStatus, ContinuousClock.now - started)
    }
}

/// A redis-server of the test's own, which the test stops and starts again (its data kept in an append-only file).
final class OwnRedis: @unchecked Sendable {
    let port: Int
    let folder: URL
    private var process: Process?

    private init(folder: URL, port: Int) {
        self.folder = folder
        self.port = port
    }

    /// A server started on a free port, its data in `folder`.
    static func started(folder: URL) async throws -> OwnRedis {
        let redis = OwnRedis(folder: folder, port: try FreePort.pick())
        try await redis.start()
        return redis
    }

    /// Starts the server (again) and waits until it listens, for at most 10 s.
    func start() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes", "--dir", folder.path,
            "--logfile", folder.appending(path: "redis.log").path,
        ]
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if (try? FreePort.isListening(port)) == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Stops the server as a crash would (SIGKILL: a child of the test runner inherits its blocked SIGTERM).
    func stop() {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            try? process.waitUntilExit(within: .seconds(30), "the killed server to end")
        }
        process = nil
    }

    deinit { stop() }
}

/// The bot through store outages as a user meets them: the SQLite file locked by another process, Postgres refusing
/// connections, Redis stopped, each for a minute of real time in the middle of a simulated day. The services pause
/// with one log line, resume by themselves, the remaining slots are posted, the run ends with exit status 0; and
/// SIGTERM during each outage stops it within 10 seconds with status 0. A process test because only a process shows
/// it: real servers stopped and locked by another process, and the signal; with production's grace (MISSED_SLOT_GRACE
/// 10 bot minutes, 833 ms of real time at 720x).
@Suite("mirror_bot start through store outages", .serialized)
struct OutageProcessTests {
    static let speed = "720"  // a minute of real time is 12 hours of the bot's

    enum Outage: String, CaseIterable, Sendable, CustomTestStringConvertible {
        var testDescription: String { rawValue }
        case sqliteLocked = "the SQLite file locked by another process"
        case postgresDown = "Postgres refusing connections"
        case redisDown = "Redis stopped"
        case redisFull = "Redis out of memory (writes refused)"
    }

    /// Runs `body` with a trained bot on the stores the outage concerns, and a function that makes the outage last
    /// while its closure runs.
    static func withBot(
        _ outage: Outage, _ name: String,
        _ body: ([String: String], URL, _ during: (() async throws -> Void) async throws -> Void) async throws -> Void
    ) async throws {
        var persona = PersonaDayProcessTests.persona()
        // Redis only serves liking: that outage is tried on a bot that likes, on an app whose access allows it.
        if outage == .redisDown || outage == .redisFull { persona.seed.access = .enterprise }
        let server = FakeXServer(seed: persona.seed, logger: Logger(label: name, factory: { _ in SwiftLogNoOpLogHandler() }))
        try await TestServers.withTemporaryFolder { folder in
            try await server.withRunning { base in
                func prepare(database: DatabaseURL?, redis: OwnRedis?) async throws -> [String: String] {
                    var environment = try PersonaDayProcessTests.environment(
                        persona, base: base, database: nil, prefix: "",
                        data: folder.appending(path: "bot.sqlite").path)
                    if let database { environment["DATABASE_URL"] = database.connectionText }
                    if let redis { environment["REDIS_URL"] = "redis://127.0.0.1:\(redis.port)" }
                    environment["LIKES"] = outage == .redisDown || outage == .redisFull ? "on" : "auto"
                    environment["X_DAILY_BUDGET"] = "100"
                    environment["LEARN_POLL_SECONDS"] = "900"
                    for command in [["migrate"], ["train", "scheduler", "--yes"], ["train", "classifier", "--yes"]] {
                        let result = try await MirrorBotProcess.run(command, environment: environment)
                        try #require(result.status == 0, "\(command): \(result.standardError)")
                    }
                    await server.armClock(PersonaDayProcessTests.dayStart, speed: Double(Self.speed)!)
                    return environment
                }
                switch outage {
                case .sqliteLocked:
                    let environment = try await prepare(database: nil, redis: nil)
                    let file = try #require(environment["MIRROR_BOT_DATA"])
                    try await body(environment, folder) { held in
                        // Another process (python's sqlite3) holds the write lock: readers go on, every write waits.
                        let locker = Process()
                        locker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                        locker.arguments = [
                            "python3", "-c",
                            """
                            import sqlite3, sys
                            c = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
                            c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); sys.stdin.readline(); c.execute('COMMIT')
                            """, file,
                        ]
                        let input = Pipe()
                        let output = Pipe()
                        locker.standardInput = input
                        locker.standardOutput = output
                        try locker.run()
                        // Bounded: a locker that never says it holds the lock is killed, which ends the read.
                        let watchdog = ChildWatchdog(locker, limit: .seconds(60))
                        let reader = output.fileHandleForReading
                        let said = await OffThePool.run { reader.availableData }
                        watchdog.cancel()
                        #expect(String(decoding: said, as: UTF8.self).hasPrefix("locked"), "python's sqlite3 did not take the lock")
                        defer {
                            try? input.fileHandleForWriting.write(contentsOf: Data("\n".utf8))
                            try? locker.waitUntilExit(within: .seconds(60), "python's sqlite3 to let the lock go")
                        }
                        try await held()
                    }
                case .postgresDown:
                    try await TestServers.withScratchDatabase(name) { url async throws in
                        let environment = try await prepare(database: url, redis: nil)
                        try await body(environment, folder) { held in
                            try await TestServers.setOutage(true, of: url.database)
                            do { try await held() } catch {
                                try await TestServers.setOutage(false, of: url.database)
                                throw error
                            }
                            try await TestServers.setOutage(false, of: url.database)
                        }
                    }
                case .redisFull:
                    // Heroku's redis mini refuses writes when full (noeviction): reads go on, every write fails with OOM.
                    let redis = try await OwnRedis.started(folder: folder)
                    defer { redis.stop() }
                    let environment = try await prepare(database: nil, redis: redis)
                    let admin = RedisConnection(url: RedisURL(host: "127.0.0.1", port: redis.port))
                    try await admin.send("CONFIG", "SET", "maxmemory-policy", "noeviction")
                    try await body(environment, folder) { held in
                        try await admin.send("CONFIG", "SET", "maxmemory", "1")
                        do { try await held() } catch {
                            try await admin.send("CONFIG", "SET", "maxmemory", "0")
                            throw error
                        }
                        try await admin.send("CONFIG", "SET", "maxmemory", "0")
                    }
                case .redisDown:
                    let redis = try await OwnRedis.started(folder: folder)
                    defer { redis.stop() }
                    let environment = try await prepare(database: nil, redis: redis)
                    try await body(environment, folder) { held in
                        redis.stop()
                        do { try await held() } catch {
                            try await redis.start()
                            throw error
                        }
                        try await redis.start()
                    }
                }
            }
        }
    }

    @Test(
        "A minute of outage in the middle of a day: the services pause with one line, resume, post the remaining slots, exit 0",
        arguments: Outage.allCases)
    func dayThroughOutage(_ outage: Outage) async throws {
        do { try await dayThroughOutageBody(outage) } catch {
            Issue.record("\(String(reflecting: error))")
            throw error
        }
    }

    func dayThroughOutageBody(_ outage: Outage) async throws {
        try await Self.withBot(outage, "outage_day") { environment, folder, during in
            let bot = try RunningBot(
                ["start", "--speed", Self.speed, "--start-time", "2026-11-22T00:00:00+09:00", "--duration", "1d"],
                environment: environment, folder: folder)
            #expect(try await bot.waitForLog("running; SIGTERM or SIGINT stops it gracefully"))
            try await during {
                // The outage lasts a minute of real time (12 hours of the bot's); the services notice within it.
                let ends = ContinuousClock.now + .seconds(60)
                #expect(try await bot.waitForLog(" paused: ", limit: .seconds(55)), "\(bot.tail)")
                try await Task.sleep(until: ends)
            }
            let (status, _) = try await bot.waitForExit()
            #expect(status == 0, "\(bot.tail)")
            let log = bot.log
            #expect(log.contains(" resumed after "), "\(bot.tail)")
            #expect(!log.contains("Fatal error"))
            // Each service says it paused once per outage, not once per try, and says it resumed once the store answered.
            let lines = log.split(separator: "\n")
            func service(_ line: Substring) -> Substring? { line.split(separator: "]").last?.split(separator: " ").first }
            let pauses = lines.filter { $0.contains(" paused: ") }
            let services = Set(pauses.compactMap(service))
            #expect(!services.isEmpty && pauses.count <= services.count * 2, "\(pauses)")
            let resumed = Set(lines.filter { $0.contains(" resumed after ") }.compactMap(service))
            #expect(services.isSubset(of: resumed), "paused: \(services.sorted()); resumed: \(resumed.sorted())")
            // The slots after the outage were posted; the summary was printed.
            #expect(bot.output.contains("Ran from "), "\(bot.output)")
            let configuration = try Configuration(environment: environment)
            try await BotParts(configuration: configuration, logger: TestServers.logger).withRunningAsIs { database in
                let slots = try #require(try await database.plans.slots(of: PersonaDayProcessTests.day))
                // Posted after the outage, within production's grace: a slot may be missed only as production misses
                // one (a stall of the loaded machine longer than 833 ms of real time), saying so.
                let late = slots.filter { $0.minute >= 20 * 60 }
                #expect(late.contains { $0.state == .posted }, "\(slots.map { ($0.minute, $0.state, $0.reason ?? "") })")
                #expect(
                    late.allSatisfy { $0.state == .posted || ($0.state == .skipped && ($0.reason ?? "").hasPrefix("missed: ")) },
                    "\(slots.map { ($0.minute, $0.state, $0.reason ?? "") })")
                #expect(!slots.contains { $0.state == .planned || $0.state == .posting })
            }
        }
    }

    @Test("SIGTERM during an outage stops the bot within 10 seconds with status 0", arguments: Outage.allCases)
    func sigtermDuringOutage(_ outage: Outage) async throws {
        try await Self.withBot(outage, "outage_term") { environment, folder, during in
            let bot = try RunningBot(
                ["start", "--speed", Self.speed, "--start-time", "2026-11-22T00:00:00+09:00"],
                environment: environment, folder: folder)
            #expect(try await bot.waitForLog("running; SIGTERM or SIGINT stops it gracefully"))
            try await during {
                #expect(try await bot.waitForLog(" paused: "), "\(bot.tail)")
                kill(bot.process.processIdentifier, SIGTERM)
                let (status, took) = try await bot.waitForExit()
                #expect(status == 0, "\(bot.tail)")
                #expect(took < .seconds(10), "stopped in \(took)")
                print("outage \(outage.rawValue): stopped in \(took)")
            }
        }
    }
}
