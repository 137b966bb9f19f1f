-- When each slot was posted, on the bot's clock (which `start --speed` runs fast): the stored record of "posted at
-- its minute", for the summary, the demo's report and the end-to-end tests.
ALTER TABLE plan_slots ADD COLUMN posted_at timestamptz;
