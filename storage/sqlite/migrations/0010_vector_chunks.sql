-- The vector table (memory_vectors, made in Go once the embedding dimension is
-- known) is rebuilt with chunks of 64 vectors instead of sqlite-vec's 1024, so
-- that looking up one vector walks a short chain of pages (see
-- createVectorTable). The rebuild runs in Go after this file; the statement
-- below only records the step.
SELECT 1;
