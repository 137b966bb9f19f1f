-- The archive of the human's tweets, in the shape the original Ruby bot (2014) created with Sequel.
-- A database made by the original already has this table: IF NOT EXISTS adopts it with all its rows,
-- and 0002 brings it up to date.
CREATE TABLE IF NOT EXISTS tweets (
    id serial PRIMARY KEY,
    tweet_id bigint,
    text varchar(255),
    minute integer,
    reply_user_id bigint,
    created_at timestamp
);
