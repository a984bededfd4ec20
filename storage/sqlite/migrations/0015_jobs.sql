-- One job queue for all work done off the request path: relationship inference
-- after a store (kind relate, subject a memory id) and session summaries (kind
-- summary, subject a session id). One runner works it (package jobs), with one
-- rule: a job is never dropped because Ollama is away or slow; it waits
-- (run_after, doubling up to an hour) and is tried again. A job that can never
-- succeed (a reply that does not parse, say) is not deleted but marked failed,
-- with why (failed_at, last_error), so stats and doctor can show it.
CREATE TABLE jobs (
    id           INTEGER PRIMARY KEY,
    kind         TEXT NOT NULL,
    subject      TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT NOT NULL DEFAULT '',
    leased_until TEXT NOT NULL DEFAULT '',
    run_after    TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    failed_at    TEXT NOT NULL DEFAULT '', -- set when the job failed for good
    rerun        INTEGER NOT NULL DEFAULT 0 -- queued again while it ran: run once more
) STRICT;

-- One pending job per kind and subject; failed ones are kept beside it.
CREATE UNIQUE INDEX jobs_pending ON jobs (kind, subject) WHERE failed_at = '';
CREATE INDEX jobs_due ON jobs (run_after, created_at) WHERE failed_at = '';
CREATE INDEX jobs_failed ON jobs (failed_at) WHERE failed_at != '';

INSERT INTO jobs (kind, subject, attempts, last_error, leased_until, run_after, created_at)
    SELECT kind, memory_id, attempts, last_error, leased_until, run_after, created_at FROM curation_jobs;
INSERT INTO jobs (kind, subject, attempts, last_error, created_at)
    SELECT 'summary', session_id, attempts, last_error, created_at FROM summary_jobs;
DROP TABLE curation_jobs;
DROP TABLE summary_jobs;

-- A memory's pending jobs go with it (curation_jobs cascaded the same way).
CREATE TRIGGER jobs_memory_delete AFTER DELETE ON memories BEGIN
    DELETE FROM jobs WHERE subject = old.id AND failed_at = '';
END;

-- The extractive summary of a session's entries after summarized_through, made
-- without a chat model and replaced by the model's summary when one is made.
ALTER TABLE capture_sessions ADD COLUMN draft_memory_id TEXT NOT NULL DEFAULT '';
