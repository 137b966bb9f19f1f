-- Every tweet the favorite filter learned, in learning order (`seq`); see Migrations/0008_training_examples.sql.
CREATE TABLE training_examples (
    seq INTEGER PRIMARY KEY,
    tweet_id TEXT NOT NULL,
    text TEXT NOT NULL,
    author TEXT,
    label TEXT NOT NULL CHECK (label IN ('favorite', 'normal')),
    source TEXT NOT NULL,
    learned_at TEXT NOT NULL,
    UNIQUE (tweet_id, label, source)
);
