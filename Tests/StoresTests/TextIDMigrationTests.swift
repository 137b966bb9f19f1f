import BotCore
import Consent
import Foundation
import GRDB
import PostgresNIO
import PostgresStores
import SQLiteStores
import SeededRandom
import Stores
import TestSupport
import Testing

/// Migration 0015 (Postgres) and 0011 (SQLite): ids become text. A database as the previous release left it (every
/// migration but the last applied, rows written as it wrote them: ids as 64-bit numbers, Misskey's numbered in
/// `network_ids`) is migrated; every row is kept, numbers keep their value as text, Misskey's numbers become the ids
/// they stood for, and the stores read and write it.
@Suite("Ids as text: a previous release's database migrated")
struct TextIDMigrationTests {
    /// The previous release's rows, in either database's words for times and truth.
    static func previousReleaseRows(time: (String) -> String, yes: String) -> [String] {
        let misskeyNote = "865432109876543210"  // a note's number, as the previous release made it
        let misskeyMention = "865432109876549999"
        let misskeyFriend = "7123456789012345678"  // a user's number
        return [
            "INSERT INTO tweets (tweet_id, text, reply_user_id, created_at) VALUES (100, 'おはよう', NULL, \(time("2026-11-20 00:30:00")))",
            "INSERT INTO tweets (tweet_id, text, reply_user_id, created_at) VALUES (101, '@friend それな', 42, \(time("2026-11-20 03:15:00")))",
            "INSERT INTO tweets (tweet_id, text, reply_user_id, created_at) VALUES (1000000000000000123, 'おやすみ', NULL, \(time("2026-11-20 14:00:00")))",
            "INSERT INTO tweets (tweet_id, text, reply_user_id, created_at) VALUES (\(misskeyNote), '@friend わかる', \(misskeyFriend), \(time("2026-11-20 15:00:00")))",
            "INSERT INTO bot_posts (source_tweet_id, bot_tweet_id, posted_at) VALUES (100, 5000, \(time("2026-11-21 00:30:00")))",
            "INSERT INTO day_plans (day, time_zone, drawn_at) VALUES ('2026-11-21', 'Asia/Tokyo', \(time("2026-11-20 15:00:00")))",
            """
            INSERT INTO plan_slots (day, minute, state, source_tweet_id, bot_tweet_id, reason, posted_at)
            VALUES ('2026-11-21', 510, 'posted', 101, 5001, 'the human''s post', \(time("2026-11-21 00:30:00")))
            """,
            """
            INSERT INTO mention_replies (mention_tweet_id, author_id, conversation_id, state, reply_tweet_id, source_tweet_id, reason, handled_at)
            VALUES (7000, 42, 7000, 'replied', 5002, 101, 'a past reply of the human to @friend', \(time("2026-11-21 01:00:00")))
            """,
            """
            INSERT INTO mention_replies (mention_tweet_id, author_id, conversation_id, state, reply_tweet_id, source_tweet_id, reason, handled_at)
            VALUES (\(misskeyMention), \(misskeyFriend), \(misskeyMention), 'skipped', NULL, NULL, 'dry run', \(time("2026-11-21 02:00:00")))
            """,
            "INSERT INTO bot_likes (tweet_id, author_id, log_ratio, reason, liked_at) VALUES (8000, 43, 1.5, 'log ratio 1.50', \(time("2026-11-21 03:00:00")))",
            "INSERT INTO person_likes (post_id, liked_at, exact) VALUES (9000, \(time("2026-11-19 03:00:00")), \(yes))",
            "INSERT INTO like_plans (day, drawn_at) VALUES ('2026-11-21', \(time("2026-11-20 15:00:00")))",
            """
            INSERT INTO like_slots (day, minute, state, post_id, log_ratio, reason, done_at)
            VALUES ('2026-11-21', 720, 'liked', 8000, 1.5, 'log ratio 1.50', \(time("2026-11-21 03:00:00")))
            """,
            """
            INSERT INTO like_candidates (post_id, author_id, author_handle, log_ratio, reason, posted_at)
            VALUES (8001, 44, 'carol', 1.2, 'log ratio 1.20', \(time("2026-11-21 02:00:00")))
            """,
            """
            INSERT INTO training_examples (tweet_id, text, author, label, source, learned_at)
            VALUES ('\(misskeyNote)', '@friend わかる', NULL, 'normal', 'timeline', \(time("2026-11-20 16:00:00")))
            """,
            "INSERT INTO network_ids (number, id) VALUES (\(misskeyNote), 'alrb9x1a2b3c4d5e')",
            "INSERT INTO network_ids (number, id) VALUES (\(misskeyMention), 'alrbmention00001')",
            "INSERT INTO network_ids (number, id) VALUES (\(misskeyFriend), 'user:9xfriend0001')",
            "INSERT INTO bot_state (name, value) VALUES ('mentions.since_id', '\(misskeyMention)')",
            "INSERT INTO bot_state (name, value) VALUES ('human.tweets.since_id', '1000000000000000123')",
            """
            INSERT INTO bot_state (name, value) VALUES ('optout.id:\(misskeyFriend)',
              '{"accountID":"\(misskeyFriend)","at":"2026-11-21T02:00:00Z","handle":"friend","reason":"asked the bot to stop"}')
            """,
        ]
    }

    /// The tables whose rows are counted before and after (every one the migration rebuilds or rewrites).
    static let tables = [
        "tweets", "bot_posts", "day_plans", "plan_slots", "mention_replies", "bot_likes", "person_likes", "like_plans", "like_slots",
        "like_candidates", "training_examples", "bot_state",
    ]

