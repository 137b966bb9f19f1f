import ArchiveImport
import BotClock
import BotConfiguration
import BotCore
import Classifier
import ExportFormats
import FakeX
import Foundation
import Logging
import NetworkRegistry
import PostText
import PostgresNIO
import PostgresStores
import RedisClient
import RedisWordCounts
import SQLiteStores
import Schedule
import Stores
import Tokenizer
import WordCounts
import XAPI

/// `mirror_bot_benchmarks`: the foundation's speed on real Postgres, Redis and MeCab.
/// Run it with `script/bench`, which starts throwaway servers and builds in release mode.
@main
struct MirrorBotBenchmarks {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let databaseText = environment["MIRROR_BOT_TEST_DATABASE_URL"] ?? environment["DATABASE_URL"],
            let databaseURL = DatabaseURL(databaseText),
            let redisText = environment["MIRROR_BOT_TEST_REDIS_URL"] ?? environment["REDIS_URL"],
            let redisURL = RedisURL(redisText)
        else {
            print("Set MIRROR_BOT_TEST_DATABASE_URL and MIRROR_BOT_TEST_REDIS_URL (script/bench does), or DATABASE_URL and REDIS_URL.")
            exit(2)
        }
        let iterations = Int(environment["BENCHMARK_ITERATIONS"] ?? "") ?? 7
        var runner = BenchmarkRunner(iterations: iterations)
        var logger = Logger(label: "benchmarks")
        logger.logLevel = .error
        var texts = SyntheticPosts(seed: 2014)
        let tweets10k = texts.make(10_000)
        print("mirror_bot benchmarks: \(iterations) measured runs each after a warm-up; median and best wall time.")
        print("Machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, hiredis \(RedisConnection.hiredisVersion).")

