-- The favorite filter's word counts, for a bot run without Redis: the same counts as the Redis layout.
-- `word_counts` (feature, category, count), `category_counts` (tweets learned per category), `learned_tweets`
-- (ids learned once) and `trained` (one-time trainings). IF NOT EXISTS adopts files whose word counts were
-- created before these tables had a migration file.

CREATE TABLE IF NOT EXISTS word_counts (
    feature TEXT NOT NULL,
    category TEXT NOT NULL,
    count INTEGER NOT NULL CHECK (count >= 0),
    PRIMARY KEY (feature, category)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS category_counts (
    category TEXT PRIMARY KEY,
    count INTEGER NOT NULL CHECK (count >= 0)
);

CREATE TABLE IF NOT EXISTS learned_tweets (
    category TEXT NOT NULL,
    tweet_id TEXT NOT NULL,
    PRIMARY KEY (category, tweet_id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS trained (
    name TEXT PRIMARY KEY
);
