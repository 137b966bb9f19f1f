-- A status's content warning (Mastodon's spoiler_text), kept with its text when POST_CW=true so that the copy is
-- posted behind the same warning. NULL for a post without one (every X post).
ALTER TABLE tweets ADD COLUMN content_warning TEXT;
