import BotConfiguration
import BotCore
import FakeX
import Foundation
import Logging
import PostgresNIO
import PostgresStores
import RedisClient
import RedisWordCounts
import SQLiteStores
import Stores
import TestSupport
import Testing
import WordCounts

/// The `mirror_bot` binary built beside the test bundle, run as a user would run it.
struct MirrorBotProcess {
    struct Output {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    static var executable: URL {
        get throws {
            let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            for candidate in [directory, directory.deletingLastPathComponent()] {
                let url = candidate.appending(path: "mirror_bot")
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
            throw CancellationError()
        }
    }

    /// Runs `mirror_bot arguments` in a fresh empty folder with only `environment` (and PATH) set.
    static func run(
        _ arguments: [String], environment: [String: String], files: [String: String] = [:], input: String? = nil,
        executable program: URL? = nil
    ) async throws -> Output {
        try await OffThePool.run { try runBlocking(arguments, environment: environment, files: files, input: input, program: program) }
    }

    private static func runBlocking(
        _ arguments: [String], environment: [String: String], files: [String: String], input: String?,
        program: URL?
    ) throws -> Output {
        let folder = FileManager.default.temporaryDirectory.appending(path: TestServers.uniqueName("cli"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in files { try text.write(to: folder.appending(path: name), atomically: true, encoding: .utf8) }
        let process = Process()
        process.executableURL = try program ?? executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { mine, _ in mine }
        // Files, not pipes: a child writing more than a pipe holds to one stream while the other is being read to
        // its end would wait forever (a simulated day logs hundreds of kilobytes).
        let outputURL = folder.appending(path: ".stdout")
        let errorURL = folder.appending(path: ".stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? error.close()
        }
        process.standardOutput = output
        process.standardError = error
        let inputPipe = Pipe()
        process.standardInput = inputPipe
        try process.run()
        if let input { inputPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try inputPipe.fileHandleForWriting.close()
        // The longest run a test asks for is a simulated day at 1,440x (a minute, two under CI's load); ten minutes
        // is a hang, not a slow machine.
        try process.waitUntilExit(within: .seconds(600), "mirror_bot \(arguments.joined(separator: " ")) to end")
        return Output(
            status: process.terminationStatus,
            standardOutput: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
    }
}

@Suite("Running the mirror_bot binary")
struct MirrorBotProcessTests {
    /// Runs `body` with the `DATABASE_URL` text of a new, empty database, dropped afterwards.
    func withEmptyDatabase(_ body: (String) async throws -> Void) async throws {
        try await TestServers.withScratchDatabase("cli") { url async throws in try await body(url.connectionText) }
    }

    @Test("migrate creates the tables once; a second run says it is up to date")
    func migrateTwice() async throws {
        try await withEmptyDatabase { url async throws in
            let first = try await MirrorBotProcess.run(["migrate"], environment: ["DATABASE_URL": url, "TZ": "Asia/Tokyo"])
            #expect(first.status == 0, "\(first.standardError)")
            let names = PostgresMigrations.bundled.map { "\($0.version) (\($0.name))" }.joined(separator: ", ")
            #expect(first.standardOutput == "Applied \(PostgresMigrations.bundled.count) migrations: \(names).\n")
            #expect(
                first.standardOutput.hasPrefix(
                    "Applied \(PostgresMigrations.bundled.count) migrations: 1 (create_tweets), 2 (archive_constraints), 3 (bot_posts)"))
            let second = try await MirrorBotProcess.run(["migrate"], environment: ["DATABASE_URL": url])
            #expect(second.status == 0)
            #expect(second.standardOutput.hasPrefix("The database (Postgres at postgres://"), "\(second.standardOutput)")
            #expect(second.standardOutput.hasSuffix(") is up to date; no migration to apply.\n"))
        }
    }

    @Test("migrate reads DATABASE_URL from a .env file in the working directory")
    func migrateWithEnvFile() async throws {
        try await withEmptyDatabase { url async throws in
            let result = try await MirrorBotProcess.run(["migrate"], environment: [:], files: [".env": "# local\nDATABASE_URL=\(url)\n"])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.hasPrefix("Applied \(PostgresMigrations.bundled.count) migrations"))
        }
    }

    @Test("migrate without DATABASE_URL creates the SQLite file MIRROR_BOT_DATA once; a second run says it is up to date")
    func migrateWithoutDatabase() async throws {
        try await TestServers.withTemporaryFolder { folder in
            let data = folder.appending(path: "bot.sqlite").path
            let first = try await MirrorBotProcess.run(["migrate"], environment: ["MIRROR_BOT_DATA": data])
            #expect(first.status == 0, "\(first.standardError)")
            let names = SQLiteMigrations.bundled.map { "\($0.version) (\($0.name))" }.joined(separator: ", ")
            #expect(first.standardOutput == "Applied \(SQLiteMigrations.bundled.count) migrations: \(names).\n")
            #expect(FileManager.default.fileExists(atPath: data))
            let second = try await MirrorBotProcess.run(["migrate"], environment: ["MIRROR_BOT_DATA": data])
            #expect(second.standardOutput == "The database (the SQLite file \(data)) is up to date; no migration to apply.\n")
            // Without MIRROR_BOT_DATA, mirror_bot.sqlite in the working directory.
            let inFolder = try await MirrorBotProcess.run(["migrate"], environment: [:])
            #expect(inFolder.status == 0 && inFolder.standardOutput.hasPrefix("Applied \(SQLiteMigrations.bundled.count) migrations"))
        }
    }

    @Test("A file that is not SQLite is one error line naming it, non-zero exit, and is left as it was")
    func notAnSQLiteFile() async throws {
        try await TestServers.withTemporaryFolder { folder in
            let notes = folder.appending(path: "notes.txt")
            let text = String(repeating: "these are not the tweets you are looking for\n", count: 200)
            try text.write(to: notes, atomically: true, encoding: .utf8)
            let result = try await MirrorBotProcess.run(["schedule"], environment: ["MIRROR_BOT_DATA": notes.path])
            #expect(result.status != 0)
            #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
            #expect(result.standardError.contains("SQLite file \(notes.path)"), "\(result.standardError)")
            #expect(try String(contentsOf: notes, encoding: .utf8) == text)
        }
    }

    @Test("An unreachable database is one error line, no password, non-zero exit")
    func migrateUnreachable() async throws {
        let result = try await MirrorBotProcess.run(["migrate"], environment: ["DATABASE_URL": "postgres://me:topsecret@127.0.0.1:1/db"])
        #expect(result.status != 0)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(result.standardError)")
        #expect(result.standardError.contains("Database error while connecting to postgres://me:***@127.0.0.1:1/db"))
        #expect(!result.standardError.contains("topsecret"))
    }

    @Test("A malformed variable stops any command with the variable's name and expected form")
    func malformedConfiguration() async throws {
        let result = try await MirrorBotProcess.run(["migrate"], environment: ["DATABASE_URL": "postgres://u@h/db", "TZ": "Nowhere/Land"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("TZ is malformed (\"Nowhere/Land\"); it must be an IANA time zone name"))
    }

    @Test("--help, and help for each subcommand, explain the command with its options; nothing else needed to run them")
    func help() async throws {
        let root = try await MirrorBotProcess.run(["--help"], environment: [:])
        #expect(root.status == 0)
        #expect(
            root.standardOutput.contains("X, Mastodon, Bluesky or Misskey account") && root.standardOutput.contains("NETWORK=mastodon")
                && root.standardOutput.contains("NETWORK=bluesky") && root.standardOutput.contains("NETWORK=misskey"))
        for name in ["start", "migrate", "train", "import", "schedule", "classify", "doctor", "setup", "auth", "optout", "tokenize", "fleet", "bots"]
        {
            #expect(root.standardOutput.contains("  \(name) "), "--help lists \(name)")
        }
        let expectations: [[String]: [String]] = [
            ["start"]: [
                "--dry-run", "--speed", "--start-time", "--duration", "MISSED_SLOT_GRACE", "NETWORK=bluesky", "NETWORK=misskey",
                "HUMAN_NETWORK=archive",
            ],
            ["auth", "misskey"]: ["MiAuth", "--account", "--instance", "--write-env", "write:notes"],
            ["setup"]: ["bluesky", "self-label", "doctor"],
            ["migrate"]: ["DATABASE_URL", "SQLite file"],
            ["train", "scheduler"]: ["--force", "3,200"],
            ["train", "classifier"]: ["--force", "favorite"],
            ["train", "clear"]: ["word counts", "training examples"],
            ["train", "rebuild"]: ["training examples", "original key layout"],
            ["import"]: ["<path>", ".zip", "outbox.json", "HUMAN_MASTODON_TOKEN", "notes-<date>.json"],
            ["schedule"]: ["--date", "--seed", "--json"],
            ["classify"]: ["--json", "--explain", "--stats"],
            ["doctor"]: ["Redis", "NETWORK=mastodon", "bot flag", "scopes", "automation rules"],
            ["tokenize"]: ["<texts>"],
            ["optout"]: ["OPT_OUT_WORDS", "#nobot", "train clear", "list", "add", "remove"],
            ["optout", "add"]: ["<account>", "--reason"],
            ["auth", "x"]: ["--account", "--write-env", "--pin", "BOT_CONSUMER_KEY", "PIN"],
            ["fleet"]: ["DATABASE_URL", "REDIS_CLUSTER=true", "FLEET_KEY", "SIGTERM"],
            ["bots"]: ["FLEET_KEY", "AES-GCM"],
            ["bots", "add"]: ["--env-file", "NETWORK"],
        ]
        for (command, words) in expectations {
            let result = try await MirrorBotProcess.run(["help"] + command, environment: [:])
            #expect(result.status == 0, "help \(command)")
            #expect(result.standardOutput.contains("USAGE: mirror_bot \(command.joined(separator: " "))"), "\(result.standardOutput)")
            // A help string's line continuation escaped twice shows as a stray backslash.
            #expect(!result.standardOutput.contains("\\"), "help \(command.joined(separator: " ")) shows no backslash")
            // Help text is wrapped to the terminal: words are compared with line breaks as spaces.
            let text = result.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for word in words { #expect(text.contains(word), "help \(command.joined(separator: " ")) mentions \(word)") }
        }
    }

    @Test("tokenize prints the nouns of each text")
    func tokenize() async throws {
        let result = try await MirrorBotProcess.run(["tokenize", "今日は東京で寿司を食べた https://t.co/x"], environment: [:])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "今日\n東京\n寿司\n")
    }
}

@Suite("mirror_bot doctor against the fake X server")
struct DoctorProcessTests {
    static let seed = FakeXSeed(
        users: [.init(id: "1", username: "human"), .init(id: "2", username: "bot")],
        accounts: [
            .init(userID: "1", consumerKey: "hk", consumerSecret: "hs", accessToken: "1-t", accessTokenSecret: "hts"),
            .init(userID: "2", consumerKey: "bk", consumerSecret: "bs", accessToken: "2-t", accessTokenSecret: "bts"),
        ])

    static func environment(_ baseURL: URL, botSecret: String) -> [String: String] {
        [
            "X_API_BASE_URL": baseURL.absoluteString,
            "HUMAN_CONSUMER_KEY": "hk", "HUMAN_CONSUMER_SECRET": "hs", "HUMAN_ACCESS_TOKEN": "1-t", "HUMAN_ACCESS_TOKEN_SECRET": "hts",
            "BOT_CONSUMER_KEY": "bk", "BOT_CONSUMER_SECRET": "bs", "BOT_ACCESS_TOKEN": "2-t", "BOT_ACCESS_TOKEN_SECRET": botSecret,
        ]
    }

    @Test("doctor names each account from its credentials and says which credentials X refused")
    func doctorChecksAccounts() async throws {
        let server = FakeXServer(seed: Self.seed, logger: Logger(label: "doctor", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.withRunning { url in
            var environment = Self.environment(url, botSecret: "wrong-secret")
            environment["DATABASE_URL"] = try TestServers.databaseURL().connectionText
            let result = try await MirrorBotProcess.run(["doctor"], environment: environment)
            #expect(result.status != 0)
            #expect(result.standardOutput.contains("ok    human account: @human (id 1)"), "\(result.standardOutput)")
            #expect(result.standardOutput.contains("FAIL  bot account: X refused the bot account's credentials"))
            // Without REDIS_URL the word counts live in the embedded SQLite file, created in the working directory.
            #expect(
                result.standardOutput.contains("ok    word counts in the SQLite file mirror_bot.sqlite (REDIS_URL is not set): reachable"),
                "\(result.standardOutput)")
            #expect(!result.standardOutput.contains("wrong-secret"))
            #expect(await server.requestCounts()["GET /2/users/me"] == 2)
        }
    }

    @Test(
        "doctor on X checks the automation rules' disclosure: the bot's bio must say it is automated and name the person, and says exactly what to change"
    )
    func doctorChecksDisclosure() async throws {
        for (bio, expected) in [
            (nil, "FAIL  automation disclosure: the bio of @bot does not say that it is automated and the person who runs it (@human)"),
            ("趣味の自動投稿です", "FAIL  automation disclosure: the bio of @bot does not say the person who runs it (@human)"),
            (
                "Automated mirror of @Human's posts, run by @human",
                "ok    automation disclosure: the bio of @bot says it is automated and names @human"
            ),
        ] as [(String?, String)] {
            let seed = FakeXSeed(
                users: [.init(id: "1", username: "human"), .init(id: "2", username: "bot", description: bio)], accounts: Self.seed.accounts)
            let server = FakeXServer(seed: seed, logger: Logger(label: "doctor", factory: { _ in SwiftLogNoOpLogHandler() }))
            try await server.withRunning { url in
                var environment = Self.environment(url, botSecret: "bts")
                environment["DATABASE_URL"] = try TestServers.databaseURL().connectionText
                let result = try await MirrorBotProcess.run(["doctor"], environment: environment)
                #expect(result.standardOutput.contains(expected), "\(result.standardOutput)")
                if bio == nil {
                    #expect(result.standardOutput.contains("Settings → Your account → Account information → Automation"))
                    #expect(result.status != 0)
                }
                // The bio comes with the user read doctor makes anyway: one per account.
                #expect(await server.requestCounts()["GET /2/users/me"] == 2)
            }
        }
    }
}

@Suite("mirror_bot schedule and classify")
struct ScheduleAndClassifyProcessTests {
    @Test("schedule --json prints a reproducible plan drawn from the archive; the text form charts it")
    func schedule() async throws {
        try await TestServers.withScratchDatabase("schedule") { databaseURL async throws in
            let database = try PostgresStoreSet(url: databaseURL, logger: TestServers.logger)
            try await database.withRunning { database in
                try await database.migrations.migrate()
                let archive = database.archive(timeZone: TimeZone(identifier: "Asia/Tokyo")!, rowLimit: 1000)
                try await archive.prepare()
                let base = Date(timeIntervalSince1970: 1_717_167_600)  // 2024-06-01 00:00 Tokyo
                var tweets: [ArchivedPost] = []
                for index in 0..<40 {
                    let seconds: Int = (index % 4) * 86_400 + (7 + index % 3) * 3_600 + index * 60
                    tweets.append(ArchivedPost(postID: PostID(index + 1), text: "t\(index)", createdAt: base.addingTimeInterval(Double(seconds))))
                }
                try await archive.insert(tweets)
            }
            let environment = ["DATABASE_URL": databaseURL.connectionText, "TZ": "Asia/Tokyo"]
            let first = try await MirrorBotProcess.run(["schedule", "--date", "2026-11-22", "--seed", "7", "--json"], environment: environment)
            let second = try await MirrorBotProcess.run(["schedule", "--date", "2026-11-22", "--seed", "7", "--json"], environment: environment)
            #expect(first.status == 0, "\(first.standardError)")
            #expect(first.standardOutput == second.standardOutput)
            let plan = try #require(try JSONSerialization.jsonObject(with: Data(first.standardOutput.utf8)) as? [String: Any])
            #expect(plan["date"] as? String == "2026-11-22")
            #expect(plan["time_zone"] as? String == "Asia/Tokyo")
            let minutes = try #require(plan["minutes"] as? [Int])
            #expect(plan["count"] as? Int == minutes.count)
            #expect(minutes == minutes.sorted())
            #expect(minutes.allSatisfy { (7 * 60..<10 * 60).contains($0) })
            #expect([10].contains(minutes.count))  // each of the 4 days has 10 posts

            let chart = try await MirrorBotProcess.run(["schedule", "--date", "2026-11-22", "--seed", "7"], environment: environment)
            let lines = chart.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.first?.hasPrefix("Plan for 2026-11-22 (Asia/Tokyo): 10 posts at 0") == true)
            #expect(lines.filter { $0.range(of: #"^\d\d    "#, options: .regularExpression) != nil }.count == 24)
            let bad = try await MirrorBotProcess.run(["schedule", "--date", "tomorrow"], environment: environment)
            #expect(bad.status != 0)
            #expect(bad.standardError.contains("--date must look like 2026-11-22"))

        }
    }

    @Test("classify reads tweets from stdin and prints each decision, with reasons when asked")
    func classify() async throws {
        let prefix = TestServers.uniqueName("classify") + ":"
        let store = RedisWordCounts(connection: try TestServers.redisConnection(), keyPrefix: prefix)
        try await store.moveToFavorite(batch: (0..<20).map { _ in ["寿司", "@alice"] })
        try await store.learn(batch: (0..<40).map { _ in (features: ["会議", "@bob"], category: .normal) })
        let environment = ["REDIS_URL": try TestServers.redisURL().redacted, "REDIS_KEY_PREFIX": prefix]
        let input = "寿司が食べたい\n{\"text\": \"会議の資料\", \"author\": \"@bob\"}\n"
        let text = try await MirrorBotProcess.run(["classify", "--explain"], environment: environment, input: input)
        #expect(text.status == 0, "\(text.standardError)")
        let lines = text.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(lines[0].hasPrefix("like "))
        #expect(lines[0].hasSuffix("寿司が食べたい"))
        #expect(lines[1].contains("for: 寿司"))
        #expect(lines[3].hasPrefix("skip "))
        #expect(lines[5].hasPrefix("      against: "), "\(text.standardOutput)")
        #expect(lines[5].contains("会議") && lines[5].contains("@bob"), "\(text.standardOutput)")

        let json = try await MirrorBotProcess.run(["classify", "--json"], environment: environment, input: input)
        let objects = json.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.count == 2)
        #expect(objects[0]["favorite"] as? Bool == true)
        #expect(objects[1]["favorite"] as? Bool == false)
        #expect(objects[1]["features"] as? [String] == ["会議", "資料", "@bob"])
        #expect((objects[1]["log_ratio"] as? Double ?? 0) < 0)

        // Many lines, across batches and the pipeline: one line out per line in, in order, whatever their form (CRLF, no
        // final line break, an author with a quote in its name, a line that is no JSON).
        var bulkLines = (0..<4_500).map { $0 % 3 == 0 ? "寿司 \($0)" : #"{"text": "会議 \#($0)", "author": "bob\"\\x"}"# }
        bulkLines[7] = "{not json"
        let many = bulkLines.joined(separator: "\r\n")
        let bulk = try await MirrorBotProcess.run(["classify", "--json"], environment: environment, input: many)
        #expect(bulk.status == 0, "\(bulk.standardError.suffix(500))")
        let decoded = bulk.standardOutput.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(decoded.count == 4_500 && decoded.allSatisfy { $0 != nil })
        #expect(decoded.enumerated().allSatisfy { index, object in (object?["favorite"] as? Bool) == (index % 3 == 0) })
        #expect((decoded[1]?["features"] as? [String])?.last == "@bob\"\\x")
        #expect((decoded[7]?["features"] as? [String])?.contains("@bob\"\\x") == false)
        try await store.removeAll()
    }

    @Test("With REDIS_CLUSTER=true the word counts are read from the Redis Cluster, under the hash tag made from REDIS_KEY_PREFIX")
    func classifyOnACluster() async throws {
        let name = TestServers.uniqueName("clustered")
        let cluster = RedisClusterConnection(seed: try TestServers.redisClusterURL())
        defer { cluster.close() }
        let store = RedisWordCounts(connection: cluster, keyPrefix: "{bot:\(name)}:")
        try await store.moveToFavorite(batch: (0..<20).map { _ in ["寿司", "@alice"] })
        try await store.learn(batch: (0..<40).map { _ in (features: ["会議", "@bob"], category: .normal) })
        let environment = ["REDIS_URL": try TestServers.redisClusterURL().redacted, "REDIS_CLUSTER": "true", "REDIS_KEY_PREFIX": name + ":"]
        let json = try await MirrorBotProcess.run(
            ["classify", "--json"], environment: environment, input: "寿司が食べたい\n{\"text\": \"会議の資料\", \"author\": \"@bob\"}\n")
        #expect(json.status == 0, "\(json.standardError)")
        let objects = json.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.map { $0["favorite"] as? Bool } == [true, false], "\(json.standardOutput)")
        try await store.removeAll()
    }
}

@Suite("mirror_bot import")
struct ImportProcessTests {
    @Test(
        "SIGKILL while likes are being learned into the SQLite file leaves a file that opens with whole batches of them, each once; importing again learns the rest and nothing twice"
    )
    func killedWhileLearningIntoSQLite() async throws {
        try await TestServers.withScratchDatabase("sqlitekill") { databaseURL async throws in
            try await TestServers.withTemporaryFolder { folder in
                let data = folder.appending(path: "bot.sqlite").path
                let environment = ["DATABASE_URL": databaseURL.connectionText, "MIRROR_BOT_DATA": data, "PATH": "/usr/bin:/bin"]
                #expect(try await MirrorBotProcess.run(["migrate"], environment: environment).status == 0)
                try await MirrorBotProcess.personSignedIn(environment)
                let topics = ["猫", "寿司", "写真", "ラーメン", "電車", "会議"]
                let entries = (0..<20_000).map {
                    #"{"like": {"tweetId": "\#($0 + 1)", "fullText": "\#(topics[$0 % 6])と\#(topics[($0 / 6) % 6])の話 \#($0)"}}"#
                }
                let likes = folder.appending(path: "like.js")
                try ("window.YTD.like.part0 = [\n" + entries.joined(separator: ",\n") + "\n]").write(to: likes, atomically: true, encoding: .utf8)

                // Killed at a few moments of the import (the first early, the last after it may have finished).
                for delay in [150, 400, 900] {
                    let process = Process()
                    process.executableURL = try MirrorBotProcess.executable
                    process.arguments = ["import", likes.path]
                    process.environment = environment
                    process.standardOutput = FileHandle.nullDevice
                    process.standardError = FileHandle.nullDevice
                    try process.run()
                    try await Task.sleep(for: .milliseconds(delay))  // not a timing assertion: any moment must be safe
                    kill(process.processIdentifier, SIGKILL)
                    let killed = process
                    await OffThePool.run { killed.waitUntilExit() }

                    let counts = try SQLiteWordCounts(path: data)
                    let learned = try await counts.counts(for: ["猫"])
                    let total = learned.count(of: .favorite)
                    // Likes are learned 2,000 at a time (ArchiveImporter.likesPerBatch), each batch in one transaction, in
                    // the file's order.
                    #expect(total % 2_000 == 0 || total == 20_000, "after a kill at \(delay) ms: \(total) likes")
                    let withCat = (0..<min(total, 20_000)).filter { $0 % 6 == 0 || ($0 / 6) % 6 == 0 }.count
                    #expect(learned.count(of: "猫", in: .favorite) == withCat, "at \(delay) ms")
                    #expect(try await counts.wasLearnedAsFavorite("20000") == (total == 20_000))
                }
                // Run to its end, the import learns what the kills left out, and nothing twice.
                #expect(try await MirrorBotProcess.run(["import", likes.path], environment: environment).status == 0)
                let learned = try await SQLiteWordCounts(path: data).counts(for: ["猫"])
                #expect(learned.count(of: .favorite) == 20_000)
                #expect(learned.count(of: "猫", in: .favorite) == (0..<20_000).filter { $0 % 6 == 0 || ($0 / 6) % 6 == 0 }.count)
            }
        }
    }

