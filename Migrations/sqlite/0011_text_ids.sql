-- Post and account ids are the networks' own, as text (see Migrations/0015_text_ids.sql). SQLite cannot change a
-- column's type, and an INTEGER PRIMARY KEY holds only numbers: each table with ids is rebuilt with TEXT columns,
-- every row copied with its numbers as text, its indexes made again.
CREATE TABLE tweets_new (
    id INTEGER PRIMARY KEY,
    tweet_id TEXT NOT NULL UNIQUE,
    text TEXT NOT NULL,
    minute INTEGER,
    day TEXT,
    reply_user_id TEXT,
    created_at TEXT NOT NULL,
    has_link INTEGER,
    content_warning TEXT
);
INSERT INTO tweets_new (id, tweet_id, text, minute, day, reply_user_id, created_at, has_link, content_warning)
SELECT id, CAST(tweet_id AS TEXT), text, minute, day, CAST(reply_user_id AS TEXT), created_at, has_link, content_warning FROM tweets;
DROP TABLE tweets;
ALTER TABLE tweets_new RENAME TO tweets;
CREATE INDEX tweets_created_at_index ON tweets (created_at, tweet_id);
CREATE INDEX tweets_minute_index ON tweets (minute) WHERE reply_user_id IS NULL;
CREATE INDEX tweets_reply_user_id_index ON tweets (reply_user_id) WHERE reply_user_id IS NOT NULL;
CREATE INDEX tweets_id_order_index ON tweets (length(tweet_id), tweet_id);

CREATE TABLE bot_posts_new (
    id INTEGER PRIMARY KEY,
    source_tweet_id TEXT NOT NULL,
    bot_tweet_id TEXT,
    posted_at TEXT NOT NULL
);
INSERT INTO bot_posts_new (id, source_tweet_id, bot_tweet_id, posted_at)
SELECT id, CAST(source_tweet_id AS TEXT), CAST(bot_tweet_id AS TEXT), posted_at FROM bot_posts;
DROP TABLE bot_posts;
ALTER TABLE bot_posts_new RENAME TO bot_posts;
CREATE INDEX bot_posts_source_tweet_id_index ON bot_posts (source_tweet_id, posted_at);

CREATE TABLE plan_slots_new (
    day TEXT NOT NULL REFERENCES day_plans (day) ON DELETE CASCADE,
    minute INTEGER NOT NULL CHECK (minute BETWEEN 0 AND 1439),
    state TEXT NOT NULL DEFAULT 'planned' CHECK (state IN ('planned', 'posting', 'posted', 'skipped')),
    source_tweet_id TEXT,
    bot_tweet_id TEXT,
    reason TEXT,
    posted_at TEXT,
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    posted_unchecked INTEGER NOT NULL DEFAULT 0,
    original_checked_at TEXT,
    PRIMARY KEY (day, minute)
) WITHOUT ROWID;
INSERT INTO plan_slots_new (day, minute, state, source_tweet_id, bot_tweet_id, reason, posted_at, updated_at, posted_unchecked, original_checked_at)
SELECT day, minute, state, CAST(source_tweet_id AS TEXT), CAST(bot_tweet_id AS TEXT), reason, posted_at, updated_at, posted_unchecked,
       original_checked_at
FROM plan_slots;
DROP TABLE plan_slots;
ALTER TABLE plan_slots_new RENAME TO plan_slots;
CREATE INDEX plan_slots_unchecked_index ON plan_slots (day, minute) WHERE posted_unchecked = 1 AND original_checked_at IS NULL;

CREATE TABLE mention_replies_new (
    mention_tweet_id TEXT PRIMARY KEY,
    author_id TEXT NOT NULL,
    conversation_id TEXT,
    state TEXT NOT NULL CHECK (state IN ('replying', 'replied', 'skipped', 'pending')),
    reply_tweet_id TEXT,
    source_tweet_id TEXT,
    reason TEXT,
    handled_at TEXT NOT NULL
);
INSERT INTO mention_replies_new (mention_tweet_id, author_id, conversation_id, state, reply_tweet_id, source_tweet_id, reason, handled_at)
SELECT CAST(mention_tweet_id AS TEXT), CAST(author_id AS TEXT), CAST(conversation_id AS TEXT), state, CAST(reply_tweet_id AS TEXT),
       CAST(source_tweet_id AS TEXT), reason, handled_at
FROM mention_replies;
DROP TABLE mention_replies;
ALTER TABLE mention_replies_new RENAME TO mention_replies;
CREATE INDEX mention_replies_author_index ON mention_replies (author_id, handled_at) WHERE state <> 'skipped';
CREATE INDEX mention_replies_conversation_index ON mention_replies (conversation_id) WHERE state <> 'skipped';

CREATE TABLE bot_likes_new (
    tweet_id TEXT PRIMARY KEY,
    author_id TEXT,
    log_ratio REAL,
    reason TEXT NOT NULL,
    liked_at TEXT NOT NULL
);
INSERT INTO bot_likes_new (tweet_id, author_id, log_ratio, reason, liked_at)
SELECT CAST(tweet_id AS TEXT), CAST(author_id AS TEXT), log_ratio, reason, liked_at FROM bot_likes;
DROP TABLE bot_likes;
ALTER TABLE bot_likes_new RENAME TO bot_likes;

CREATE TABLE person_likes_new (
    post_id TEXT PRIMARY KEY,
    liked_at TEXT NOT NULL,
    exact INTEGER NOT NULL
);
INSERT INTO person_likes_new (post_id, liked_at, exact) SELECT CAST(post_id AS TEXT), liked_at, exact FROM person_likes;
DROP TABLE person_likes;
ALTER TABLE person_likes_new RENAME TO person_likes;

