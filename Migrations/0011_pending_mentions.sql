-- A mention can be 'pending': the bot stopped during its pause before answering, nothing sent; the next start
-- answers it while it is fresh, else skips it saying so.
ALTER TABLE mention_replies DROP CONSTRAINT mention_replies_state_check;
ALTER TABLE mention_replies ADD CONSTRAINT mention_replies_state_check
    CHECK (state IN ('replying', 'replied', 'skipped', 'pending'));