    @Test("Without REDIS_URL, likes imported are learned into the SQLite file MIRROR_BOT_DATA")
    func importIntoSQLite() async throws {
        try await TestServers.withScratchDatabase("sqlite") { databaseURL async throws in
            try await TestServers.withTemporaryFolder { folder in
                let data = folder.appending(path: "bot.sqlite").path
                let environment = ["DATABASE_URL": databaseURL.connectionText, "MIRROR_BOT_DATA": data, "TZ": "Asia/Tokyo"]
                #expect(try await MirrorBotProcess.run(["migrate"], environment: environment).status == 0)
                try await MirrorBotProcess.personSignedIn(environment)
                let likes = #"""
                    window.YTD.like.part0 = [
                      {"like": {"tweetId": "21", "fullText": "猫の写真がかわいい"}},
                      {"like": {"tweetId": "22", "fullText": "猫と散歩"}}
                    ]
                    """#
                let imported = try await MirrorBotProcess.run(["import", "like.js"], environment: environment, files: ["like.js": likes])
                #expect(imported.status == 0, "\(imported.standardError)")
                #expect(imported.standardOutput.contains("learned 2 new likes"), "\(imported.standardOutput)")
                #expect(FileManager.default.fileExists(atPath: data))
                let counts = try SQLiteWordCounts(path: data)
                #expect(try await counts.counts(for: ["猫"]).count(of: "猫", in: .favorite) == 2)
                #expect(try await counts.wasLearnedAsFavorite("21"))
            }
        }
    }

    @Test("forget takes a liked tweet, named by its address, out of the examples and the word counts in one line; a wrong argument is refused")
    func forget() async throws {
        try await TestServers.withTemporaryFolder { folder in
            let data = folder.appending(path: "bot.sqlite").path
            // The bot's tokens are required (forget deletes its copies as the bot); with no copies nothing is called.
            let environment = [
                "MIRROR_BOT_DATA": data, "TZ": "Asia/Tokyo", "X_API_BASE_URL": "http://127.0.0.1:9",
                "BOT_CONSUMER_KEY": "bk", "BOT_CONSUMER_SECRET": "bs", "BOT_ACCESS_TOKEN": "2-t", "BOT_ACCESS_TOKEN_SECRET": "bts",
            ]
            #expect(try await MirrorBotProcess.run(["migrate"], environment: environment).status == 0)
            try await MirrorBotProcess.personSignedIn(environment)
            let likes = #"""
                window.YTD.like.part0 = [
                  {"like": {"tweetId": "21", "fullText": "猫の写真がかわいい"}},
                  {"like": {"tweetId": "22", "fullText": "猫と散歩"}}
                ]
                """#
            #expect(try await MirrorBotProcess.run(["import", "like.js"], environment: environment, files: ["like.js": likes]).status == 0)
            let forgot = try await MirrorBotProcess.run(["forget", "https://x.com/hanako/status/21"], environment: environment)
            #expect(forgot.status == 0, "\(forgot.standardError)")
            #expect(
                forgot.standardOutput.contains(
                    "Forgot post 21: not in the archive; 1 training example removed (favorite), taken out of the word counts as favorite."),
                "\(forgot.standardOutput)")
            #expect(try await SQLiteWordCounts(path: data).counts(for: ["猫"]).count(of: "猫", in: .favorite) == 1)
            let nothing = try await MirrorBotProcess.run(["forget", "21"], environment: environment)
            #expect(nothing.status == 0 && nothing.standardOutput.contains("nothing to forget"), "\(nothing.standardOutput)")
            let wrong = try await MirrorBotProcess.run(["forget", "https://x.com/hanako"], environment: environment)
            #expect(wrong.status != 0 && wrong.standardError.contains("is neither a post id nor the address of a post"), "\(wrong.standardError)")
        }
    }

    @Test("import reads a tweets.js, reports what it stored, and refuses a broken one with the file and place")
    func importFile() async throws {
        try await TestServers.withScratchDatabase("import") { databaseURL async throws in
            let prefix = TestServers.uniqueName("import") + ":"
            let environment = [
                "DATABASE_URL": databaseURL.connectionText, "REDIS_URL": try TestServers.redisURL().redacted,
                "REDIS_KEY_PREFIX": prefix, "TZ": "Asia/Tokyo",
            ]
            _ = try await MirrorBotProcess.run(["migrate"], environment: environment)
            try await MirrorBotProcess.personSignedIn(environment)
            let tweets = #"""
                window.YTD.tweets.part0 = [
                  {"tweet": {"id_str": "11", "full_text": "こんにちは &amp; さようなら", "created_at": "Sat Aug 12 16:10:37 +0000 2023"}},
                  {"tweet": {"id_str": "12", "full_text": "RT @x: 拡散", "created_at": "Sat Aug 12 16:11:37 +0000 2023"}}
                ]
                """#
            let result = try await MirrorBotProcess.run(["import", "tweets.js"], environment: environment, files: ["tweets.js": tweets])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.hasPrefix("Imported 1 new tweets (2 read, 1 retweets skipped) and learned 0 new likes"))
            #expect(result.standardOutput.contains("The archive holds 1 tweets."))

            let broken = try await MirrorBotProcess.run(
                ["import", "tweets.js"], environment: environment, files: ["tweets.js": String(tweets.dropLast(30))])
            #expect(broken.status != 0)
            #expect(broken.standardError.contains("Cannot import"))
            #expect(broken.standardError.contains("tweets.js: the JSON is malformed or cut short"))
            #expect(broken.standardError.contains("Nothing was imported."))

            let store = RedisWordCounts(connection: try TestServers.redisConnection(), keyPrefix: prefix)
            try await store.removeAll()
        }
    }
}

@Suite("mirror_bot start", .serialized)
struct StartProcessTests {
    static let now = Date(timeIntervalSince1970: 1_795_273_200)  // 2026-11-22 00:00 in Tokyo

    /// The human's last 5 days: 6 tweets each, 3 around 08:00 and 3 around 21:00 Tokyo time.
    static var seed: FakeXSeed {
        var tweets: [FakeXSeed.Tweet] = []
        for day in 1...5 {
            for (index, minute) in [480, 485, 490, 1260, 1265, 1270].enumerated() {
                let createdAt = now.addingTimeInterval(Double(-day * 86_400 + minute * 60))
                tweets.append(.init(id: String(1_000 + day * 10 + index), authorID: "1", text: "投稿 \(day)-\(index)", createdAt: createdAt))
            }
        }
        return FakeXSeed(
            now: now, users: [.init(id: "1", username: "human"), .init(id: "2", username: "bot")],
            accounts: [
                .init(userID: "1", consumerKey: "hk", consumerSecret: "hs", accessToken: "1-t", accessTokenSecret: "hts"),
                .init(userID: "2", consumerKey: "bk", consumerSecret: "bs", accessToken: "2-t", accessTokenSecret: "bts"),
            ],
            tweets: tweets, follows: ["1": [], "2": ["1"]],
            rateLimits: [
                "GET /2/users/:id/mentions": 100_000, "GET /2/users/:id/timelines/reverse_chronological": 100_000,
                "GET /2/users/:id/tweets": 100_000, "GET /2/users/:id/liked_tweets": 100_000, "GET /2/users/me": 100_000,
            ])
    }

    /// The summary's line of slots, without the note on how many went out unchecked (their originals not looked up ahead,
    /// which a loaded machine may cause; production says the same of a slot due as its poster begins).
    static func slotsLine(_ output: String) -> String? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Slots: ") }) else { return nil }
        return String(line).replacing(
            /\ \([0-9]+ of them unchecked: their originals could not be looked up ahead, and were looked up within the hour\)/, with: "")
    }

    @Test("A simulated day posts its plan, prints a summary, and a restart posts nothing twice; SIGTERM stops it cleanly")
    func simulatedDay() async throws {
        try await TestServers.withScratchDatabase("start") { databaseURL async throws in
            let prefix = TestServers.uniqueName("start") + ":"
            let server = FakeXServer(seed: Self.seed, logger: Logger(label: "start", factory: { _ in SwiftLogNoOpLogHandler() }))
            try await server.withRunning { base in
                var environment = DoctorProcessTests.environment(base, botSecret: "bts")
                environment.merge([
                    "HUMAN_CONSUMER_KEY": "hk", "HUMAN_CONSUMER_SECRET": "hs", "HUMAN_ACCESS_TOKEN": "1-t", "HUMAN_ACCESS_TOKEN_SECRET": "hts",
                    "BOT_ACCESS_TOKEN": "2-t", "DATABASE_URL": databaseURL.connectionText, "REDIS_URL": try TestServers.redisURL().redacted,
                    "REDIS_KEY_PREFIX": prefix, "TZ": "Asia/Tokyo", "LOG_LEVEL": "warning",
                    // Copies: the human's "投稿 1-0" ... "投稿 5-5" hold no remix that is not one of them.
                    "POST_STYLE": "copy",
                ]) { _, new in new }
                #expect(try await MirrorBotProcess.run(["start"], environment: environment).standardError.contains("migration"))  // not migrated yet
                #expect(try await MirrorBotProcess.run(["migrate"], environment: environment).status == 0)
                let trained = try await MirrorBotProcess.run(["train", "scheduler", "--yes"], environment: environment)
                #expect(trained.standardOutput.hasPrefix("Archived 30 new posts"), "\(trained.standardError)")

                // The morning: each past day had 6 posts, 3 at 08:00, 08:05, 08:10 and 3 at 21:00, 21:05, 21:10, so the plan
                // is those six minutes. Each run starts ten bot minutes before its slots, at 120x: production's grace of 10 bot
                // minutes is 5 real seconds, which a loaded machine keeps (the timing itself is proven on the virtual clock).
                // The first slot is ten bot minutes away (not five, the look-ahead's lead), so that its original is looked up
                // ahead; a machine so loaded that the poster reaches a slot only at its minute posts it unchecked, as production
                // does with a slot due as the poster begins (CI's load once starved a run five-fold: 5 polls of the mentions
                // in 25 bot minutes, not 25), and the summary says so.
                let morning = try await MirrorBotProcess.run(
                    ["start", "--speed", "120", "--start-time", "2026-11-22T07:50:00+09:00", "--duration", "25m"],
                    environment: environment)
                #expect(morning.status == 0, "\(morning.standardError)")
                // The bot's bio is empty: the start says once what X's automation rules ask of it.
                let disclosure = "the bio of @bot does not say that it is automated and the person who runs it (@human), as X's automation rules ask"
                #expect(morning.standardError.components(separatedBy: disclosure).count == 2, "\(morning.standardError)")
                #expect(await server.posted().count == 3)
                #expect(
                    Self.slotsLine(morning.standardOutput) == "Slots: 6 planned, 3 posted, 0 skipped, 3 still to come.", "\(morning.standardOutput)")
                #expect(morning.standardOutput.contains("API: total:"))

                // Started again the same day: the stored plan is reused, the evening is posted, nothing twice,
                // through two 503s of the post endpoint (retried) and a dropped read of the mentions.
                await server.add(fault: FakeXFault(kind: .serviceUnavailable, count: 2, endpoint: "POST /2/tweets"))
                await server.add(fault: FakeXFault(kind: .closeMidResponse, count: 1, endpoint: "GET /2/users/:id/mentions"))
                let evening = try await MirrorBotProcess.run(
                    ["start", "--speed", "120", "--start-time", "2026-11-22T20:50:00+09:00", "--duration", "25m"],
                    environment: environment)
                #expect(evening.status == 0, "\(evening.standardError)")
                let posted = await server.posted()
                #expect(posted.count == 6)
                #expect(Set(posted.map(\.text)).count == 6)
                #expect(
                    Self.slotsLine(evening.standardOutput) == "Slots: 6 planned, 6 posted, 0 skipped, 0 still to come.", "\(evening.standardOutput)")

                // A real-time run stops within seconds of SIGTERM, exit status 0.
                let process = Process()
                process.executableURL = try MirrorBotProcess.executable
                process.arguments = ["start"]
                process.environment = environment.merging(["PATH": "/usr/bin:/bin", "LOG_LEVEL": "notice"]) { _, new in new }
                let errors = Pipe()
                process.standardError = errors
                process.standardOutput = Pipe()
                try process.run()
                // Started and stopped within seconds; two minutes is a hang (killed, and the test fails saying so).
                let watchdog = ChildWatchdog(process, limit: .seconds(120))
                defer { watchdog.cancel() }
                let running = process
                let reader = errors.fileHandleForReading
                let (text, stoppedIn) = try await OffThePool.run {
                    var text = ""
                    while !text.contains("running; SIGTERM or SIGINT stops it gracefully") {
                        let chunk = reader.availableData
                        if chunk.isEmpty { break }
                        text += String(decoding: chunk, as: UTF8.self)
                    }
                    kill(running.processIdentifier, SIGTERM)
                    let stopped = ContinuousClock.now
                    try running.waitUntilExit(within: .seconds(30), "mirror_bot start to stop on SIGTERM (Heroku allows 30 s)")
                    let stoppedIn = ContinuousClock.now - stopped
                    return (text + String(decoding: reader.readDataToEndOfFile(), as: UTF8.self), stoppedIn)
                }
                #expect(!watchdog.fired, "mirror_bot start never said it was running within two minutes: \(text.suffix(2_000))")
                #expect(process.terminationStatus == 0)
                #expect(stoppedIn < .seconds(10))
                #expect(text.contains("API usage at shutdown"))
                #expect(!text.contains("hts") && !text.contains("bts"))  // no secret in the logs
            }
            let store = RedisWordCounts(connection: try TestServers.redisConnection(), keyPrefix: prefix)
            try await store.removeAll()
        }
    }
}
