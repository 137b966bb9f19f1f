-- The archive and the daemon's state in the embedded SQLite file (MIRROR_BOT_DATA), the same tables as the
-- Postgres migrations 0001-0007 in one file. Times are GRDB's UTC text ('YYYY-MM-DD HH:MM:SS.SSS'), which sorts
-- as time does. `minute` and `day` are the tweet's minute of the day and calendar day in the human's zone: SQLite
-- has no time zones, so the bot computes them when it stores a tweet and again when TZ changes.

CREATE TABLE tweets (
    id INTEGER PRIMARY KEY,
    tweet_id INTEGER NOT NULL UNIQUE,
    text TEXT NOT NULL,
    minute INTEGER,
    day TEXT,
    reply_user_id INTEGER,
    created_at TEXT NOT NULL
);
CREATE INDEX tweets_created_at_index ON tweets (created_at, tweet_id);
CREATE INDEX tweets_minute_index ON tweets (minute) WHERE reply_user_id IS NULL;
CREATE INDEX tweets_reply_user_id_index ON tweets (reply_user_id) WHERE reply_user_id IS NOT NULL;

CREATE TABLE archive_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE bot_posts (
    id INTEGER PRIMARY KEY,
    source_tweet_id INTEGER NOT NULL,
    bot_tweet_id INTEGER,
    posted_at TEXT NOT NULL
);
CREATE INDEX bot_posts_source_tweet_id_index ON bot_posts (source_tweet_id, posted_at);

CREATE TABLE day_plans (
    day TEXT PRIMARY KEY,
    time_zone TEXT NOT NULL,
    drawn_at TEXT NOT NULL
);

CREATE TABLE plan_slots (
    day TEXT NOT NULL REFERENCES day_plans (day) ON DELETE CASCADE,
    minute INTEGER NOT NULL CHECK (minute BETWEEN 0 AND 1439),
    state TEXT NOT NULL DEFAULT 'planned' CHECK (state IN ('planned', 'posting', 'posted', 'skipped')),
    source_tweet_id INTEGER,
    bot_tweet_id INTEGER,
    reason TEXT,
    posted_at TEXT,
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    PRIMARY KEY (day, minute)
) WITHOUT ROWID;

CREATE TABLE bot_state (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);

CREATE TABLE mention_replies (
    mention_tweet_id INTEGER PRIMARY KEY,
    author_id INTEGER NOT NULL,
    conversation_id INTEGER,
    state TEXT NOT NULL CHECK (state IN ('replying', 'replied', 'skipped')),
    reply_tweet_id INTEGER,
    source_tweet_id INTEGER,
    reason TEXT,
    handled_at TEXT NOT NULL
);
CREATE INDEX mention_replies_author_index ON mention_replies (author_id, handled_at) WHERE state <> 'skipped';
CREATE INDEX mention_replies_conversation_index ON mention_replies (conversation_id) WHERE state <> 'skipped';

CREATE TABLE bot_likes (
    tweet_id INTEGER PRIMARY KEY,
    author_id INTEGER,
    log_ratio REAL,
    reason TEXT NOT NULL,
    liked_at TEXT NOT NULL
);
