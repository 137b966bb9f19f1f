-- Whether a tweet's text contains a link, and X's bill per UTC day and run; see Migrations/0009_links_and_usage.sql.
ALTER TABLE tweets ADD COLUMN has_link INTEGER;

CREATE TABLE api_usage_days (
    day TEXT NOT NULL,
    run_id TEXT NOT NULL,
    command TEXT NOT NULL,
    bill TEXT NOT NULL,
    cost REAL NOT NULL,
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    PRIMARY KEY (day, run_id)
);
