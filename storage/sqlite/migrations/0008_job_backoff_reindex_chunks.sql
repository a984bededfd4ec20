-- Curation jobs that failed for a passing reason (Ollama down, a timeout, a
-- model not pulled yet) wait until run_after before they are claimed again, so
-- a failing job goes behind the others instead of holding up the queue. '' means
-- due at once. Jobs are never dropped for such failures: they stay until done
-- or until their memory is deleted.
ALTER TABLE curation_jobs ADD COLUMN run_after TEXT NOT NULL DEFAULT '';

CREATE INDEX curation_jobs_due ON curation_jobs (run_after, created_at);

-- How each model role ('chat', 'embed') fared lately, shared by every process, so
-- that `recall stats` and `recall doctor` can say once why judgments keep failing
-- instead of every job logging the same failure.
CREATE TABLE model_health (
    role          TEXT PRIMARY KEY,
    failures      INTEGER NOT NULL DEFAULT 0, -- failures in a row; 0 once a call succeeds
    last_error    TEXT NOT NULL DEFAULT '',   -- what went wrong and what to check
    failing_since TEXT NOT NULL DEFAULT '',
    updated_at    TEXT NOT NULL
) STRICT;

-- Vectors of a reindex in progress (`recall reindex`), kept apart from
-- memory_vectors until every memory has one, so the old vectors stay searchable
-- meanwhile and a run that was interrupted or killed continues where it stopped.
-- The target model and dimension are in meta (reindex_model, reindex_dimension);
-- content_hash tells a vector made before the memory's content changed.
CREATE TABLE reindex_vectors (
    seq          INTEGER PRIMARY KEY REFERENCES memories (seq) ON DELETE CASCADE,
    content_hash TEXT NOT NULL,
    embedding    BLOB NOT NULL
) STRICT;

-- Vectors of the later parts of memories longer than the embedding model's
-- context (the first part is the memory's vector in memory_vectors): a long
-- memory is scored by its best part. Few memories are that long, so these are
-- plain blobs compared by a scan. Dropped when the embedding space changes.
CREATE TABLE memory_chunks (
    seq       INTEGER NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
    part      INTEGER NOT NULL,
    embedding BLOB NOT NULL,
    PRIMARY KEY (seq, part)
) STRICT;
