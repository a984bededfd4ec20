-- File activity stays fast and bounded. file_activity_recent finds the latest
-- touches through the created_at indexes and counts each file's touches through
-- file_activity_file. Touches older than the retention window are folded into one
-- summary row per file, project and action: touches says how many touches a row
-- stands for (1 for a plain touch), summary marks the folded rows.
ALTER TABLE file_activity ADD COLUMN touches INTEGER NOT NULL DEFAULT 1;
ALTER TABLE file_activity ADD COLUMN summary INTEGER NOT NULL DEFAULT 0;
CREATE INDEX file_activity_file ON file_activity (file_path, created_at);
