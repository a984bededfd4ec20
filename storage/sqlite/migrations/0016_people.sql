-- The people of a team and their tokens. A token is never stored: only the
-- SHA-256 of it (token_hash) and of the viewer's cookie derived from it
-- (cookie_hash), so a copy of the database opens nothing. Removing a person
-- takes their tokens with them.
CREATE TABLE IF NOT EXISTS people (
    name         TEXT PRIMARY KEY,
    created_at   TEXT NOT NULL,
    last_seen_at TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE IF NOT EXISTS tokens (
    token_hash  TEXT PRIMARY KEY,
    cookie_hash TEXT NOT NULL UNIQUE,
    person      TEXT NOT NULL REFERENCES people (name) ON DELETE CASCADE,
    created_at  TEXT NOT NULL
) STRICT;

CREATE INDEX IF NOT EXISTS tokens_person ON tokens (person);

-- Who made each change (memories, change_log, validation_events and edges
-- get an author column: a person's name, "admin" for the administrator's
-- token, empty for the processes of the machine that holds the database) is
-- added in Go after this file, where a column already there is skipped.

-- A memory forgotten for good takes its change log with it; this keeps who
-- forgot what (its id, namespace and hash, never its content) and when.
CREATE TABLE IF NOT EXISTS forgotten (
    id           INTEGER PRIMARY KEY,
    memory_id    TEXT NOT NULL,
    namespace    TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    at           TEXT NOT NULL,
    author       TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX IF NOT EXISTS forgotten_memory ON forgotten (memory_id);
