import Foundation
import GRDB
import Stores

/// The training examples in SQLite (`training_examples`).
struct SQLiteTrainingExamples: TrainingExamples {
    let database: SQLiteStoreSet

    func record(_ examples: [TrainingExample]) async throws -> Int {
        guard !examples.isEmpty else { return 0 }
        return try await database.write("recording \(examples.count) training examples") { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO training_examples (tweet_id, text, author, label, source, learned_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (tweet_id, label, source) DO NOTHING
                    """)
            var inserted = 0
            for example in examples {
                try insert.execute(arguments: [example.postID, example.text, example.author, example.label, example.source, example.learnedAt])
                inserted += db.changesCount
            }
            return inserted
        }
    }

    func examples(newest limit: Int?) async throws -> [TrainingExample] {
        try await database.read("reading the training examples") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT seq, tweet_id, text, author, label, source, learned_at FROM
                        (SELECT * FROM training_examples ORDER BY seq DESC LIMIT ?) ORDER BY seq
                    """, arguments: [limit ?? -1]
            )  // SQLite reads a negative limit as none
            .map { try TrainingExample(row: $0) }
        }
    }

    func count() async throws -> Int {
        try await database.read("counting training examples") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM training_examples") ?? 0 }
    }

    func timelineLikes() async throws -> (seen: Int, liked: Int) {
        try await database.read("counting timeline likes") { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT count(*), count(*) FILTER (WHERE EXISTS (
                               SELECT 1 FROM training_examples f WHERE f.tweet_id = t.tweet_id AND f.label = 'favorite'))
                    FROM (SELECT DISTINCT tweet_id FROM training_examples WHERE source = 'timeline') AS t
                    """)
            return (row?[0] ?? 0, row?[1] ?? 0)
        }
    }

    func remove(postID: String) async throws -> [TrainingExample] {
        try await database.write("removing the training examples of post \(postID)") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT seq, tweet_id, text, author, label, source, learned_at FROM training_examples WHERE tweet_id = ? ORDER BY seq
                    """, arguments: [postID]
            ).map { try TrainingExample(row: $0) }
            try db.execute(sql: "DELETE FROM training_examples WHERE tweet_id = ?", arguments: [postID])
            return rows
        }
    }

    func removeAll() async throws {
        try await database.write("clearing the training examples") { db in try db.execute(sql: "DELETE FROM training_examples") }
    }
}

extension TrainingExample {
    /// An example from a row of `seq, tweet_id, text, author, label, source, learned_at`.
    init(row: Row) throws {
        self.init(
            sequence: try row.decode(atIndex: 0), postID: try row.decode(atIndex: 1), text: try row.decode(atIndex: 2),
            author: try row.decode(atIndex: 3), label: try row.decode(atIndex: 4), source: try row.decode(atIndex: 5),
            learnedAt: try row.decode(atIndex: 6))
    }
}
