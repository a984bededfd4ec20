-- Every vector search counts the superseded memories (to ask the sign index
-- for that many more candidates); without this index the count read every
-- edge, 300k of them at 100k memories, on each search.
CREATE INDEX IF NOT EXISTS edges_relation_target ON edges (relation, target_id);
