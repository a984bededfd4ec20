-- Whose work the journal and file activity record: the person whose hooks
-- captured it (empty for the processes of the machine that holds the
-- database, as before there were people). A person reads back their own
-- sessions alone; the administrator and this machine read them all. The
-- author columns and their indexes are added in Go after this file, where a
-- column already there is skipped (SQLite has no ADD COLUMN IF NOT EXISTS).
SELECT 1;
