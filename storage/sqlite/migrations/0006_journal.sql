-- The session journal: what hooks captured (prompts, one line per tool call) and
-- the summaries the chat model made of them, beside the curated memories and
-- never mixed with them. Anchors (session, turn, transcript) lead back to the
-- conversation.
CREATE TABLE journal (
    id              INTEGER PRIMARY KEY,
    kind            TEXT NOT NULL,            -- prompt, observation, summary
    namespace       TEXT NOT NULL,
    session_id      TEXT NOT NULL DEFAULT '',
    turn_id         TEXT NOT NULL DEFAULT '',
    transcript_path TEXT NOT NULL DEFAULT '',
    tool_name       TEXT NOT NULL DEFAULT '',
    title           TEXT NOT NULL,            -- one line, for the index
    body            TEXT NOT NULL DEFAULT '', -- the full record, for details
    files           TEXT NOT NULL DEFAULT '[]',
    memory_id       TEXT NOT NULL DEFAULT '', -- the session memory a summary became
    trimmed_bytes   INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL
) STRICT;

CREATE INDEX journal_session ON journal (session_id, id);
CREATE INDEX journal_namespace ON journal (namespace, kind, created_at);
CREATE INDEX journal_created ON journal (created_at);

CREATE VIRTUAL TABLE journal_fts USING fts5 (
    title,
    body,
    content = 'journal',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER journal_fts_insert AFTER INSERT ON journal BEGIN
    INSERT INTO journal_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
END;

CREATE TRIGGER journal_fts_delete AFTER DELETE ON journal BEGIN
    INSERT INTO journal_fts (journal_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;

-- Summaries waiting for the chat model, one per session: a Stop while one waits
-- only moves its turn anchor. Leased like curation jobs, so several processes
-- never summarise one session at once and a dead process's job is taken over.
CREATE TABLE summary_jobs (
    session_id   TEXT PRIMARY KEY,
    reason       TEXT NOT NULL,
    turn_id      TEXT NOT NULL DEFAULT '',
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT NOT NULL DEFAULT '',
    leased_until TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL
) STRICT;

-- Per session: the last journal entry a summary covers, and the chat calls spent.
CREATE TABLE capture_sessions (
    session_id         TEXT PRIMARY KEY,
    summarized_through INTEGER NOT NULL DEFAULT 0,
    model_calls        INTEGER NOT NULL DEFAULT 0
) STRICT;
