-- Every vector again at one byte a component (int8, scaled by its largest
-- component): 1 KB at dimension 1024, so a row fits in one page, where the
-- float vector in its vec0 chunk takes a walk of up to 8 pages. A search picks
-- its candidates by sign bits, ranks them by these codes in Go and re-ranks only
-- the best few by the exact float cosine (see vector_codes.go). The codes of
-- vectors stored before this table existed are computed in Go after this file.
CREATE TABLE IF NOT EXISTS vector_codes (
    seq  INTEGER PRIMARY KEY,
    code BLOB NOT NULL
) STRICT;

CREATE TRIGGER IF NOT EXISTS vector_codes_delete AFTER DELETE ON memories BEGIN
    DELETE FROM vector_codes WHERE seq = old.seq;
END;
