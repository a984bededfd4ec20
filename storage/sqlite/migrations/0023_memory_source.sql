-- The door each memory came in through (memories.source): mcp, cli, viewer,
-- capture or import; empty for the memories stored before it was recorded,
-- which the viewer shows as not recorded rather than guessing. The column is
-- added in Go after this file, where a column already there is skipped
-- (SQLite has no ADD COLUMN IF NOT EXISTS).
SELECT 1;