CREATE TABLE like_slots_new (
    day TEXT NOT NULL REFERENCES like_plans (day) ON DELETE CASCADE,
    minute INTEGER NOT NULL CHECK (minute BETWEEN 0 AND 1439),
    state TEXT NOT NULL DEFAULT 'planned' CHECK (state IN ('planned', 'liked', 'skipped')),
    post_id TEXT,
    log_ratio REAL,
    reason TEXT,
    done_at TEXT,
    PRIMARY KEY (day, minute)
);
INSERT INTO like_slots_new (day, minute, state, post_id, log_ratio, reason, done_at)
SELECT day, minute, state, CAST(post_id AS TEXT), log_ratio, reason, done_at FROM like_slots;
DROP TABLE like_slots;
ALTER TABLE like_slots_new RENAME TO like_slots;

CREATE TABLE like_candidates_new (
    post_id TEXT PRIMARY KEY,
    author_id TEXT,
    author_handle TEXT,
    log_ratio REAL NOT NULL,
    reason TEXT NOT NULL,
    posted_at TEXT NOT NULL
);
INSERT INTO like_candidates_new (post_id, author_id, author_handle, log_ratio, reason, posted_at)
SELECT CAST(post_id AS TEXT), CAST(author_id AS TEXT), author_handle, log_ratio, reason, posted_at FROM like_candidates;
DROP TABLE like_candidates;
ALTER TABLE like_candidates_new RENAME TO like_candidates;
CREATE INDEX like_candidates_posted_at_index ON like_candidates (posted_at);

-- Misskey's numbers become the ids they stood for, and network_ids goes (see Migrations/0015_text_ids.sql).
UPDATE tweets SET tweet_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = tweets.tweet_id AND id NOT LIKE 'user:%')
WHERE tweet_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE bot_posts SET source_tweet_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = bot_posts.source_tweet_id AND id NOT LIKE 'user:%')
WHERE source_tweet_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE bot_posts SET bot_tweet_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = bot_posts.bot_tweet_id AND id NOT LIKE 'user:%')
WHERE bot_tweet_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE plan_slots SET source_tweet_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = plan_slots.source_tweet_id AND id NOT LIKE 'user:%')
WHERE source_tweet_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE plan_slots SET bot_tweet_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = plan_slots.bot_tweet_id AND id NOT LIKE 'user:%')
WHERE bot_tweet_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE mention_replies SET mention_tweet_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = mention_replies.mention_tweet_id AND id NOT LIKE 'user:%')
WHERE mention_tweet_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE mention_replies SET conversation_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = mention_replies.conversation_id AND id NOT LIKE 'user:%')
WHERE conversation_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE mention_replies SET reply_tweet_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = mention_replies.reply_tweet_id AND id NOT LIKE 'user:%')
WHERE reply_tweet_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE mention_replies SET source_tweet_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = mention_replies.source_tweet_id AND id NOT LIKE 'user:%')
WHERE source_tweet_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE bot_likes SET tweet_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = bot_likes.tweet_id AND id NOT LIKE 'user:%')
WHERE tweet_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE person_likes SET post_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = person_likes.post_id AND id NOT LIKE 'user:%')
WHERE post_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE like_slots SET post_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = like_slots.post_id AND id NOT LIKE 'user:%')
WHERE post_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE like_candidates SET post_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = like_candidates.post_id AND id NOT LIKE 'user:%')
WHERE post_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE training_examples SET tweet_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = training_examples.tweet_id AND id NOT LIKE 'user:%')
WHERE tweet_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE learned_tweets SET tweet_id = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = learned_tweets.tweet_id AND id NOT LIKE 'user:%')
WHERE tweet_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE tweets SET reply_user_id = (SELECT substr(id, 6) FROM network_ids WHERE CAST(number AS TEXT) = tweets.reply_user_id AND id LIKE 'user:%')
WHERE reply_user_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id LIKE 'user:%');
UPDATE mention_replies SET author_id = (SELECT substr(id, 6) FROM network_ids WHERE CAST(number AS TEXT) = mention_replies.author_id AND id LIKE 'user:%')
WHERE author_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id LIKE 'user:%');
UPDATE bot_likes SET author_id = (SELECT substr(id, 6) FROM network_ids WHERE CAST(number AS TEXT) = bot_likes.author_id AND id LIKE 'user:%')
WHERE author_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id LIKE 'user:%');
UPDATE like_candidates SET author_id = (SELECT substr(id, 6) FROM network_ids WHERE CAST(number AS TEXT) = like_candidates.author_id AND id LIKE 'user:%')
WHERE author_id IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id LIKE 'user:%');
UPDATE bot_state SET value = (SELECT id FROM network_ids WHERE CAST(number AS TEXT) = bot_state.value AND id NOT LIKE 'user:%')
WHERE name LIKE '%since_id' AND value IN (SELECT CAST(number AS TEXT) FROM network_ids WHERE id NOT LIKE 'user:%');
UPDATE bot_state SET
    value = (SELECT replace(bot_state.value, '"accountID":"' || number || '"', '"accountID":"' || substr(id, 6) || '"') FROM network_ids
             WHERE bot_state.name = 'optout.id:' || number AND id LIKE 'user:%'),
    name = (SELECT 'optout.id:' || substr(id, 6) FROM network_ids WHERE bot_state.name = 'optout.id:' || number AND id LIKE 'user:%')
WHERE name IN (SELECT 'optout.id:' || number FROM network_ids WHERE id LIKE 'user:%');
DROP TABLE network_ids;
