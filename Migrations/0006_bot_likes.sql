-- Every tweet the bot liked, with the classifier's reason: a tweet is never liked twice, and the log says why.
CREATE TABLE bot_likes (
    tweet_id bigint PRIMARY KEY,
    author_id bigint,
    log_ratio double precision,
    reason text NOT NULL,
    liked_at timestamptz NOT NULL
);
