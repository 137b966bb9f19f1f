import BotClock
import BotConfiguration
import BotCore
import Foundation
import Logging
import PostgresNIO
import PostgresStores
import RedisClient
import RedisWordCounts
import SQLiteStores
import SeededRandom
import Stores
import Synchronization
import WordCounts

/// A year of learning, to see that the stores stay within small plans: each day the bot learns what 200 followed
/// accounts post (10 each: 2,000 timeline posts as `normal`) and 15 of the person's likes, records the training
/// examples, 10 mentions, 15 likes and a plan of 20 posts, and runs the daily housekeeping, as the daemon does. Words
/// follow a Zipf law over 50,000 nouns, so new features keep coming all year. At the end it prints Redis's memory
/// (against heroku-redis:mini's 25 MB), the Postgres tables' size (against essential-0's 1 GB) and the SQLite file's.
///
/// Needs MIRROR_BOT_TEST_DATABASE_URL and MIRROR_BOT_TEST_STATS_REDIS_URL (a Redis no one else uses), as
/// `script/bench-storage` starts them. DAYS shortens the year.
@main
struct StorageYear {
    static let followed = 200, postsPerAccount = 10, likesPerDay = 15, vocabulary = 50_000

    final class Today: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_767_225_600))  // 2026-01-01
        var now: Date { date.withLock { $0 } }
        func next() { date.withLock { $0 = $0.addingTimeInterval(86_400) } }
    }

    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let databaseText = environment["MIRROR_BOT_TEST_DATABASE_URL"], let databaseURL = DatabaseURL(databaseText),
            let redisText = environment["MIRROR_BOT_TEST_STATS_REDIS_URL"], let redisURL = RedisURL(redisText)
        else {
            print("Set MIRROR_BOT_TEST_DATABASE_URL and MIRROR_BOT_TEST_STATS_REDIS_URL (script/bench-storage starts them).")
            exit(2)
        }
        let days = Int(environment["DAYS"] ?? "") ?? 365
        var logger = Logger(label: "storage-year")
        logger.logLevel = .warning
        let today = Today()

        // Postgres in a schema of its own; Redis under a prefix, on a Redis no one else uses; the SQLite file apart.
        let schema = "storage_year_" + UUID().uuidString.prefix(8).lowercased()
        let admin = try PostgresStoreSet(url: databaseURL, logger: logger)
        _ = try await admin.withRunning { try await $0.client.query("CREATE SCHEMA \(unescaped: schema)") }
        let connection = RedisConnection(url: redisURL)
        try await connection.send("FLUSHDB")
        let redis = RedisWordCounts(connection: connection, keyPrefix: "", now: { today.now })
        let folder = FileManager.default.temporaryDirectory.appending(path: "storage-year-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqliteFile = folder.appending(path: "mirror_bot.sqlite").path
        let sqlite = try SQLiteStoreSet(path: sqliteFile, logger: logger)
        let sqliteCounts = try sqlite.sharedWordCounts(now: { today.now })!
        try await sqlite.migrations.migrate()
        let started = ContinuousClock.now

        try await PostgresStoreSet(url: databaseURL, schema: schema, logger: logger).withRunning { postgres in
            try await postgres.migrations.migrate()
            var random = SplitMix64(seed: 2026)
            var nextID: Int64 = 1
            for day in 0..<days {
                let now = today.now
                var normals: [(id: String, features: [String])] = []
                var examples: [TrainingExample] = []
                for _ in 0..<(Self.followed * Self.postsPerAccount) {
                    let author = "@writer_\(Int.random(in: 0..<Self.followed, using: &random))"
                    let words = (0..<6).map { _ in "語\(Self.zipf(Self.vocabulary, using: &random))" }
                    normals.append((String(nextID), words + [author]))
                    examples.append(
                        TrainingExample(
                            postID: String(nextID), text: words.joined(separator: "、") + "の話", author: author,
                            label: "normal", source: "timeline", learnedAt: now))
                    nextID += 1
                }
                let favorites = normals.prefix(Self.likesPerDay).map { ($0.id, $0.features) }
                for store in [redis as any WordCountBackend, sqliteCounts] {
                    try await store.learnNormalsOnce(normals)
                    try await store.learnFavoritesOnce(favorites)
                }
                for database in [postgres, sqlite] as [any StoreSet] {
                    try await Self.recordADay(day, on: database, examples: examples, firstID: nextID, at: now)
                    _ = try await database.retention.prune(at: now, policy: RetentionPolicy())
                }
                _ = try await redis.forgetOldNormalMarkers()
                _ = try await sqliteCounts.forgetOldNormalMarkers()
                // Postgres's autovacuum runs on its own clock (a minute), and a simulated day is a fifth of a second:
                // what it would have done in a real day is done here, so that freed space is reused as it would be.
                _ = try await postgres.client.query("VACUUM")
                if day % 30 == 29 {
                    print(
                        "day \(day + 1): \(try await Self.redisMemory(connection)) Redis, \(try await Self.postgresSize(postgres, schema: schema)) Postgres"
                    )
                }
                today.next()
            }
            let keys = try await connection.send("DBSIZE").integerValue ?? 0
            print("")
            print(
                "After \(days) days (\(Self.followed) followed accounts × \(Self.postsPerAccount) posts a day learned, \(Self.likesPerDay) likes a day), in \(ContinuousClock.now - started):"
            )
            print("  Redis:    \(try await Self.redisMemory(connection)) used (\(keys) keys); heroku-redis:mini holds 25 MB")
            print("            \(try await Self.redisBreakdown(connection, redis))")
            print("  Postgres: \(try await Self.postgresSize(postgres, schema: schema)) in the tables; essential-0 holds 1 GB")
            print("            \(try await Self.postgresTables(postgres, schema: schema))")
            let bytes = ["", "-wal"].compactMap { try? FileManager.default.attributesOfItem(atPath: sqliteFile + $0)[.size] as? Int }.reduce(0, +)
            print("  SQLite:   \(Self.megabytes(bytes)) in the file and its write-ahead log (archive, counts and records in one file)")
            print("  Training examples kept: \(try await postgres.examples.count()) of \(Int(nextID - 1) + days * Self.likesPerDay) learned")
        }
        // A pool runs once: dropping takes a new one.
        _ = try await PostgresStoreSet(url: databaseURL, logger: logger).withRunning {
            try await $0.client.query("DROP SCHEMA \(unescaped: schema) CASCADE")
        }
        try await connection.send("FLUSHDB")
    }

    /// One day's records beside the learning: the examples, 10 mentions answered, 15 likes, a plan of 20 posted slots.
    static func recordADay(_ day: Int, on database: any StoreSet, examples: [TrainingExample], firstID: Int64, at now: Date) async throws {
        try await database.examples.record(examples)
        let mentions = database.mentions
        let likes = database.likes
        let plans = database.plans
        for index in 0..<10 {
            let id = firstID * 100 + Int64(index)
            _ = try await mentions.begin(mentionID: PostID(id), authorID: AccountID(index), conversationID: PostID(id), at: now)
            try await mentions.finish(
                mentionID: PostID(id), state: .replied, replyPostID: PostID(id + 50), sourcePostID: 1, reason: "a past reply of the human")
        }
        for index in 0..<Self.likesPerDay {
            _ = try await likes.recordLike(
                postID: PostID(firstID * 100 + 20 + Int64(index)), authorID: 1, logRatio: 1.5, reason: "log ratio 1.50 > 1.10 (語1, 語2)", at: now)
        }
        _ = try await plans.storePlan(
            day: LocalTime.utcDay(of: now), timeZone: "UTC", minutes: Array(stride(from: 420, to: 1_420, by: 50)), drawnAt: now)
        for minute in stride(from: 420, to: 1_420, by: 50) {
            _ = try await plans.claim(day: LocalTime.utcDay(of: now), minute: minute)
            try await plans.markPosted(
                day: LocalTime.utcDay(of: now), minute: minute, sourcePostID: PostID(minute), botPostID: PostID(firstID * 100 + Int64(minute)),
                postedAt: now, reason: "the human's post")
        }
    }

    /// A number from 1 to `count`, Zipf-distributed (exponent 1): a few words are everywhere, most are rare.
    static func zipf(_ count: Int, using random: inout SplitMix64) -> Int {
        let harmonic = log(Double(count)) + 0.5772
        let target = Double.random(in: 0..<1, using: &random) * harmonic
        return max(1, min(count, Int(exp(target - 0.5772))))
    }

    static func redisMemory(_ connection: RedisConnection) async throws -> String {
        let info = try await connection.send("INFO", "memory").stringValue ?? ""
        let used =
            info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("used_memory:") }.flatMap { Int($0.dropFirst("used_memory:".count)) } ?? 0
        return megabytes(used)
    }

    /// Where Redis's memory is: the dataset, Lua, the marker sets, a sample of feature hashes.
    static func redisBreakdown(_ connection: RedisConnection, _ store: RedisWordCounts) async throws -> String {
        let info = try await connection.send("INFO", "memory").stringValue ?? ""
        func field(_ name: String) -> Int {
            info.split(whereSeparator: \.isNewline).first { $0.hasPrefix(name + ":") }.flatMap { Int($0.dropFirst(name.count + 1)) } ?? 0
        }
        var markers = 0
        let keys = try await connection.send("KEYS", "learned:*").arrayValue?.compactMap(\.stringValue) ?? []
        for key in keys { markers += Int(try await connection.send("MEMORY", "USAGE", key).integerValue ?? 0) }
        var sample = 0
        for rank in [1, 10, 100, 1_000, 10_000] {
            sample += Int(try await connection.send("MEMORY", "USAGE", store.featureKey("語\(rank)")).integerValue ?? 0)
        }
        return
            "dataset \(megabytes(field("used_memory_dataset"))), overhead \(megabytes(field("used_memory_overhead"))), Lua \(megabytes(field("used_memory_lua") + field("used_memory_scripts"))), \(keys.count) marker sets \(megabytes(markers)), a feature hash ~\(sample / 5) bytes"
    }

    static func postgresSize(_ database: PostgresStoreSet, schema: String) async throws -> String {
        let rows = try await database.client.query(
            """
            SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = \(schema) AND c.relkind = 'r'
            """)
        var total: Int64 = 0
        for try await size in rows.decode(Int64.self) { total = size }
        return megabytes(Int(total))
    }

    /// The largest tables and their sizes.
    static func postgresTables(_ database: PostgresStoreSet, schema: String) async throws -> String {
        let rows = try await database.client.query(
            """
            SELECT c.relname, pg_total_relation_size(c.oid)::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = \(schema) AND c.relkind = 'r' ORDER BY 2 DESC LIMIT 4
            """)
        var parts: [String] = []
        for try await (name, size) in rows.decode((String, Int64).self) { parts.append("\(name) \(megabytes(Int(size)))") }
        return parts.joined(separator: ", ")
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
}
