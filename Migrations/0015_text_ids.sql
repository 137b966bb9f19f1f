-- Post and account ids are the networks' own, as text: X's and Mastodon's decimal numbers as they were, Misskey's
-- note ids and Bluesky's record keys and DIDs as their networks write them (PostID and AccountID in BotCore). Every
-- stored number keeps its value as text; the tables and columns keep the original's names. The ids sort as PostID
-- does (shorter first, then bytewise), so an index on that order serves "the newest post".
ALTER TABLE tweets
    ALTER COLUMN tweet_id TYPE text USING tweet_id::text,
    ALTER COLUMN reply_user_id TYPE text USING reply_user_id::text;
CREATE INDEX tweets_id_order_index ON tweets (length(tweet_id), tweet_id COLLATE "C");

ALTER TABLE bot_posts
    ALTER COLUMN source_tweet_id TYPE text USING source_tweet_id::text,
    ALTER COLUMN bot_tweet_id TYPE text USING bot_tweet_id::text;

ALTER TABLE plan_slots
    ALTER COLUMN source_tweet_id TYPE text USING source_tweet_id::text,
    ALTER COLUMN bot_tweet_id TYPE text USING bot_tweet_id::text;

ALTER TABLE mention_replies
    ALTER COLUMN mention_tweet_id TYPE text USING mention_tweet_id::text,
    ALTER COLUMN author_id TYPE text USING author_id::text,
    ALTER COLUMN conversation_id TYPE text USING conversation_id::text,
    ALTER COLUMN reply_tweet_id TYPE text USING reply_tweet_id::text,
    ALTER COLUMN source_tweet_id TYPE text USING source_tweet_id::text;

ALTER TABLE bot_likes
    ALTER COLUMN tweet_id TYPE text USING tweet_id::text,
    ALTER COLUMN author_id TYPE text USING author_id::text;

ALTER TABLE person_likes ALTER COLUMN post_id TYPE text USING post_id::text;

ALTER TABLE like_slots ALTER COLUMN post_id TYPE text USING post_id::text;

ALTER TABLE like_candidates
    ALTER COLUMN post_id TYPE text USING post_id::text,
    ALTER COLUMN author_id TYPE text USING author_id::text;

-- Misskey's notes and users were numbered by the previous releases, what each number stood for kept in network_ids:
-- every number becomes the id it stood for (a note's id; a user's, kept as "user:<id>"), in the tables, in the
-- cursors of bot_state (the newest note read) and in the opt-outs; then network_ids goes. Other networks' databases
-- have no rows in network_ids, and nothing of theirs changes.
UPDATE tweets SET tweet_id = n.id FROM network_ids n WHERE tweets.tweet_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE bot_posts SET source_tweet_id = n.id FROM network_ids n WHERE bot_posts.source_tweet_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE bot_posts SET bot_tweet_id = n.id FROM network_ids n WHERE bot_posts.bot_tweet_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE plan_slots SET source_tweet_id = n.id FROM network_ids n WHERE plan_slots.source_tweet_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE plan_slots SET bot_tweet_id = n.id FROM network_ids n WHERE plan_slots.bot_tweet_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE mention_replies SET mention_tweet_id = n.id FROM network_ids n WHERE mention_replies.mention_tweet_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE mention_replies SET conversation_id = n.id FROM network_ids n WHERE mention_replies.conversation_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE mention_replies SET reply_tweet_id = n.id FROM network_ids n WHERE mention_replies.reply_tweet_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE mention_replies SET source_tweet_id = n.id FROM network_ids n WHERE mention_replies.source_tweet_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE bot_likes SET tweet_id = n.id FROM network_ids n WHERE bot_likes.tweet_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE person_likes SET post_id = n.id FROM network_ids n WHERE person_likes.post_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE like_slots SET post_id = n.id FROM network_ids n WHERE like_slots.post_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE like_candidates SET post_id = n.id FROM network_ids n WHERE like_candidates.post_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE training_examples SET tweet_id = n.id FROM network_ids n WHERE training_examples.tweet_id = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE tweets SET reply_user_id = substr(n.id, 6) FROM network_ids n WHERE tweets.reply_user_id = n.number::text AND n.id LIKE 'user:%';
UPDATE mention_replies SET author_id = substr(n.id, 6) FROM network_ids n WHERE mention_replies.author_id = n.number::text AND n.id LIKE 'user:%';
UPDATE bot_likes SET author_id = substr(n.id, 6) FROM network_ids n WHERE bot_likes.author_id = n.number::text AND n.id LIKE 'user:%';
UPDATE like_candidates SET author_id = substr(n.id, 6) FROM network_ids n WHERE like_candidates.author_id = n.number::text AND n.id LIKE 'user:%';
UPDATE bot_state SET value = n.id FROM network_ids n WHERE bot_state.name LIKE '%since_id' AND bot_state.value = n.number::text AND n.id NOT LIKE 'user:%';
UPDATE bot_state SET name = 'optout.id:' || substr(n.id, 6),
    value = replace(bot_state.value, '"accountID":"' || n.number::text || '"', '"accountID":"' || substr(n.id, 6) || '"')
FROM network_ids n WHERE bot_state.name = 'optout.id:' || n.number::text AND n.id LIKE 'user:%';
DROP TABLE network_ids;
