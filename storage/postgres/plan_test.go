package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
)

// TestHotQueriesUseTheirIndexes fills 10k memories with vectors (where the
// planner would rather scan the table than a badly shaped index query) and
// checks with EXPLAIN that the store's hot queries use their indexes: HNSW
// for nearest neighbours (and the small index of the vectors waiting for
// it), with and without filters, as the planner chooses
// by itself; GIN for keywords, which at 10k rows costs about what a scan
// does (1.3 against 1.9 ms), so there the test only checks that the query's
// shape lets the index serve it (sequential scans off).
func TestHotQueriesUseTheirIndexes(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	const dim = 64
	if _, err := db.ClaimEmbeddingSpace(ctx, memory.EmbeddingSpace{Model: "test", Dimension: dim}); err != nil {
		t.Fatal(err)
	}
	// Built in SQL, the HNSW index after the rows (as a bulk load would):
	// 10k stores through the API would only slow the test.
	if _, err := db.pool.Exec(ctx, `DROP INDEX memories_embedding`); err != nil {
		t.Fatal(err)
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO memories (id, content, content_hash, memory_type, namespace, importance,
			confidence, created_at, updated_at, accessed_at, embedding_pending, search_words, embedding)
		SELECT 'mem_' || i || '_0', 'note ' || i || ' about topic' || (i % 97), md5(i::text), 'decision',
			'project:p' || (i % 10), 0.5, 0.3, now(), now(), now(), false,
			to_tsvector('recall_stemmed', 'note ' || i || ' about topic' || (i % 97)),
			(SELECT array_agg(random() - 0.5) FROM generate_series(1, 64) WHERE i IS NOT NULL)::vector
		FROM generate_series(1, 10000) i`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops); ANALYZE memories`); err != nil {
		t.Fatal(err)
	}
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(i%7) - 3
	}
	for _, c := range []struct {
		name      string
		indexes   []string
		onlyShape bool
		sql       func() (string, params)
	}{
		{"vector", []string{"memories_embedding", "memories_staged"}, false, func() (string, params) { return vectorSQL(ctx, q, memory.Filter{}, 10, false) }},
		{"vector in a namespace", []string{"memories_embedding", "memories_staged"}, false, func() (string, params) {
			return vectorSQL(ctx, q, memory.Filter{Namespaces: []string{"project:p3"}, Types: []memory.Type{memory.TypeDecision}}, 10, false)
		}},
		{"keywords", []string{"memories_search_words"}, true, func() (string, params) {
			return keywordSQL(ctx, keywords.Terms("topic42 zebras"), "||", memory.Filter{}, 10)
		}},
		{"keywords in a namespace", []string{"memories_search_words"}, true, func() (string, params) {
			return keywordSQL(ctx, keywords.Terms("topic42"), "&&", memory.Filter{Namespaces: []string{"project:p3"}}, 10)
		}},
		// The window start, the rare-word counts and the ranking of their
		// candidates: every read of memories by an index.
		{"keywords with their rank window", []string{"memories_search_words"}, true, func() (string, params) {
			return rareKeywordSQL(ctx, keywords.Terms("note topic42 zebras"), memory.Filter{}, 10, true)
		}},
		{"keywords with their rank window in a namespace", []string{"memories_search_words"}, true, func() (string, params) {
			return rareKeywordSQL(ctx, keywords.Terms("note topic42"), memory.Filter{Namespaces: []string{"project:p3"}}, 10, true)
		}},
		{"the rank window alone", []string{"memories_pkey"}, true, func() (string, params) {
			return keywordWindowSQL(ctx, keywords.Terms("note topic42"), memory.Filter{Namespaces: []string{"project:p3"}}, 10)
		}},
		{"the rare words alone", []string{"memories_search_words"}, true, func() (string, params) {
			return rareKeywordSQL(ctx, keywords.Terms("note topic42 zebras"), memory.Filter{Namespaces: []string{"project:p3"}}, 10, false)
		}},
	} {
		query, p := c.sql()
		var plan string
		err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
			if err := db.tuneIndexScan(ctx, tx, 10); err != nil {
				return err
			}
			if c.onlyShape {
				if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
					return err
				}
			}
			rows, err := tx.Query(ctx, "EXPLAIN "+query, p...)
			if err != nil {
				return err
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			plan = strings.Join(lines, "\n")
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, index := range c.indexes {
			if !strings.Contains(plan, index) {
				t.Errorf("%s: the plan does not use %s:\n%s", c.name, index, plan)
			}
		}
		if strings.Contains(plan, "Seq Scan on memories") {
			t.Errorf("%s: the plan reads the whole table somewhere:\n%s", c.name, plan)
		}
	}
}

// TestBatchSettingsHoldForTheQuery: the search sends its index settings and
// its query in one batch; the settings must reach the query (one implicit
// transaction), and not outlive it on the pooled connection.
func TestBatchSettingsHoldForTheQuery(t *testing.T) {
	ctx := context.Background()
	db := openSchema(t)
	b := &pgx.Batch{}
	b.Queue(`SELECT set_config('hnsw.ef_search', $1, true)`, efSearch(300))
	var inside string
	b.Queue(`SELECT current_setting('hnsw.ef_search')`).QueryRow(func(r pgx.Row) error { return r.Scan(&inside) })
	if err := db.pool.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if inside != "600" {
		t.Fatalf("ef_search inside the batch = %q, want 600", inside)
	}
	var after string
	if err := db.pool.QueryRow(ctx, `SELECT coalesce(current_setting('hnsw.ef_search', true), '')`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after == "600" {
		t.Fatal("the batch's setting outlived it")
	}
}
