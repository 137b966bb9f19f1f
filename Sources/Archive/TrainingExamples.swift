public import Foundation
import GRDB
import Logging
import PostgresNIO

/// One tweet the favorite filter learned: the row of `training_examples` it came from.
public struct TrainingExample: Sendable, Equatable {
    /// The learning order (nil before it is stored).
    public var sequence: Int64?
    /// The tweet's X id.
    public var tweetID: String
    /// Its text, as it was learned (entities decoded, links expanded).
    public var text: String
    /// Its author's username, when known (a feature of the filter).
    public var author: String?
    /// `favorite` (the human liked it) or `normal` (seen, not liked).
    public var label: String
    /// Where it was learned from: `likes`, `timeline` or `import`.
    public var source: String
    /// When it was learned.
    public var learnedAt: Date

    /// An example from its parts.
    public init(sequence: Int64? = nil, tweetID: String, text: String, author: String?, label: String, source: String, learnedAt: Date) {
        self.sequence = sequence; self.tweetID = tweetID; self.text = text; self.author = author
        self.label = label; self.source = source; self.learnedAt = learnedAt
    }
}

/// Every tweet the favorite filter learned, in order (table `training_examples`): the word counts are derived from
/// them (`mirror_bot train rebuild`), and the like threshold is calibrated on them.
public struct TrainingExamples: Sendable {
    /// The database.
    public let database: ArchiveDatabase

    /// The examples of `database`.
    public init(database: ArchiveDatabase) { self.database = database }

    /// Stores `examples` in order, skipping any already stored (same tweet, label and source); how many were new.
    @discardableResult
    public func record(_ examples: [TrainingExample]) async throws -> Int {
        guard !examples.isEmpty else { return 0 }
        switch database.backend {
        case .postgres:
            let rows = try await database.rows("recording \(examples.count) training examples", """
                INSERT INTO training_examples (tweet_id, text, author, label, source, learned_at)
                SELECT tweet_id, text, NULLIF(author, ''), label, source, learned_at
                FROM unnest(\(examples.map(\.tweetID))::text[], \(examples.map(\.text))::text[], \(examples.map { $0.author ?? "" })::text[],
                            \(examples.map(\.label))::text[], \(examples.map(\.source))::text[], \(examples.map(\.learnedAt))::timestamptz[])
                     WITH ORDINALITY AS e(tweet_id, text, author, label, source, learned_at, position)
                ORDER BY position
                ON CONFLICT (tweet_id, label, source) DO NOTHING RETURNING 1
                """, as: Int.self)
            return rows.count
        case .sqlite:
            return try await database.write("recording \(examples.count) training examples") { db in
                let insert = try db.cachedStatement(sql: """
                    INSERT INTO training_examples (tweet_id, text, author, label, source, learned_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (tweet_id, label, source) DO NOTHING
                    """)
                var inserted = 0
                for example in examples {
                    try insert.execute(arguments: [example.tweetID, example.text, example.author, example.label, example.source, example.learnedAt])
                    inserted += db.changesCount
                }
                return inserted
            }
        }
    }

    /// Every example in learning order.
    public func all() async throws -> [TrainingExample] {
        try await examples(newest: nil)
    }

    /// The newest `limit` examples, in learning order (what the calibration reads: the examples grow with every
    /// timeline post learned, and recent likes say more about the human than old ones).
    public func recent(limit: Int) async throws -> [TrainingExample] {
        try await examples(newest: limit)
    }

