-- The week (days since 1970 / 7) a tweet was learned in, so that `normal` markers are let go after a few weeks
-- (LearnedMarkers.normalWeeks) instead of growing without end; markers of likes are kept. Markers stored before
-- this column count from now.
ALTER TABLE learned_tweets ADD COLUMN week INTEGER;
UPDATE learned_tweets SET week = CAST((julianday('now') - 2440587.5) / 7 AS INTEGER);
