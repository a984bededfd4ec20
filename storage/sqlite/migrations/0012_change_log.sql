-- The change log: every change to a memory (an edit, a promotion or demotion,
-- a delete and restore, a contradiction resolved) with when, from where (the
-- viewer, an MCP tool, the CLI, a hook, Recall's own curation), the fields
-- changed with their values before and after, and the reason given. Rows are
-- written in the transaction of the change they describe. A memory deleted
-- for good takes its log with it; the viewer's trash keeps it for a restore.
-- Entries kept so far in metadata.edits move here (in Go, after this file).
CREATE TABLE IF NOT EXISTS change_log (
    id         INTEGER PRIMARY KEY,
    memory_id  TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    namespace  TEXT NOT NULL,             -- the memory's, for a project's audit trail
    at         TEXT NOT NULL,
    action     TEXT NOT NULL,             -- edit, promote, demote, delete, restore, ...
    source     TEXT NOT NULL,             -- viewer, mcp, cli, hook, curation
    fields     TEXT NOT NULL DEFAULT '[]', -- [{"field", "before", "after"}]
    reason     TEXT NOT NULL DEFAULT '',
    related_id TEXT NOT NULL DEFAULT ''   -- the other memory of a resolution
) STRICT;

CREATE INDEX IF NOT EXISTS change_log_memory ON change_log (memory_id, id);
CREATE INDEX IF NOT EXISTS change_log_action ON change_log (action, namespace, id);

-- The viewer's live updates read the memories changed since a moment.
CREATE INDEX IF NOT EXISTS memories_updated ON memories (updated_at);
