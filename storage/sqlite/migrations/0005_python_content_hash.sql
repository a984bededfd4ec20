-- Content hashes as the Python Recall computes them (SHA-256 of the content,
-- first 16 hex characters, nothing normalised), so that the same content
-- deduplicates across the two. recall_content_hash is registered by the driver.
-- No two rows can collide: contents equal byte for byte were already one memory.
UPDATE memories SET content_hash = recall_content_hash(content);
