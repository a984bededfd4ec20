-- Every search touches the memories it returns (access time and count). A
-- row updated on a full page moves to another, and then every index gets an
-- entry for it, the vector index too: re-inserting a 1024-d vector into the
-- HNSW graph for each memory returned made a search wait hundreds of
-- milliseconds. With half of each page left free the update stays on it (a
-- HOT update: no index touched, as no indexed column changes); the rows are
-- small next to their vectors (stored apart), so half-empty pages cost little. It applies to
-- pages written from now on; `VACUUM FULL memories` rewrites the old ones.
ALTER TABLE memories SET (fillfactor = 50);
