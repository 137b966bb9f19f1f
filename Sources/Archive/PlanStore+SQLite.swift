import Foundation
import GRDB

/// The plan store's statements in SQLite.
struct SQLitePlanStore: PlanStatements {
    let database: ArchiveDatabase

    func slots(of day: String) async throws -> [PlanSlot]? {
        try await database.read("reading the plan of \(day)") { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT s.minute, s.state, s.source_tweet_id, s.bot_tweet_id, s.reason, s.posted_at
                FROM day_plans p LEFT JOIN plan_slots s ON s.day = p.day WHERE p.day = ? ORDER BY s.minute
                """, arguments: [day])
            guard !rows.isEmpty else { return nil }
            return rows.compactMap { row in
                (row[0] as Int?).map { PlanSlot(minute: $0, state: (row[1] as String?).flatMap(PlanSlot.State.init(rawValue:)) ?? .skipped,
                                                sourceTweetID: row[2], botTweetID: row[3], reason: row[4], postedAt: row[5]) }
            }
        }
    }

    func drawnAt(of day: String) async throws -> Date? {
        try await database.read("reading when the plan of \(day) was drawn") { db in
            try Date.fetchOne(db, sql: "SELECT drawn_at FROM day_plans WHERE day = ?", arguments: [day])
        }
    }

    func storePlan(day: String, timeZone: String, minutes: [Int], drawnAt: Date) async throws {
        try await database.write("storing the plan of \(day)") { db in
            try db.execute(sql: "INSERT INTO day_plans (day, time_zone, drawn_at) VALUES (?, ?, ?) ON CONFLICT (day) DO NOTHING",
                           arguments: [day, timeZone, drawnAt])
            guard db.changesCount > 0 else { return }
            let insert = try db.cachedStatement(sql: "INSERT INTO plan_slots (day, minute) VALUES (?, ?) ON CONFLICT DO NOTHING")
            for minute in minutes { try insert.execute(arguments: [day, minute]) }
        }
    }

    func claim(day: String, minute: Int) async throws -> Bool {
        try await database.write("claiming slot \(minute) of \(day)") { db in
            try db.execute(sql: """
                UPDATE plan_slots SET state = 'posting', updated_at = ? WHERE day = ? AND minute = ? AND state = 'planned'
                """, arguments: [Date(), day, minute])
            return db.changesCount > 0
        }
    }

    func markPosted(day: String, minute: Int, sourceTweetID: Int64, botTweetID: Int64?, postedAt: Date, reason: String) async throws {
        try await database.write("recording slot \(minute) of \(day) as posted") { db in
            try db.execute(sql: """
                UPDATE plan_slots SET state = 'posted', source_tweet_id = ?, bot_tweet_id = ?, reason = ?, posted_at = ?, updated_at = ?
                WHERE day = ? AND minute = ?
                """, arguments: [sourceTweetID, botTweetID, reason, postedAt, Date(), day, minute])
            try db.execute(sql: "INSERT INTO bot_posts (source_tweet_id, bot_tweet_id, posted_at) VALUES (?, ?, ?)",
                           arguments: [sourceTweetID, botTweetID, postedAt])
        }
    }

    func markSkipped(day: String, minute: Int, at: Date, reason: String) async throws {
        try await database.write("recording slot \(minute) of \(day) as skipped") { db in
            try db.execute(sql: """
                UPDATE plan_slots SET state = 'skipped', reason = ?, updated_at = ?
                WHERE day = ? AND minute = ? AND state IN ('planned', 'posting')
                """, arguments: [reason, at, day, minute])
        }
    }

    func noteSending(day: String, minute: Int, sourceTweetID: Int64) async throws {
        try await database.write("noting what slot \(minute) of \(day) sends") { db in
            try db.execute(sql: "UPDATE plan_slots SET source_tweet_id = ? WHERE day = ? AND minute = ? AND state = 'posting'",
                           arguments: [sourceTweetID, day, minute])
        }
    }

    func interrupted(day: String) async throws -> [InterruptedSlot] {
        try await database.read("reading the interrupted slots of \(day)") { db in
            try Row.fetchAll(db, sql: """
                SELECT s.minute, s.source_tweet_id, t.text FROM plan_slots s LEFT JOIN tweets t ON t.tweet_id = s.source_tweet_id
                WHERE s.day = ? AND s.state = 'posting' ORDER BY s.minute
                """, arguments: [day]).map { InterruptedSlot(minute: $0[0], sourceTweetID: $0[1], text: $0[2]) }
        }
    }
}
