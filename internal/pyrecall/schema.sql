-- The Python Recall's database (src/recall/storage/sqlite.py, SQLiteStore._init_schema),
-- statement for statement, so tests open the file a user of the Python Recall has.
CREATE TABLE IF NOT EXISTS memories (
    id TEXT PRIMARY KEY,
    content TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    type TEXT NOT NULL DEFAULT 'general',
    namespace TEXT NOT NULL DEFAULT 'default',
    importance REAL NOT NULL DEFAULT 0.5,
    created_at REAL NOT NULL,
    accessed_at REAL NOT NULL,
    access_count INTEGER NOT NULL DEFAULT 0,
    metadata TEXT,
    UNIQUE(content_hash, namespace)
);
CREATE INDEX IF NOT EXISTS idx_memories_namespace ON memories(namespace);
CREATE INDEX IF NOT EXISTS idx_memories_type ON memories(type);
CREATE INDEX IF NOT EXISTS idx_memories_accessed_at ON memories(accessed_at);
CREATE INDEX IF NOT EXISTS idx_memories_importance ON memories(importance);
CREATE INDEX IF NOT EXISTS idx_memories_content_hash ON memories(content_hash);
CREATE TABLE IF NOT EXISTS edges (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    edge_type TEXT NOT NULL DEFAULT 'related',
    weight REAL NOT NULL DEFAULT 1.0,
    created_at REAL NOT NULL,
    metadata TEXT,
    FOREIGN KEY (source_id) REFERENCES memories(id) ON DELETE CASCADE,
    FOREIGN KEY (target_id) REFERENCES memories(id) ON DELETE CASCADE,
    UNIQUE(source_id, target_id, edge_type)
);
CREATE INDEX IF NOT EXISTS idx_edges_source ON edges(source_id);
CREATE INDEX IF NOT EXISTS idx_edges_target ON edges(target_id);
CREATE INDEX IF NOT EXISTS idx_edges_type ON edges(edge_type);
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    created_at REAL NOT NULL,
    processed_at REAL,
    status TEXT NOT NULL DEFAULT 'pending',
    error_message TEXT,
    FOREIGN KEY (memory_id) REFERENCES memories(id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS idx_outbox_status ON outbox(status);
CREATE INDEX IF NOT EXISTS idx_outbox_created_at ON outbox(created_at);
CREATE VIRTUAL TABLE memories_fts USING fts5(
    id,
    content,
    type,
    namespace,
    content='memories',
    content_rowid='rowid'
);
CREATE TRIGGER IF NOT EXISTS memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, id, content, type, namespace)
    VALUES (NEW.rowid, NEW.id, NEW.content, NEW.type, NEW.namespace);
END;
CREATE TRIGGER IF NOT EXISTS memories_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, id, content, type, namespace)
    VALUES ('delete', OLD.rowid, OLD.id, OLD.content, OLD.type, OLD.namespace);
END;
CREATE TRIGGER IF NOT EXISTS memories_au AFTER UPDATE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, id, content, type, namespace)
    VALUES ('delete', OLD.rowid, OLD.id, OLD.content, OLD.type, OLD.namespace);
    INSERT INTO memories_fts(rowid, id, content, type, namespace)
    VALUES (NEW.rowid, NEW.id, NEW.content, NEW.type, NEW.namespace);
END;

-- The validation loop's additions (confidence, validation events, file activity),
-- as the Python Recall's tools read and write them: memory["confidence"],
-- get_validation_events(memory_id, event_type, limit), add_file_activity(file_path,
-- action, session_id, project_root, file_type, metadata). Times are time.time().
ALTER TABLE memories ADD COLUMN confidence REAL NOT NULL DEFAULT 0.3;
CREATE TABLE IF NOT EXISTS validation_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    context TEXT,
    session_id TEXT,
    error_msg TEXT,
    created_at REAL NOT NULL,
    FOREIGN KEY (memory_id) REFERENCES memories(id) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS file_activity (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    file_path TEXT NOT NULL,
    action TEXT NOT NULL,
    session_id TEXT,
    project_root TEXT,
    file_type TEXT,
    metadata TEXT,
    created_at REAL NOT NULL
);
