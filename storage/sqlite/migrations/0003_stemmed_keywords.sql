-- Keywords that mean something: the index stems words (porter over unicode61 with
-- diacritics removed), so "caching" finds "cache", and it indexes search_words
-- beside the content: the other spellings of the content's code words
-- ("UserService" adds "user service", "user_service" adds "userservice"), which
-- the program computes (keywords.SearchWords) and fills in after this script for
-- memories stored before it. The index is rebuilt from the memories.

DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TRIGGER memories_fts_update;
DROP TABLE memories_fts;

ALTER TABLE memories ADD COLUMN search_words TEXT NOT NULL DEFAULT '';

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    content,
    search_words,
    content = 'memories',
    content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content, search_words) VALUES (new.seq, new.content, new.search_words);
END;

CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, search_words)
    VALUES ('delete', old.seq, old.content, old.search_words);
END;

CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, search_words ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, search_words)
    VALUES ('delete', old.seq, old.content, old.search_words);
    INSERT INTO memories_fts (rowid, content, search_words) VALUES (new.seq, new.content, new.search_words);
END;

INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');
