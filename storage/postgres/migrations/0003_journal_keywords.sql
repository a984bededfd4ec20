-- The journal's keywords follow the memories' rules (as on SQLite): words
-- stemmed, and the other spellings of code words indexed beside the title
-- and body. New entries get them from the store; entries written before are
-- re-indexed here by PostgreSQL's own parser, which finds the same words in
-- ordinary text.
UPDATE journal SET search_words = to_tsvector('recall_stemmed', lower(title || ' ' || body));
