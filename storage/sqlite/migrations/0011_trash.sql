-- A deleted memory's full record (the memory, its edges both ways and its
-- validation events, as JSON), written in the delete's transaction so it can
-- be restored; rows older than the trash's keeping time are purged on later
-- deletes and listings.
CREATE TABLE IF NOT EXISTS trash (
    memory_id  TEXT PRIMARY KEY,
    deleted_at TEXT NOT NULL,
    record     TEXT NOT NULL
) STRICT;

CREATE INDEX IF NOT EXISTS trash_deleted_at ON trash (deleted_at);