    @Test("A Postgres database of the previous release: every row kept, numbers as text, Misskey's numbers their ids, network_ids gone")
    func postgres() async throws {
        try await TestServers.withIsolatedDatabase(migrated: false) { database async throws in
            let logger = TestServers.logger
            let previous = Array(PostgresMigrations.bundled.dropLast())
            #expect(previous.last?.version == 14)
            _ = try await PostgresMigrations(database: database, migrations: previous).migrate()
            for statement in Self.previousReleaseRows(time: { "'\($0)+00'" }, yes: "true") {
                try await database.client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            func counts() async throws -> [String: Int] {
                var counts: [String: Int] = [:]
                for table in Self.tables {
                    let rows = try await database.client.query(PostgresQuery(unsafeSQL: "SELECT count(*)::bigint FROM \(table)"), logger: logger)
                    for try await count in rows.decode(Int64.self) { counts[table] = Int(count) }
                }
                return counts
            }
            let before = try await counts()
            #expect(try await database.migrations.migrate().map(\.version) == [15])
            #expect(try await counts() == before)
            let rows = try await database.client.query("SELECT to_regclass('network_ids')::text", logger: logger)
            for try await name in rows.decode(String?.self) { #expect(name == nil, "network_ids is gone") }
            try await Self.expectMigrated(database)
        }
    }

    @Test("An SQLite file of the previous release: every row kept, numbers as text, Misskey's numbers their ids, network_ids gone")
    func sqlite() async throws {
        try await TestServers.withTemporaryFolder { folder async throws in
            let path = folder.appending(path: "mirror_bot.sqlite").path
            let database = try SQLiteStoreSet(path: path, logger: LogRecorder().logger())
            let previous = Array(SQLiteMigrations.bundled.dropLast())
            #expect(previous.last?.version == 10)
            _ = try await SQLiteMigrations(database: database, migrations: previous).migrate()
            let writer = try DatabaseQueue(path: path)
            try await writer.write { db in
                for statement in Self.previousReleaseRows(time: { "'\($0).000'" }, yes: "1") { try db.execute(sql: statement) }
            }
            func counts() async throws -> [String: Int] {
                try await writer.read { db in
                    var counts: [String: Int] = [:]
                    for table in Self.tables { counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") }
                    return counts
                }
            }
            // The numbers are stored as integers, as the previous release stored them.
            #expect(try await writer.read { db in try String.fetchOne(db, sql: "SELECT typeof(tweet_id) FROM tweets LIMIT 1") } == "integer")
            let before = try await counts()
            #expect(try await database.migrations.migrate().map(\.version) == [11])
            #expect(try await counts() == before)
            #expect(try await writer.read { db in try db.tableExists("network_ids") } == false)
            #expect(try await writer.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT typeof(tweet_id) FROM tweets") } == ["text"])
            try await Self.expectMigrated(database)
        }
    }

    /// What the stores read of the migrated rows, and that they go on working.
    static func expectMigrated(_ database: any StoreSet) async throws {
        let archive = database.archive(timeZone: TimeZone(identifier: "Asia/Tokyo")!, rowLimit: 10_000)
        try await archive.prepare()
        let posts = try await archive.newest(limit: 10)
        #expect(posts.map(\.postID) == ["alrb9x1a2b3c4d5e", "1000000000000000123", 101, 100])
        #expect(posts.map(\.replyUserID) == ["9xfriend0001", nil, 42, nil])
        #expect(try await archive.botCopies(of: 100) == [5000])
        #expect(try await archive.botCopies(of: 101) == [5001, 5002])
        // The person's reply to the Misskey friend is found under the friend's own id.
        var generator = SplitMix64(seed: 1)
        #expect(try await archive.randomReply(toUser: "9xfriend0001", using: &generator)?.postID == "alrb9x1a2b3c4d5e")
        let slots = try #require(try await database.plans.slots(of: "2026-11-21"))
        #expect(slots.map(\.sourcePostID) == [101] && slots.map(\.botPostID) == [5001])
        let mentions = try await database.mentions.handledMentions()
        #expect(mentions.map(\.mentionPostID) == [7000, "alrbmention00001"])
        #expect(mentions.map(\.authorID) == [42, "9xfriend0001"])
        #expect(try await database.mentions.outcome(of: 7000)?.replyPostID == 5002)
        #expect(try await database.mentions.answers(to: 42, since: .distantPast) == 1)
        #expect(try await database.likes.likedAmong([8000, 8001]) == [8000])
        #expect(try await database.likes.likes().map(\.authorID) == [43])
        #expect(try await database.likes.personLikes().map(\.postID) == [9000])
        #expect(try await database.likes.likeSlots(of: "2026-11-21")?.map(\.postID) == [8000])
        #expect(try await database.likes.candidates(postedSince: .distantPast).map(\.authorID) == [44])
        #expect(try await database.examples.all().map(\.postID) == ["alrb9x1a2b3c4d5e"])
        // The cursors and the opt-out follow: the newest mention read, by its id; the friend opted out, by theirs.
        #expect(try await database.state.value(of: "mentions.since_id") == "alrbmention00001")
        #expect(try await database.state.value(of: "human.tweets.since_id") == "1000000000000000123")
        #expect(try await OptOutList(state: database.state).contains(id: "9xfriend0001", handle: nil))
        // New rows with the networks' own ids go in beside the old.
        #expect(try await archive.insert([ArchivedPost(postID: "alrbnewnote00001", text: "新しい", createdAt: Date())]) == 1)
        #expect(try await database.likes.recordLike(postID: "alrbliked0000001", authorID: "9xfriend0001", logRatio: 2, reason: "r", at: Date()))
        #expect(try await archive.count() == 5)
    }
}
