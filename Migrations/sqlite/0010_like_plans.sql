-- Likes planned like posts: the person's own likes with when they gave them (exact where the network says, else the
-- liked post's time), each day's like slots drawn from them, and the posts that passed the like threshold, kept until
-- a slot takes the best of them.
CREATE TABLE person_likes (
    post_id INTEGER PRIMARY KEY,
    liked_at TEXT NOT NULL,
    exact INTEGER NOT NULL
);
CREATE TABLE like_plans (
    day TEXT PRIMARY KEY,
    drawn_at TEXT NOT NULL
);
CREATE TABLE like_slots (
    day TEXT NOT NULL REFERENCES like_plans (day) ON DELETE CASCADE,
    minute INTEGER NOT NULL CHECK (minute BETWEEN 0 AND 1439),
    state TEXT NOT NULL DEFAULT 'planned' CHECK (state IN ('planned', 'liked', 'skipped')),
    post_id INTEGER,
    log_ratio REAL,
    reason TEXT,
    done_at TEXT,
    PRIMARY KEY (day, minute)
);
CREATE TABLE like_candidates (
    post_id INTEGER PRIMARY KEY,
    author_id INTEGER,
    author_handle TEXT,
    log_ratio REAL NOT NULL,
    reason TEXT NOT NULL,
    posted_at TEXT NOT NULL
);
CREATE INDEX like_candidates_posted_at_index ON like_candidates (posted_at);
