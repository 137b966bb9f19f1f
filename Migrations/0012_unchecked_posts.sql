-- A slot can be posted without its original's existence check, when the check could not be answered (a 5xx, a rate
-- limit): the post goes out all the same, marked unchecked, and the original is checked again within the hour (its
-- copy deleted if the person deleted it).
ALTER TABLE plan_slots ADD COLUMN unchecked boolean NOT NULL DEFAULT false;
CREATE INDEX plan_slots_unchecked_index ON plan_slots (day, minute) WHERE unchecked;
