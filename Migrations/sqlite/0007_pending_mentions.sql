-- A mention can be 'pending': the bot stopped during its pause before answering, nothing sent; the next start
-- answers it while it is fresh, else skips it saying so. SQLite cannot change a CHECK: the table is rebuilt.
CREATE TABLE mention_replies_new (
    mention_tweet_id INTEGER PRIMARY KEY,
    author_id INTEGER NOT NULL,
    conversation_id INTEGER,
    state TEXT NOT NULL CHECK (state IN ('replying', 'replied', 'skipped', 'pending')),
    reply_tweet_id INTEGER,
    source_tweet_id INTEGER,
    reason TEXT,
    handled_at TEXT NOT NULL
);
INSERT INTO mention_replies_new SELECT mention_tweet_id, author_id, conversation_id, state, reply_tweet_id, source_tweet_id, reason, handled_at
FROM mention_replies;
DROP TABLE mention_replies;
ALTER TABLE mention_replies_new RENAME TO mention_replies;
CREATE INDEX mention_replies_author_index ON mention_replies (author_id, handled_at) WHERE state <> 'skipped';
CREATE INDEX mention_replies_conversation_index ON mention_replies (conversation_id) WHERE state <> 'skipped';
