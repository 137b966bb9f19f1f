-- What the bot's numbers stand for on a network whose ids are not numbers (Misskey's note and user ids): the number
-- the stores key a post or a user by, and the network's id, to ask the network about it again.
CREATE TABLE network_ids (
    number INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
);
