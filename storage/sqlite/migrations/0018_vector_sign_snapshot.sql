-- A packed copy of every live vector's signs, with its memory's namespace, type
-- and importance, as of a version of vector_signs. A new process reads it in one
-- row instead of rebuilding its copy from every row of vector_signs (most of a
-- second at 100k vectors), then reads the rows changed since. Any process that
-- holds a copy far ahead of it writes a newer one (see sign_snapshot.go).
CREATE TABLE IF NOT EXISTS vector_sign_snapshot (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    version    INTEGER NOT NULL,
    words      INTEGER NOT NULL,
    dictionary TEXT NOT NULL,
    data       BLOB NOT NULL
) STRICT;
