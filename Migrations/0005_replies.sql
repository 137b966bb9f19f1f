-- Small pieces of the daemon's state that must survive restarts, such as the newest mention already seen.
CREATE TABLE bot_state (
    name text PRIMARY KEY,
    value text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every mention the bot handled, answered or not: a mention is never answered twice, and the per-user and
-- per-thread limits that stop two bots from talking forever are counted here. A row is written ('replying') before
-- the answer is sent; one found 'replying' after a restart has an unknown outcome and is not sent again.
CREATE TABLE mention_replies (
    mention_tweet_id bigint PRIMARY KEY,
    author_id bigint NOT NULL,
    conversation_id bigint,
    state text NOT NULL CHECK (state IN ('replying', 'replied', 'skipped')),
    reply_tweet_id bigint,
    source_tweet_id bigint,
    reason text,
    handled_at timestamptz NOT NULL
);

CREATE INDEX mention_replies_author_index ON mention_replies (author_id, handled_at) WHERE state <> 'skipped';
CREATE INDEX mention_replies_conversation_index ON mention_replies (conversation_id) WHERE state <> 'skipped';
