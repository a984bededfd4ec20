-- Recall schema, version 1.
-- Times are UTC text in one fixed-width form (2006-01-02T15:04:05.000000000Z) so
-- they sort as text and read well in the sqlite3 shell.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

-- seq is the stable rowid the FTS5 and vec0 tables point at; id is the public id.
CREATE TABLE memories (
    seq               INTEGER PRIMARY KEY,
    id                TEXT NOT NULL UNIQUE,
    content           TEXT NOT NULL,
    content_hash      TEXT NOT NULL,
    memory_type       TEXT NOT NULL,
    namespace         TEXT NOT NULL,
    importance        REAL NOT NULL,
    confidence        REAL NOT NULL,
    metadata          TEXT NOT NULL DEFAULT '{}',
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    accessed_at       TEXT NOT NULL,
    access_count      INTEGER NOT NULL DEFAULT 0,
    embedding_pending INTEGER NOT NULL DEFAULT 1,
    UNIQUE (namespace, content_hash)
) STRICT;

CREATE INDEX memories_namespace_created ON memories (namespace, created_at);
CREATE INDEX memories_created ON memories (created_at);
CREATE INDEX memories_type ON memories (memory_type);
CREATE INDEX memories_pending ON memories (embedding_pending) WHERE embedding_pending = 1;

-- Keyword index over content, an external-content table kept in step by triggers.
CREATE VIRTUAL TABLE memories_fts USING fts5 (
    content,
    content = 'memories',
    content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (new.seq, new.content);
END;

CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;

CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    INSERT INTO memories_fts (rowid, content) VALUES (new.seq, new.content);
END;

CREATE TABLE edges (
    id         INTEGER PRIMARY KEY,
    source_id  TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    target_id  TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    relation   TEXT NOT NULL,
    weight     REAL NOT NULL,
    metadata   TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    UNIQUE (source_id, target_id, relation)
) STRICT;

CREATE INDEX edges_target ON edges (target_id, relation);

CREATE TABLE validation_events (
    id                INTEGER PRIMARY KEY,
    memory_id         TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    event_type        TEXT NOT NULL,
    context           TEXT NOT NULL DEFAULT '',
    error_msg         TEXT NOT NULL DEFAULT '',
    session_id        TEXT NOT NULL DEFAULT '',
    confidence_before REAL NOT NULL,
    confidence_after  REAL NOT NULL,
    created_at        TEXT NOT NULL
) STRICT;

CREATE INDEX validation_events_memory ON validation_events (memory_id, created_at);

CREATE TABLE file_activity (
    id           INTEGER PRIMARY KEY,
    file_path    TEXT NOT NULL,
    action       TEXT NOT NULL,
    session_id   TEXT NOT NULL DEFAULT '',
    project_root TEXT NOT NULL DEFAULT '',
    file_type    TEXT NOT NULL DEFAULT '',
    metadata     TEXT NOT NULL DEFAULT '{}',
    created_at   TEXT NOT NULL
) STRICT;

CREATE INDEX file_activity_created ON file_activity (created_at);
CREATE INDEX file_activity_project ON file_activity (project_root, created_at);

-- Curation work that survives a restart. A job with leased_until in the future is
-- being worked on; one whose lease ran out may be claimed again.
CREATE TABLE curation_jobs (
    id           INTEGER PRIMARY KEY,
    memory_id    TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT NOT NULL DEFAULT '',
    leased_until TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    UNIQUE (memory_id, kind)
) STRICT;

CREATE INDEX curation_jobs_created ON curation_jobs (created_at);

CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    namespace  TEXT NOT NULL,
    cwd        TEXT NOT NULL DEFAULT '',
    started_at TEXT NOT NULL,
    ended_at   TEXT NOT NULL DEFAULT '',
    end_reason TEXT NOT NULL DEFAULT ''
) STRICT;
