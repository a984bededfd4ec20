-- A journal entry's own place in its transcript (as on SQLite): the id Claude
-- Code gives the hook for the message (a tool call's tool_use_id, a prompt's
-- prompt_id) and the transcript's size when the entry was captured.
ALTER TABLE journal ADD COLUMN IF NOT EXISTS anchor_id text NOT NULL DEFAULT '';
ALTER TABLE journal ADD COLUMN IF NOT EXISTS transcript_offset bigint NOT NULL DEFAULT 0;
-- Entries captured before have no offset (-1): details place them by their turn.
UPDATE journal SET transcript_offset = -1;
