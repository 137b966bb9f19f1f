import Foundation
import GRDB
import SQLiteStores
import Stores
import Testing
import TestSupport

/// A value in an SQLite store that does not convert to what is read (a date past 9999 stored by an older version, a
/// value written by hand) is reported and its row skipped; it never ends the process (GRDB's subscripts trap on it).
@Suite("SQLite rows that cannot be read")
struct SQLiteUnreadableRowTests {
    static let postedAt = Date(timeIntervalSince1970: 1_795_302_000)

    @Test("A slot whose posted_at is no date (year 99999, or text) is skipped and logged by uncheckedPosts and slots(of:); the good rows are read (issue 43)",
          arguments: ["99999-01-01 00:00:00.000", "not a date"])
    func badPostedAtSkipped(_ stored: String) async throws {
        try await TestServers.withTemporaryFolder { folder async throws in
            let path = folder.appending(path: "mirror_bot.sqlite").path
            let log = LogRecorder()
            let database = try SQLiteStoreSet(path: path, logger: log.logger())
            try await database.migrations.migrate()
            let plans = database.plans
            _ = try await plans.storePlan(day: "2026-11-22", timeZone: "UTC", minutes: [480, 600, 720], drawnAt: Self.postedAt)
            for (minute, source) in [(480, Int64(101)), (600, 102)] {
                try await plans.markPosted(day: "2026-11-22", minute: minute, sourceTweetID: source, botTweetID: source + 9_000,
                                           postedAt: Self.postedAt.addingTimeInterval(Double(minute) * 60), reason: "copied", unchecked: true)
            }
            // As `start --start-time 99999-01-01T00:00:00Z` left it: written around the store, by SQL.
            let writer = try DatabaseQueue(path: path)
            try await writer.write { db in
                try db.execute(sql: "UPDATE plan_slots SET posted_at = ? WHERE day = '2026-11-22' AND minute = 600", arguments: [stored])
            }
            try writer.close()

            let unchecked = try await plans.uncheckedPosts()
            #expect(unchecked.map(\.minute) == [480])
            #expect(unchecked.first?.sourceTweetID == 101)
            let slots = try #require(try await plans.slots(of: "2026-11-22"))
            #expect(slots.map(\.minute) == [480, 720])
            #expect(!log.lines(containing: "Skipped a row of the posts whose original was not checked").isEmpty, "\(log.lines)")
            #expect(!log.lines(containing: "Skipped a row of the plan of 2026-11-22").isEmpty, "\(log.lines)")
        }
    }

    @Test("A post kept to like whose posted_at is no date (year 99999) is skipped and logged; the others are read, and liking goes on (issue 43)")
    func badCandidateSkipped() async throws {
        try await TestServers.withTemporaryFolder { folder async throws in
            let path = folder.appending(path: "mirror_bot.sqlite").path
            let log = LogRecorder()
            let database = try SQLiteStoreSet(path: path, logger: log.logger())
            try await database.migrations.migrate()
            try await database.likes.keepCandidates([1, 2].map {
                LikeCandidate(postID: $0, authorID: nil, authorHandle: nil, logRatio: Double($0), reason: "kept", postedAt: Self.postedAt)
            })
            let writer = try DatabaseQueue(path: path)
            try await writer.write { db in
                try db.execute(sql: "UPDATE like_candidates SET posted_at = '99999-01-01 00:00:00.000' WHERE post_id = 2")
            }
            try writer.close()
            let kept = try await database.likes.candidates(postedSince: Self.postedAt.addingTimeInterval(-3_600))
            #expect(kept.map(\.postID) == [1])
            #expect(!log.lines(containing: "Skipped a row of the posts kept to like").isEmpty, "\(log.lines)")
        }
    }
}
