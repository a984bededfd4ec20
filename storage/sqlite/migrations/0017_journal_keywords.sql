-- The journal's keyword index follows the rules of the memories' (package
-- keywords): words stemmed (porter over unicode61, diacritics removed), so
-- "caching" finds "cache", and search_words indexed beside the title and body:
-- the other spellings of their code words ("UserService" adds "user service"),
-- which the program computes and fills in after this script for the entries
-- written before it. The index is rebuilt from the journal.
DROP TRIGGER journal_fts_insert;
DROP TRIGGER journal_fts_delete;
DROP TABLE journal_fts;

ALTER TABLE journal ADD COLUMN search_words TEXT NOT NULL DEFAULT '';

CREATE VIRTUAL TABLE journal_fts USING fts5 (
    title,
    body,
    search_words,
    content = 'journal',
    content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER journal_fts_insert AFTER INSERT ON journal BEGIN
    INSERT INTO journal_fts (rowid, title, body, search_words) VALUES (new.id, new.title, new.body, new.search_words);
END;

CREATE TRIGGER journal_fts_delete AFTER DELETE ON journal BEGIN
    INSERT INTO journal_fts (journal_fts, rowid, title, body, search_words)
    VALUES ('delete', old.id, old.title, old.body, old.search_words);
END;

CREATE TRIGGER journal_fts_update AFTER UPDATE OF title, body, search_words ON journal BEGIN
    INSERT INTO journal_fts (journal_fts, rowid, title, body, search_words)
    VALUES ('delete', old.id, old.title, old.body, old.search_words);
    INSERT INTO journal_fts (rowid, title, body, search_words) VALUES (new.id, new.title, new.body, new.search_words);
END;

INSERT INTO journal_fts (journal_fts) VALUES ('rebuild');
