import Foundation
import PostgresNIO
import Stores

/// The training examples in Postgres (`training_examples`).
struct PostgresTrainingExamples: TrainingExamples {
    let database: PostgresStoreSet

    func record(_ examples: [TrainingExample]) async throws -> Int {
        guard !examples.isEmpty else { return 0 }
        return try await database.rows(
            "recording \(examples.count) training examples",
            """
            INSERT INTO training_examples (tweet_id, text, author, label, source, learned_at)
            SELECT tweet_id, text, NULLIF(author, ''), label, source, learned_at
            FROM unnest(\(examples.map(\.postID))::text[], \(examples.map(\.text))::text[], \(examples.map { $0.author ?? "" })::text[],
                        \(examples.map(\.label))::text[], \(examples.map(\.source))::text[], \(examples.map(\.learnedAt))::timestamptz[])
                 WITH ORDINALITY AS e(tweet_id, text, author, label, source, learned_at, position)
            ORDER BY position
            ON CONFLICT (tweet_id, label, source) DO NOTHING RETURNING 1
            """, as: Int.self
        ).count
    }

    func examples(newest limit: Int?) async throws -> [TrainingExample] {
        try await database.rows(
            "reading the training examples",
            """
            SELECT seq, tweet_id, text, author, label, source, learned_at FROM
                (SELECT * FROM training_examples ORDER BY seq DESC LIMIT \(limit)) AS recent ORDER BY seq
            """, as: (Int64, String, String, String?, String, String, Date).self
        ).map(TrainingExample.init(row:))
    }

    func count() async throws -> Int {
        try await database.rows("counting training examples", "SELECT count(*)::bigint FROM training_examples", as: Int64.self).first.map(Int.init)
            ?? 0
    }

    func timelineLikes() async throws -> (seen: Int, liked: Int) {
        let row = try await database.rows(
            "counting timeline likes",
            """
            SELECT count(*), count(*) FILTER (WHERE EXISTS (
                       SELECT 1 FROM training_examples f WHERE f.tweet_id = t.tweet_id AND f.label = 'favorite'))
            FROM (SELECT DISTINCT tweet_id FROM training_examples WHERE source = 'timeline') AS t
            """, as: (Int64, Int64).self
        ).first
        return (Int(row?.0 ?? 0), Int(row?.1 ?? 0))
    }

    func remove(postID: String) async throws -> [TrainingExample] {
        try await database.rows(
            "removing the training examples of post \(postID)",
            """
            DELETE FROM training_examples WHERE tweet_id = \(postID) RETURNING seq, tweet_id, text, author, label, source, learned_at
            """, as: (Int64, String, String, String?, String, String, Date).self
        ).map(TrainingExample.init(row:))
            .sorted { ($0.sequence ?? 0) < ($1.sequence ?? 0) }
    }

    func removeAll() async throws {
        _ = try await database.rows("clearing the training examples", "DELETE FROM training_examples RETURNING 1", as: Int.self)
    }
}

extension TrainingExample {
    /// An example from a row of `seq, tweet_id, text, author, label, source, learned_at`.
    init(row: (Int64, String, String, String?, String, String, Date)) {
        self.init(sequence: row.0, postID: row.1, text: row.2, author: row.3, label: row.4, source: row.5, learnedAt: row.6)
    }
}