        // MARK: Tokenizer
        let tokenizer = try PostTokenizer()
        var nounCount = 0
        try await runner.measure("tokenize 10,000 tweets (1 task)", items: 10_000, unit: "tweets", target: ">= 40,000 tweets/s") {
            nounCount = 0
            for text in tweets10k { nounCount += try tokenizer.nouns(in: text).count }
        }
        try await runner.measure("tokenize 10,000 tweets (2 tasks)", items: 10_000, unit: "tweets", target: "(both cores)") {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for half in [tweets10k[..<5_000], tweets10k[5_000...]] {
                    group.addTask { for text in half { _ = try tokenizer.nouns(in: text) } }
                }
                try await group.waitForAll()
            }
        }
        let features = try tweets10k.prefix(1_600).map { try tokenizer.nouns(in: $0) + ["author\($0.count % 50)"] }
        print(String(format: "  (%.1f nouns per tweet on average)", Double(nounCount) / 10_000))

        // MARK: Hostile markup: a megabyte of each kind of unterminated or nested markup, read as a status's HTML.
        // Linear means each runs in about the time of a megabyte of ordinary HTML.
        let megabyte = 1 << 20
        func repeated(_ piece: String) -> String { String(repeating: piece, count: megabyte / piece.utf8.count) }
        let hostile: [(String, String)] = [
            ("ordinary status HTML", repeated("<p>今日は<a href=\"https://example.com/x\" rel=\"nofollow\">猫</a> &amp; 犬<br>です</p>")),
            ("unterminated <!--", repeated("<!--")),
            ("unterminated <!", repeated("<!")),
            ("tags never closed, quoted", repeated("<a \"")),
            ("tags never closed", repeated("<a b")),
            ("bare <", repeated("< ")),
            ("ampersands", repeated("&x")),
            ("nested <p><br>", repeated("<p><br>")),
        ]
        for (name, html) in hostile {
            var characters = 0
            try await runner.measure(
                "HTML to text, 1 MB of \(name)", items: html.utf8.count / 1_024, unit: "KB", target: "linear: within ~10x of ordinary"
            ) {
                characters = WrittenText.from(html: html).count
            }
            precondition(characters > 0 || name.hasPrefix("nested"), "nothing read from \(name)")
        }

        // MARK: X API client against the fake X server (real HTTP on loopback, OAuth signed and verified)
        let start = Date()
        let humanKeys = AccountCredentials(consumerKey: "ck", consumerSecret: "cs", accessToken: "100-t", accessTokenSecret: "ts")
        let seedTweets = (0..<3_500).map { index in
            FakeXSeed.Tweet(
                id: String(1_000_000 + index), authorID: "100", text: tweets10k[index],
                createdAt: start.addingTimeInterval(Double(index - 3_500) * 600))
        }
        let fake = FakeXServer(
            seed: FakeXSeed(
                now: start, users: [.init(id: "100", username: "human")],
                accounts: [.init(userID: "100", consumerKey: "ck", consumerSecret: "cs", accessToken: "100-t", accessTokenSecret: "ts")],
                tweets: seedTweets, rateLimits: ["GET /2/users/:id/tweets": 1_000_000]),
            logger: Logger(label: "fake-x", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await fake.withRunning { baseURL in
            let client = XClient(configuration: .init(baseURL: baseURL, credentials: [.human: humanKeys]), logger: logger)
            var fetched = 0
            try await runner.measure("fetch 3,200 tweets from fake-x (32 pages)", items: 3_200, unit: "tweets", target: "(report)") {
                fetched = 0
                for try await page in client.pages(GetUserTweets(userID: "100", maxResults: 100), as: .human) {
                    fetched += page.tweets.count
                }
            }
            precondition(fetched == 3_200, "expected 3,200 tweets, got \(fetched)")
        }

        // MARK: Archive
        let schema = "bench_" + UUID().uuidString.prefix(8).lowercased()
        let admin = try PostgresStoreSet(url: databaseURL, logger: logger)
        _ = try await admin.withRunning { try await $0.client.query("CREATE SCHEMA \(unescaped: schema)") }
        let database = try PostgresStoreSet(url: databaseURL, schema: schema, logger: logger)
        try await database.withRunning { database in
            try await archiveBenchmarks("", database, tweets: tweets10k, runner: &runner)
        }
        let dropper = try PostgresStoreSet(url: databaseURL, logger: logger)
        _ = try await dropper.withRunning { try await $0.client.query("DROP SCHEMA \(unescaped: schema) CASCADE") }
        let sqliteArchiveFolder = FileManager.default.temporaryDirectory.appending(path: "bench_archive_\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: sqliteArchiveFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: sqliteArchiveFolder) }
        try await archiveBenchmarks(
            "SQLite: ", try SQLiteStoreSet(path: sqliteArchiveFolder.appending(path: "bench.sqlite").path, logger: logger),
            tweets: tweets10k, runner: &runner)

        // MARK: Word counts
        let store = RedisWordCounts(connection: RedisConnection(url: redisURL), keyPrefix: "bench_\(UUID().uuidString.prefix(8)):")
        let learnBatch = features.enumerated().map { ($0.element, $0.offset % 3 == 0 ? Category.favorite : Category.normal) }
        try await runner.measure(
            "learn 1,600 tweets (1 round trip)", items: 1_600, unit: "tweets", target: "< 200 ms",
            prepare: { try await store.removeAll() }
        ) {
            try await store.learn(batch: learnBatch.map { (features: $0.0, category: $0.1) })
        }
        try await runner.measure(
            "learn 1,600 tweets (1 round trip each)", items: 1_600, unit: "tweets", target: "(daemon path)",
            prepare: { try await store.removeAll() }
        ) {
            for (postFeatures, category) in learnBatch { try await store.learn(postFeatures, as: category) }
        }
        let readSets = Array(features.prefix(1_000))
        try await runner.measure("read counts for 1,000 tweets (1 round trip)", items: 1_000, unit: "tweets", target: "(a timeline page)") {
            _ = try await store.counts(forEach: readSets)
        }
        try await runner.measure("read counts for 1,000 tweets (1 round trip each)", items: 1_000, unit: "tweets", target: "(per tweet)") {
            for set in readSets { _ = try await store.counts(for: set) }
        }
        try await store.removeAll()

        // MARK: Word counts in the embedded SQLite file (issue 7: within 2x of Redis)
        let sqliteFolder = FileManager.default.temporaryDirectory.appending(path: "bench_sqlite_\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: sqliteFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: sqliteFolder) }
        let sqlite = try SQLiteWordCounts(path: sqliteFolder.appending(path: "bench.sqlite").path)
        try await runner.measure(
            "SQLite: learn 1,600 tweets (1 transaction)", items: 1_600, unit: "tweets", target: "within 2x of Redis",
            prepare: { try await sqlite.removeAll() }
        ) {
            try await sqlite.learn(batch: learnBatch.map { (features: $0.0, category: $0.1) })
        }
        try await runner.measure("SQLite: read counts for 1,000 tweets (1 read)", items: 1_000, unit: "tweets", target: "within 2x of Redis") {
            _ = try await sqlite.counts(forEach: readSets)
        }
        try await runner.measure("SQLite: read counts for 1,000 tweets (1 read each)", items: 1_000, unit: "tweets", target: "(per tweet)") {
            for set in readSets { _ = try await sqlite.counts(for: set) }
        }

        // MARK: Classifier end to end: tokenize, one round trip per batch of 1,000, the math
        let classifierStore = RedisWordCounts(connection: RedisConnection(url: redisURL), keyPrefix: "bench_classify_\(UUID().uuidString.prefix(8)):")
        let classifier = FavoriteClassifier(store: classifierStore, tokenizer: tokenizer, threshold: 3)
        let training = tweets10k.prefix(1_600).enumerated().map {
            FavoriteClassifier.Post(text: $0.element, authorUsername: "user\($0.offset % 50)")
        }
        try await runner.measure(
            "learn 1,600 tweets through the classifier", items: 1_600, unit: "tweets", target: "< 200 ms",
            prepare: { try await classifierStore.removeAll() }
        ) {
            try await classifier.learn(Array(training.prefix(500)), as: .favorite)
            try await classifier.learn(Array(training.dropFirst(500)), as: .normal)
        }
        let toClassify = tweets10k.enumerated().map { FavoriteClassifier.Post(text: $0.element, authorUsername: "user\($0.offset % 70)") }
        var liked = 0
        try await runner.measure("classify 10,000 tweets end to end", items: 10_000, unit: "tweets", target: ">= 20,000 tweets/s") {
            liked = 0
            for start in stride(from: 0, to: toClassify.count, by: 1_000) {
                liked += try await classifier.classify(Array(toClassify[start..<start + 1_000])).filter(\.isFavorite).count
            }
        }
        print("  (\(liked) of 10,000 liked at threshold 3)")
        try await classifierStore.removeAll()

        // MARK: Archive import: 100,000 tweets and 20,000 likes from an export folder
        let exportFolder = FileManager.default.temporaryDirectory.appending(path: "bench-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: exportFolder.appending(path: "data"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: exportFolder) }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func jsonString(_ text: String) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed]), as: UTF8.self).dropFirst().dropLast()
                .description
        }
        for part in 0..<2 {  // two files, as large exports are split
            var js = "window.YTD.tweets.part\(part) = [\n"
            for index in (part * 50_000)..<((part + 1) * 50_000) {
                let text = jsonString(tweets10k[index % 10_000] + " \(index)")
                let date = "Sat \(months[index % 12]) \(10 + index % 18) \(10 + index % 14):\(10 + index % 50):07 +0000 \(2012 + index % 12)"
                js +=
                    (index == part * 50_000 ? "" : ",\n")
                    + #"{"tweet": {"id_str": "\#(100_000_000 + index)", "id": "\#(100_000_000 + index)", "full_text": \#(text), "#
                    + #""created_at": "\#(date)", "entities": {"urls": []}, "retweeted": false\#(index % 6 == 0 ? #", "in_reply_to_user_id_str": "42""# : "")}}"#
            }
            try (js + "\n]").write(to: exportFolder.appending(path: "data/tweets\(part == 0 ? "" : "-part1").js"), atomically: true, encoding: .utf8)
        }
        var likesJS = "window.YTD.like.part0 = [\n"
        for index in 0..<20_000 {
            likesJS +=
                (index == 0 ? "" : ",\n")
                + #"{"like": {"tweetId": "\#(900_000_000 + index)", "fullText": \#(jsonString(tweets10k[(index * 7) % 10_000]))}}"#
        }
        try (likesJS + "\n]").write(to: exportFolder.appending(path: "data/like.js"), atomically: true, encoding: .utf8)
        let importSchema = "bench_import_" + UUID().uuidString.prefix(8).lowercased()
        let importAdmin = try PostgresStoreSet(url: databaseURL, logger: logger)
        _ = try await importAdmin.withRunning { try await $0.client.query("CREATE SCHEMA \(unescaped: importSchema)") }
        let importStore = RedisWordCounts(connection: RedisConnection(url: redisURL), keyPrefix: "bench_import_\(UUID().uuidString.prefix(8)):")
        try await PostgresStoreSet(url: databaseURL, schema: importSchema, logger: logger).withRunning { database in
            try await importBenchmark("", database, store: importStore, tokenizer: tokenizer, export: exportFolder, runner: &runner)
        }
        try await importStore.removeAll()
        let importDropper = try PostgresStoreSet(url: databaseURL, logger: logger)
        _ = try await importDropper.withRunning { try await $0.client.query("DROP SCHEMA \(unescaped: importSchema) CASCADE") }
        let sqliteImportFile = sqliteArchiveFolder.appending(path: "import.sqlite").path
        try await importBenchmark(
            "SQLite: ", try SQLiteStoreSet(path: sqliteImportFile, logger: logger),
            store: try SQLiteWordCounts(path: sqliteImportFile), tokenizer: tokenizer, export: exportFolder, runner: &runner)

        print(String(format: "Peak memory: %.1f MiB", BenchmarkRunner.peakMemoryMiB))
    }

    /// The archive's benchmarks on `database` (Postgres or SQLite), each name prefixed with `label`.
    static func archiveBenchmarks(_ label: String, _ database: any StoreSet, tweets tweets10k: [String], runner: inout BenchmarkRunner) async throws {
        try await database.migrations.migrate()
        let archive = database.archive(timeZone: TimeZone(identifier: "Asia/Tokyo")!, rowLimit: 10_000)
        try await archive.prepare()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let batch: [ArchivedPost] = (0..<3_200).map { (index: Int) -> ArchivedPost in
            let replyUserID: AccountID? = index % 5 == 0 ? AccountID(index % 40) : nil
            let createdAt = start.addingTimeInterval(Double(index) * 1_700)
            return ArchivedPost(
                postID: PostID(1_000_000 + index), text: tweets10k[index],
                replyUserID: replyUserID, createdAt: createdAt)
        }
        try await runner.measure(
            "\(label)archive insert 3,200 tweets (1 batch)", items: 3_200, unit: "tweets", target: "< 500 ms",
            prepare: { try await archive.removeAll() }
        ) {
            try await archive.insert(batch)
        }
        try await runner.measure(
            "\(label)archive insert 3,200 tweets (32 pages of 100)", items: 3_200, unit: "tweets", target: "< 500 ms",
            prepare: { try await archive.removeAll() }
        ) {
            for page in stride(from: 0, to: 3_200, by: 100) { try await archive.insert(Array(batch[page..<page + 100])) }
        }
        try await runner.measure("\(label)archive insert 3,200 again (all duplicates)", items: 3_200, unit: "tweets", target: "(skips)") {
            try await archive.insert(batch)
        }
        try await runner.measure("\(label)minute histogram of 3,200 tweets", items: 1, unit: "queries", target: "(once a day)") {
            _ = try await archive.minuteHistogram()
        }
        let tenThousand: [ArchivedPost] = (0..<10_000).map { (index: Int) -> ArchivedPost in
            let replyUserID: AccountID? = index % 5 == 0 ? AccountID(index % 40) : nil
            let createdAt = start.addingTimeInterval(Double(index) * 1_700 + Double(index % 97) * 60)
            return ArchivedPost(postID: PostID(5_000_000 + index), text: tweets10k[index], replyUserID: replyUserID, createdAt: createdAt)
        }
        let bigArchive = database.archive(timeZone: archive.timeZone, rowLimit: 10_000)
        try await bigArchive.removeAll()
        try await bigArchive.insert(tenThousand)
        let planner = SchedulePlanner(archive: bigArchive, maxPostsPerDay: 50)
        var planGenerator = SplitMix64(seed: 3)
        try await runner.measure("\(label)schedule from a 10,000-row archive (with SQL)", items: 1, unit: "plans", target: "< 50 ms") {
            _ = try await planner.plan(for: "2026-11-22", using: &planGenerator)
        }
        var generator = SplitMix64(seed: 1)
        try await runner.measure("\(label)sample 96 tweets in ±30 min windows", items: 96, unit: "samples", target: "(at each post)") {
            for minute in stride(from: 0, to: 1440, by: 15) {
                _ = try await archive.randomPost(nearMinute: minute, radius: 30, using: &generator)
            }
        }
    }

    /// Importing 100,000 tweets and 20,000 likes from the export folder into `database` and `store`.
    static func importBenchmark(
        _ label: String, _ database: any StoreSet, store importStore: any WordCountBackend, tokenizer: PostTokenizer,
        export exportFolder: URL, runner: inout BenchmarkRunner
    ) async throws {
        try await database.migrations.migrate()
        let archive = database.archive(timeZone: TimeZone(identifier: "Asia/Tokyo")!, rowLimit: 200_000)
        try await archive.prepare()
        let importer = ArchiveImporter(
            formats: NetworkRegistry.exportFormats, archive: archive,
            classifier: FavoriteClassifier(store: importStore, tokenizer: tokenizer, threshold: 3))
        var report = ImportReport(network: "X")
        try await runner.measure(
            "\(label)import 100,000 tweets + 20,000 likes", items: 120_000, unit: "entries", target: "< 10 s",
            iterations: 3,
            prepare: {
                try await archive.removeAll()
                try await importStore.removeAll()
            }
        ) {
            report = try await importer.importExport(at: exportFolder.path)
        }
        precondition(report.postsStored == 100_000 && report.likesLearned == 20_000, "unexpected import: \(report)")
    }
}
