-- The day's posting plan, drawn once per local day and kept, so that a restart reuses it: nothing is re-drawn and
-- no slot is posted twice. A slot is claimed ('posting') before its post is sent; a slot found 'posting' after a
-- restart has an unknown outcome and is skipped, never posted again.
CREATE TABLE day_plans (
    day date PRIMARY KEY,
    time_zone text NOT NULL,
    drawn_at timestamptz NOT NULL
);

CREATE TABLE plan_slots (
    day date NOT NULL REFERENCES day_plans (day) ON DELETE CASCADE,
    minute integer NOT NULL CHECK (minute BETWEEN 0 AND 1439),
    state text NOT NULL DEFAULT 'planned' CHECK (state IN ('planned', 'posting', 'posted', 'skipped')),
    source_tweet_id bigint,
    bot_tweet_id bigint,
    reason text,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (day, minute)
);
