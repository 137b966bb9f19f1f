-- Likes planned like posts: the person's own likes with when they gave them (exact where the network says, else the
-- liked post's time), each day's like slots drawn from them, and the posts that passed the like threshold, kept until
-- a slot takes the best of them.
CREATE TABLE person_likes (
    post_id bigint PRIMARY KEY,
    liked_at timestamptz NOT NULL,
    exact boolean NOT NULL
);
CREATE TABLE like_plans (
    day date PRIMARY KEY,
    drawn_at timestamptz NOT NULL
);
CREATE TABLE like_slots (
    day date NOT NULL REFERENCES like_plans (day) ON DELETE CASCADE,
    minute integer NOT NULL CHECK (minute BETWEEN 0 AND 1439),
    state text NOT NULL DEFAULT 'planned' CHECK (state IN ('planned', 'liked', 'skipped')),
    post_id bigint,
    log_ratio double precision,
    reason text,
    done_at timestamptz,
    PRIMARY KEY (day, minute)
);
CREATE TABLE like_candidates (
    post_id bigint PRIMARY KEY,
    author_id bigint,
    author_handle text,
    log_ratio double precision NOT NULL,
    reason text NOT NULL,
    posted_at timestamptz NOT NULL
);
CREATE INDEX like_candidates_posted_at_index ON like_candidates (posted_at);
