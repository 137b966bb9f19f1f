-- Brings the original's table up to what mirror_bot relies on, keeping every row.

-- Tweets are up to 280 characters; Sequel's String column was varchar(255).
ALTER TABLE tweets ALTER COLUMN text TYPE text;

-- The original stored tweet times without a zone; Heroku runs in UTC, so they are UTC.
ALTER TABLE tweets ALTER COLUMN created_at TYPE timestamptz USING created_at AT TIME ZONE 'UTC';

-- The original could store a tweet twice (an overlapping fetch); keep the first copy, drop unusable rows.
DELETE FROM tweets AS later
USING tweets AS earlier
WHERE later.tweet_id = earlier.tweet_id AND later.id > earlier.id;
DELETE FROM tweets WHERE tweet_id IS NULL OR text IS NULL OR created_at IS NULL;

ALTER TABLE tweets ALTER COLUMN tweet_id SET NOT NULL;
ALTER TABLE tweets ALTER COLUMN text SET NOT NULL;
ALTER TABLE tweets ALTER COLUMN created_at SET NOT NULL;
ALTER TABLE tweets ADD CONSTRAINT tweets_tweet_id_key UNIQUE (tweet_id);

-- `minute` is the minute of the day in the human's zone. The original computed it in the server's local zone,
-- so it is recomputed whenever the archive is opened with a zone other than the one recorded here.
CREATE TABLE archive_settings (
    name text PRIMARY KEY,
    value text NOT NULL
);

-- The row cap deletes the oldest rows; the window sample reads non-replies by minute; replies are read by user.
CREATE INDEX tweets_created_at_index ON tweets (created_at, tweet_id);
CREATE INDEX tweets_minute_index ON tweets (minute) WHERE reply_user_id IS NULL;
CREATE INDEX tweets_reply_user_id_index ON tweets (reply_user_id) WHERE reply_user_id IS NOT NULL;
