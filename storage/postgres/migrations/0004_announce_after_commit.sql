-- Changes are announced by the store after its transaction commits, not by
-- triggers inside it: a NOTIFY in a transaction holds a lock every notifying
-- commit of the database waits on, through the commit's flush to disk, which
-- made writers of every server take turns.
DROP TRIGGER memories_notify ON memories;
DROP TRIGGER edges_notify ON edges;
DROP FUNCTION recall_notify_change();