    /// The newest `limit` examples (all when nil), in learning order.
    private func examples(newest limit: Int?) async throws -> [TrainingExample] {
        let operation = "reading the training examples"
        switch database.backend {
        case .postgres:
            return try await database.rows(operation, """
                SELECT seq, tweet_id, text, author, label, source, learned_at FROM
                    (SELECT * FROM training_examples ORDER BY seq DESC LIMIT \(limit)) AS recent ORDER BY seq
                """, as: (Int64, String, String, String?, String, String, Date).self).map {
                TrainingExample(sequence: $0.0, tweetID: $0.1, text: $0.2, author: $0.3, label: $0.4, source: $0.5, learnedAt: $0.6)
            }
        case .sqlite:
            return try await database.read(operation) { db in
                try Row.fetchAll(db, sql: """
                    SELECT seq, tweet_id, text, author, label, source, learned_at FROM
                        (SELECT * FROM training_examples ORDER BY seq DESC LIMIT ?) ORDER BY seq
                    """, arguments: [limit ?? -1])  // SQLite reads a negative limit as none
                    .map { TrainingExample(sequence: $0[0], tweetID: $0[1], text: $0[2], author: $0[3], label: $0[4], source: $0[5], learnedAt: $0[6]) }
            }
        }
    }

    /// How many examples are stored.
    public func count() async throws -> Int {
        switch database.backend {
        case .postgres:
            return try await database.rows("counting training examples", "SELECT count(*)::bigint FROM training_examples", as: Int64.self)
                .first.map(Int.init) ?? 0
        case .sqlite:
            return try await database.read("counting training examples") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM training_examples") ?? 0 }
        }
    }

    /// Timeline tweets the human saw (learned from the home timeline) and how many of them they liked: the share
    /// of their timeline the human likes.
    public func timelineLikes() async throws -> (seen: Int, liked: Int) {
        let sql = """
            SELECT count(*), count(*) FILTER (WHERE EXISTS (
                       SELECT 1 FROM training_examples f WHERE f.tweet_id = t.tweet_id AND f.label = 'favorite'))
            FROM (SELECT DISTINCT tweet_id FROM training_examples WHERE source = 'timeline') AS t
            """
        switch database.backend {
        case .postgres:
            let row = try await database.rows("counting timeline likes", PostgresQuery(unsafeSQL: sql), as: (Int64, Int64).self).first
            return (Int(row?.0 ?? 0), Int(row?.1 ?? 0))
        case .sqlite:
            return try await database.read("counting timeline likes") { db in
                let row = try Row.fetchOne(db, sql: sql)
                return (row?[0] ?? 0, row?[1] ?? 0)
            }
        }
    }

    /// Deletes the examples of one tweet (`mirror_bot forget`); returns them, in learning order.
    @discardableResult
    public func remove(tweetID: String) async throws -> [TrainingExample] {
        let operation = "removing the training examples of tweet \(tweetID)"
        switch database.backend {
        case .postgres:
            return try await database.rows(operation, """
                DELETE FROM training_examples WHERE tweet_id = \(tweetID) RETURNING seq, tweet_id, text, author, label, source, learned_at
                """, as: (Int64, String, String, String?, String, String, Date).self).map {
                TrainingExample(sequence: $0.0, tweetID: $0.1, text: $0.2, author: $0.3, label: $0.4, source: $0.5, learnedAt: $0.6)
            }.sorted { ($0.sequence ?? 0) < ($1.sequence ?? 0) }
        case .sqlite:
            return try await database.write(operation) { db in
                let rows = try Row.fetchAll(db, sql: """
                    SELECT seq, tweet_id, text, author, label, source, learned_at FROM training_examples WHERE tweet_id = ? ORDER BY seq
                    """, arguments: [tweetID])
                    .map { TrainingExample(sequence: $0[0], tweetID: $0[1], text: $0[2], author: $0[3], label: $0[4], source: $0[5], learnedAt: $0[6]) }
                try db.execute(sql: "DELETE FROM training_examples WHERE tweet_id = ?", arguments: [tweetID])
                return rows
            }
        }
    }

    /// Deletes every example (`mirror_bot train clear`).
    public func removeAll() async throws {
        switch database.backend {
        case .postgres:
            _ = try await database.rows("clearing the training examples", "DELETE FROM training_examples RETURNING 1", as: Int.self)
        case .sqlite:
            return try await database.write("clearing the training examples") { db in try db.execute(sql: "DELETE FROM training_examples") }
        }
    }
}
