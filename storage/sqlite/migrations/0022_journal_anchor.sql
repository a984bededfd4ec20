-- A journal entry's own place in its transcript: the id Claude Code gives the
-- hook for the message (a tool call's tool_use_id, a prompt's prompt_id) and
-- the transcript's size when the entry was captured, from where details read
-- the message instead of reading the whole transcript. The columns are added
-- in Go (addJournalAnchor), unless the journal has them: SQLite has no
-- ADD COLUMN IF NOT EXISTS. Entries captured before get the offset -1
-- (unknown): details place them by their turn.
SELECT 1;
