import BotCore
import Foundation
import GRDB
import Stores

/// The day plans and their slots in SQLite.
struct SQLitePlanStore: PlanStore {
    let database: SQLiteStoreSet

    func slots(of day: String) async throws -> [PlanSlot]? {
        try await database.read("reading the plan of \(day)") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT s.minute, s.state, s.source_tweet_id, s.bot_tweet_id, s.reason, s.posted_at, s.posted_unchecked, s.original_checked_at
                    FROM day_plans p LEFT JOIN plan_slots s ON s.day = p.day WHERE p.day = ? ORDER BY s.minute
                    """, arguments: [day])
            guard !rows.isEmpty else { return nil }
            return database.decodedRows(rows, of: "the plan of \(day)") { row in
                try (row.decode(Int?.self, atIndex: 0)).map {
                    PlanSlot(
                        minute: $0, state: try row.decode(String?.self, atIndex: 1).flatMap(PlanSlot.State.init(rawValue:)) ?? .skipped,
                        sourcePostID: try row.decode(atIndex: 2), botPostID: try row.decode(atIndex: 3), reason: try row.decode(atIndex: 4),
                        postedAt: try row.decode(atIndex: 5), postedUnchecked: try row.decode(Bool?.self, atIndex: 6) ?? false,
                        originalCheckedAt: try row.decode(atIndex: 7))
                }
            }
        }
    }

    func drawnAt(of day: String) async throws -> Date? {
        try await database.read("reading when the plan of \(day) was drawn") { db in
            try Date.fetchOne(db, sql: "SELECT drawn_at FROM day_plans WHERE day = ?", arguments: [day])
        }
    }

    func storePlan(day: String, timeZone: String, minutes: [Int], drawnAt: Date) async throws -> [PlanSlot] {
        try await database.write("storing the plan of \(day)") { db in
            try db.execute(
                sql: "INSERT INTO day_plans (day, time_zone, drawn_at) VALUES (?, ?, ?) ON CONFLICT (day) DO NOTHING",
                arguments: [day, timeZone, drawnAt])
            guard db.changesCount > 0 else { return }
            let insert = try db.cachedStatement(sql: "INSERT INTO plan_slots (day, minute) VALUES (?, ?) ON CONFLICT DO NOTHING")
            for minute in minutes { try insert.execute(arguments: [day, minute]) }
        }
        return try await slots(of: day) ?? []
    }

    func claim(day: String, minute: Int) async throws -> Bool {
        try await database.write("claiming slot \(minute) of \(day)") { db in
            try db.execute(
                sql: """
                    UPDATE plan_slots SET state = 'posting', updated_at = ? WHERE day = ? AND minute = ? AND state = 'planned'
                    """, arguments: [Date(), day, minute])
            return db.changesCount > 0
        }
    }

    func markPosted(
        day: String, minute: Int, sourcePostID: PostID, botPostID: PostID?, postedAt: Date, reason: String,
        unchecked: Bool
    ) async throws {
        try await database.write("recording slot \(minute) of \(day) as posted") { db in
            try db.execute(
                sql: """
                    UPDATE plan_slots SET state = 'posted', source_tweet_id = ?, bot_tweet_id = ?, reason = ?, posted_at = ?, posted_unchecked = ?, updated_at = ?
                    WHERE day = ? AND minute = ?
                    """, arguments: [sourcePostID, botPostID, reason, postedAt, unchecked, Date(), day, minute])
            try db.execute(
                sql: "INSERT INTO bot_posts (source_tweet_id, bot_tweet_id, posted_at) VALUES (?, ?, ?)",
                arguments: [sourcePostID, botPostID, postedAt])
        }
    }

    func markSkipped(day: String, minute: Int, at: Date, reason: String) async throws {
        try await database.write("recording slot \(minute) of \(day) as skipped") { db in
            try db.execute(
                sql: """
                    UPDATE plan_slots SET state = 'skipped', reason = ?, updated_at = ?
                    WHERE day = ? AND minute = ? AND state IN ('planned', 'posting')
                    """, arguments: [reason, at, day, minute])
        }
    }

    func noteSending(day: String, minute: Int, sourcePostID: PostID) async throws {
        try await database.write("noting what slot \(minute) of \(day) sends") { db in
            try db.execute(
                sql: "UPDATE plan_slots SET source_tweet_id = ? WHERE day = ? AND minute = ? AND state = 'posting'",
                arguments: [sourcePostID, day, minute])
        }
    }

    func interrupted(day: String) async throws -> [InterruptedSlot] {
        try await database.read("reading the interrupted slots of \(day)") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT s.minute, s.source_tweet_id, t.text FROM plan_slots s LEFT JOIN tweets t ON t.tweet_id = s.source_tweet_id
                    WHERE s.day = ? AND s.state = 'posting' ORDER BY s.minute
                    """, arguments: [day])
            return database.decodedRows(rows, of: "the interrupted slots of \(day)") {
                InterruptedSlot(minute: try $0.decode(atIndex: 0), sourcePostID: try $0.decode(atIndex: 1), text: try $0.decode(atIndex: 2))
            }
        }
    }

    func uncheckedPosts() async throws -> [UncheckedPost] {
        try await database.read("reading the posts whose original was not checked") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT day, minute, source_tweet_id, bot_tweet_id, posted_at FROM plan_slots
                    WHERE posted_unchecked = 1 AND original_checked_at IS NULL AND state = 'posted' AND source_tweet_id IS NOT NULL AND posted_at IS NOT NULL ORDER BY posted_at, day, minute
                    """)
            return database.decodedRows(rows, of: "the posts whose original was not checked") {
                UncheckedPost(
                    day: try $0.decode(atIndex: 0), minute: try $0.decode(atIndex: 1), sourcePostID: try $0.decode(atIndex: 2),
                    botPostID: try $0.decode(atIndex: 3), postedAt: try $0.decode(atIndex: 4))
            }
        }
    }

    func markChecked(day: String, minute: Int, at date: Date) async throws {
        try await database.write("recording that the original of slot \(minute) of \(day) was checked") { db in
            try db.execute(sql: "UPDATE plan_slots SET original_checked_at = ? WHERE day = ? AND minute = ?", arguments: [date, day, minute])
        }
    }
}

extension SQLitePlanStore {
}
