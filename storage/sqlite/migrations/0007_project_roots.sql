-- A project is its root directory (the top level of its git repository, every
-- worktree included, else the directory), never its base name: this table binds
-- each root to the namespace its memories live in. A root that wants a name
-- already bound to another root gets a distinct one. Namespaces in use before
-- this table existed are not bound here: the first root that claims one gets it.
-- After a merge several roots may share one namespace.
CREATE TABLE project_roots (
    root       TEXT PRIMARY KEY,
    namespace  TEXT NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

CREATE INDEX project_roots_namespace ON project_roots (namespace);
