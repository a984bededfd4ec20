-- A store is acknowledged before its vector enters the HNSW index: putting a
-- 1024-d vector into the graph costs the server milliseconds of CPU, which
-- capped stores near 300 a second. The vector waits here, committed with its
-- memory and searched exactly, until the store's indexer moves it into
-- memories.embedding (storage/postgres/index.go). A memory has at most one
-- of the two. The column has no dimension of its own: the indexer checks it
-- against the embedding space when it moves the vector.
ALTER TABLE memories ADD COLUMN embedding_staged vector;

CREATE INDEX memories_staged ON memories (seq) WHERE embedding_staged IS NOT NULL;

-- The planner's guess of how many memories wait, until autovacuum counts.
ANALYZE memories (embedding_staged);
