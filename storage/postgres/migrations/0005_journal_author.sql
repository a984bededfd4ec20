-- Whose work the journal and file activity record (as on SQLite): the person
-- whose hooks captured it, empty for the server machine's own processes. A
-- person reads back their own sessions alone.
ALTER TABLE journal ADD COLUMN IF NOT EXISTS author TEXT NOT NULL DEFAULT '';
ALTER TABLE file_activity ADD COLUMN IF NOT EXISTS author TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS journal_author ON journal (author, namespace, kind, created_at);
CREATE INDEX IF NOT EXISTS file_activity_author ON file_activity (author, created_at);
