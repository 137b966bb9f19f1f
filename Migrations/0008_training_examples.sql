-- Every tweet the favorite filter learned, in the order it was learned: the word counts (Redis, or the SQLite
-- file) are derived from these rows, so `mirror_bot train rebuild` can recompute them (after a tokenizer change or
-- a lost Redis) and the like threshold can be calibrated on them. A tweet can have several rows: seen on the
-- timeline (normal, source 'timeline'), then liked (favorite, source 'likes'). `seq` is the learning order.
CREATE TABLE training_examples (
    seq bigserial PRIMARY KEY,
    tweet_id text NOT NULL,
    text text NOT NULL,
    author text,
    label text NOT NULL CHECK (label IN ('favorite', 'normal')),
    source text NOT NULL,
    learned_at timestamptz NOT NULL,
    UNIQUE (tweet_id, label, source)
);
