-- The door each memory came in through (as on SQLite): mcp, cli, viewer,
-- capture or import; empty for the memories stored before it was recorded.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS source TEXT NOT NULL DEFAULT '';
