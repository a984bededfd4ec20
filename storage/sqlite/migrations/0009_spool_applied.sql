-- Writes applied from the spool (see package spool): hooks that found the
-- write lock held left them as files beside the database. Recording a write's
-- id in the transaction that applies it makes a second application do nothing,
-- when a drainer stopped between the commit and removing the file, or two
-- drainers read the same file. Rows older than a week are dropped as writes are
-- applied: by then the file is long gone.
CREATE TABLE spool_applied (
    id         TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;
