-- The people of a team and their tokens, as on SQLite: a token is never
-- stored, only the SHA-256 of it and of the viewer's cookie derived from it.
-- Removing a person takes their tokens with them.
CREATE TABLE people (
    name         text PRIMARY KEY,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz
);

CREATE TABLE tokens (
    token_hash  text PRIMARY KEY,
    cookie_hash text NOT NULL UNIQUE,
    person      text NOT NULL REFERENCES people (name) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL
);

CREATE INDEX tokens_person ON tokens (person);

-- Who made each change: a person's name, "admin" for the administrator's
-- token, empty for the processes that open the database themselves.
ALTER TABLE memories ADD COLUMN author text NOT NULL DEFAULT '';
ALTER TABLE change_log ADD COLUMN author text NOT NULL DEFAULT '';
ALTER TABLE validation_events ADD COLUMN author text NOT NULL DEFAULT '';
ALTER TABLE edges ADD COLUMN author text NOT NULL DEFAULT '';

-- A memory forgotten for good takes its change log with it; this keeps who
-- forgot what (its id, namespace and hash, never its content) and when.
CREATE TABLE forgotten (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    memory_id    text NOT NULL,
    namespace    text NOT NULL,
    content_hash text NOT NULL,
    at           timestamptz NOT NULL,
    author       text NOT NULL DEFAULT ''
);

CREATE INDEX forgotten_memory ON forgotten (memory_id);
