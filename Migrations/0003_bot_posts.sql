-- What the bot posted, and which of the human's tweets each post copied: the post picker does not copy the same
-- tweet again within REPOST_AFTER_DAYS, and the daemon can tell what it has already posted.
CREATE TABLE bot_posts (
    id bigserial PRIMARY KEY,
    source_tweet_id bigint NOT NULL,
    bot_tweet_id bigint,
    posted_at timestamptz NOT NULL
);

CREATE INDEX bot_posts_source_tweet_id_index ON bot_posts (source_tweet_id, posted_at);
