-- A slot can be posted without its original's existence check, when the check could not be answered (a 5xx, a rate
-- limit) or there was no time to make it before the slot's minute: the post goes out at its minute all the same,
-- marked posted_unchecked, and its original is looked up within the hour (original_checked_at), its copy deleted if
-- the person deleted it.
ALTER TABLE plan_slots ADD COLUMN posted_unchecked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE plan_slots ADD COLUMN original_checked_at TEXT;
CREATE INDEX plan_slots_unchecked_index ON plan_slots (day, minute) WHERE posted_unchecked = 1 AND original_checked_at IS NULL;
