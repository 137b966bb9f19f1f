-- Whether a tweet's text contains a link. X bills a post that contains a URL about 13 times a plain one, so the
-- bot posts such tweets only with POST_LINKS=true. mirror_bot computes it when a tweet is stored (the same rule as
-- X's linking, in Swift: `PostLinks`), and `TweetArchive.prepare()` fills it for rows stored before this column.
ALTER TABLE tweets ADD COLUMN has_link boolean;

-- X's bill by mirror_bot's own count, per UTC day (X's billing day) and per run: each process (a `start`, a `train`)
-- writes its own row, so runs never overwrite each other, and the day's spend, which the daily budget holds to, is
-- their sum. `bill` holds the counts as JSON (resources billed, each once per UTC day, and writes); `cost` is in US dollars.
CREATE TABLE api_usage_days (
    day date NOT NULL,
    run_id text NOT NULL,
    command text NOT NULL,
    bill text NOT NULL,
    cost double precision NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (day, run_id)
);
