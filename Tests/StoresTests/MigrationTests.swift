import Foundation
import PostgresNIO
import SQLiteStores
import Stores
import TestSupport
import Testing

@testable import PostgresStores

@Suite("Migrations")
struct MigrationTests {
    @Test("The bundled migrations come from Migrations/ (Postgres) and Migrations/sqlite/, numbered and in order")
    func bundledMigrations() {
        #expect(PostgresMigrations.bundled.map(\.version) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15])
        #expect(PostgresMigrations.bundled.first?.name == "create_tweets")
        #expect(PostgresMigrations.bundled.allSatisfy { !SQLStatements.split($0.sql).isEmpty })
        #expect(
            SQLiteMigrations.bundled.map(\.name) == [
                "archive", "word_counts", "training_examples", "links_and_usage", "content_warnings", "learned_weeks",
                "pending_mentions", "unchecked_posts", "network_ids", "like_plans", "text_ids",
            ])
        #expect(SQLiteMigrations.bundled.map(\.version) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    }

    @Test("Migrating a fresh database applies everything once; running again is a no-op", arguments: StoreBackends.databases)
    func freshDatabase(_ backend: StoreBackends.ArchiveKind) async throws {
        try await TestServers.withIsolatedDatabase(backend, migrated: false) { database async throws in
            let expected = database.migrations.all.map(\.version)
            #expect(!expected.isEmpty)
            #expect(try await database.migrations.pending().map(\.version) == expected)
            let first = try await database.migrations.migrate()
            #expect(first.map(\.version) == expected)
            let second = try await database.migrations.migrate()
            #expect(second.isEmpty)
            #expect(try await database.migrations.appliedVersions() == expected)
            #expect(try await database.migrations.pending().isEmpty)
        }
    }

    @Test("Two migrations running at once apply each migration exactly once")
    func concurrentMigrations() async throws {
        try await TestServers.withIsolatedDatabase(migrated: false) { database async throws in
            async let first = database.migrations.migrate()
            async let second = database.migrations.migrate()
            let applied = try await first.count + second.count
            #expect(applied == PostgresMigrations.bundled.count)
            #expect(try await database.migrations.appliedVersions() == PostgresMigrations.bundled.map(\.version))
        }
    }

    @Test("A failing migration leaves nothing of itself behind and is reported by name")
    func failingMigrationRollsBack() async throws {
        try await TestServers.withIsolatedDatabase(migrated: false) { database async throws in
            let broken = Migration(version: 99, name: "broken", sql: "CREATE TABLE half_done (id int); SELECT * FROM no_such_table;")
            let error = try await #require(throws: ArchiveError.self) {
                try await PostgresMigrations(database: database, migrations: PostgresMigrations.bundled + [broken]).migrate()
            }
            #expect(error.description.contains("migration 99 (broken)"))
            #expect(error.description.contains("no_such_table"))
            #expect(try await database.migrations.appliedVersions() == PostgresMigrations.bundled.map(\.version))
            let rows = try await database.client.query("SELECT to_regclass('half_done')::text", logger: TestServers.logger)
            for try await name in rows.decode(String?.self) { #expect(name == nil) }
        }
    }

    @Test("A database of the original Ruby bot is adopted with its rows kept")
    func adoptsOriginalDatabase() async throws {
        try await TestServers.withIsolatedDatabase(migrated: false) { database async throws in
            let logger = TestServers.logger
            // What Sequel created for the original: its table, varchar(255) text and zone-less timestamps.
            for statement in [
                "CREATE TABLE schema_info (version integer DEFAULT 0 NOT NULL)",
                "INSERT INTO schema_info VALUES (1)",
                """
                CREATE TABLE tweets (id serial PRIMARY KEY, tweet_id bigint, text varchar(255), minute integer,
                                     reply_user_id bigint, created_at timestamp)
                """,
                """
                INSERT INTO tweets (tweet_id, text, minute, reply_user_id, created_at) VALUES
                  (100, 'おはよう', 999, NULL, '2014-05-01 22:30:00'),
                  (101, '@friend それな', 999, 42, '2014-05-02 03:15:00'),
                  (100, 'おはよう', 999, NULL, '2014-05-01 22:30:00'),
                  (102, 'おやすみ', 999, NULL, '2014-05-02 14:59:00')
                """,
            ] {
                try await database.client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }

            #expect(try await database.migrations.migrate().map(\.version) == PostgresMigrations.bundled.map(\.version))
            let archive = database.archive(timeZone: TimeZone(identifier: "Asia/Tokyo")!, rowLimit: 10_000)
            try await archive.prepare()

            // Every distinct post is kept; the duplicate row of the original is gone.
            #expect(try await archive.count() == 3)
            let posts = try await archive.newest(limit: 10)
            #expect(posts.map(\.postID) == [102, 101, 100])
            #expect(posts[1].replyUserID == 42)
            // The original's times were UTC: 2014-05-01 22:30 UTC is 07:30 in Tokyo.
            #expect(posts[2].createdAt == Date(timeIntervalSince1970: 1_398_983_400))
            let histogram = try await archive.minuteHistogram()
            #expect(histogram[7 * 60 + 30] == 1)  // 22:30 UTC
            #expect(histogram[12 * 60 + 15] == 1)  // 03:15 UTC
            #expect(histogram[23 * 60 + 59] == 1)  // 14:59 UTC, minute 1439, which the original skipped
            #expect(histogram.reduce(0, +) == 3)

            // Posts longer than the original's varchar(255) fit now, and Sequel's table is left alone.
            let long = String(repeating: "長", count: 280)
            #expect(try await archive.insert([ArchivedPost(postID: 103, text: long, createdAt: Date())]) == 1)
            let rows = try await database.client.query("SELECT version FROM schema_info", logger: logger)
            for try await version in rows.decode(Int.self) { #expect(version == 1) }
        }
    }
}

@Suite("Splitting migration files into statements")
struct SQLStatementsTests {
    @Test("Semicolons inside strings, identifiers, comments and dollar quotes do not split")
    func quoting() {
        let sql = """
            -- a comment; not a statement
            CREATE TABLE "odd;name" (note text DEFAULT 'it''s; fine');
            /* block; /* nested; */ still comment */
            CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
            SELECT $$;$$;
            ;
            """
        #expect(
            SQLStatements.split(sql) == [
                "CREATE TABLE \"odd;name\" (note text DEFAULT 'it''s; fine')",
                "CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql",
                "SELECT $$;$$",
            ])
    }

    @Test("A file of comments only has no statements")
    func commentsOnly() {
        #expect(SQLStatements.split("-- nothing\n/* at all */\n").isEmpty)
    }
}
