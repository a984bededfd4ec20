-- The sessions a project's journal holds, found by seeking: the prompt hook
-- asks on every prompt whether a project has entries of any session but the
-- current one (HasPastEntries), and searches past sessions only then. With
-- journal_namespace alone the answer for a project's first session meant
-- reading every one of its entries.
CREATE INDEX IF NOT EXISTS journal_namespace_session ON journal (namespace, session_id);
