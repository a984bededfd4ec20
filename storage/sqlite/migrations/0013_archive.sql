-- An archived memory is out of the store (never recalled, searched or
-- injected) but kept whole in the trash until a person restores it: the
-- review of stale memories archives what nobody checks any more without
-- losing it. Archived rows are never purged.
ALTER TABLE trash ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
