-- The sign bit of every vector component (bit i of signs is set when component i
-- is positive), one row per memory with a vector. Each process keeps these bits in
-- memory to pick vector-search candidates by Hamming distance before ranking them
-- exactly; version grows with every change so a process re-reads only the rows
-- changed since it last looked, whichever process changed them. A row whose
-- vector is gone (memory deleted, embeddings reset) keeps its seq with NULL signs,
-- so that the removal too is seen as a change.
CREATE TABLE vector_signs (
    seq     INTEGER PRIMARY KEY,
    signs   BLOB,
    version INTEGER NOT NULL
) STRICT;

CREATE INDEX vector_signs_version ON vector_signs (version);

CREATE TRIGGER vector_signs_delete AFTER DELETE ON memories BEGIN
    UPDATE vector_signs SET signs = NULL,
        version = (SELECT max(version) FROM vector_signs) + 1
    WHERE seq = old.seq;
END;

-- The filters namespace, type and importance are read with the signs.
CREATE TRIGGER vector_signs_update AFTER UPDATE OF namespace, memory_type, importance ON memories BEGIN
    UPDATE vector_signs SET version = (SELECT max(version) FROM vector_signs) + 1
    WHERE seq = new.seq;
END;
