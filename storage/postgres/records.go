package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// Import writes records in one transaction: all of them or, on error, none.
// It follows the SQLite store's rules (storage.DB.Import), so an export moves
// between the two either way.
func (s *DB) Import(ctx context.Context, r memory.Records) (*memory.ImportResult, error) {
	var res *memory.ImportResult
	var staged []int64
	err := s.writeChanged(ctx, func(tx pgx.Tx) error {
		var ids map[string]string
		var err error
		if res, ids, err = writeRecords(ctx, tx, r); err != nil {
			return err
		}
		if staged, err = writeVectors(ctx, tx, r, ids, res); err != nil {
			return err
		}
		// Rows that kept their ids leave the id sequences behind them.
		for _, table := range []string{"edges", "validation_events", "change_log", "file_activity", "journal"} {
			if _, err := tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence('`+table+`', 'id'),
				greatest((SELECT max(id) FROM `+table+`), 1))`); err != nil {
				return fmt.Errorf("import: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, seq := range staged {
		s.staged(seq)
	}
	return res, nil
}

// writeVectors stores the imported vectors of the memories this import
// wrote (ids: the id each is stored under; staged for the index, index.go), when they are of this store's
// embedding space or it has none yet (then theirs becomes it); otherwise
// the memories stay pending, to be embedded again, and res says why. It
// returns the staged memories' seqs.
func writeVectors(ctx context.Context, tx pgx.Tx, r memory.Records, ids map[string]string, res *memory.ImportResult) ([]int64, error) {
	if len(r.Vectors) == 0 {
		return nil, nil
	}
	if ok, err := storage.TakeImportedSpace(ctx, newSharedTx(tx), r.Space, res); !ok {
		return nil, err
	}
	var seqs []int64
	for _, m := range r.Memories {
		vec, ok := r.Vectors[m.ID]
		if !ok || ids[m.ID] != m.ID {
			continue
		}
		// Only a memory written now and still waiting: one stored before
		// keeps its own vector.
		var seq int64
		err := tx.QueryRow(ctx, `UPDATE memories SET embedding = NULL, embedding_staged = $1, embedding_pending = false
			WHERE id = $2 AND embedding_pending RETURNING seq`, vector(vec), m.ID).Scan(&seq)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("vector of %s: %w", m.ID, err)
		}
		seqs = append(seqs, seq)
		res.Vectors++
	}
	return seqs, nil
}

// writeRecords writes records inside tx (storage.Statements.WriteRecords),
// the memories and journal entries in this engine's SQL.
func writeRecords(ctx context.Context, tx pgx.Tx, r memory.Records) (*memory.ImportResult, map[string]string, error) {
	return statements(tx).WriteRecords(ctx, newSharedTx(tx), r)
}

// keepID is the SQL of an id column that keeps an incoming id when it is set
// and free, so an export read back into an empty database is the same
// database.
func keepID(table string) string {
	return `CASE WHEN $1 > 0 AND NOT EXISTS (SELECT 1 FROM ` + table + ` WHERE id = $1) THEN $1
		ELSE nextval(pg_get_serial_sequence('` + table + `', 'id')) END`
}

// ImportJournal writes journal entries, keeping their ids where free; an
// entry already stored (same kind, session, time and title) is left out.
func (t sharedTx) ImportJournal(ctx context.Context, es []journal.Entry, res *memory.ImportResult, p *memory.RecordCounter) error {
	tx := t.tx
	for _, e := range es {
		p.Step()
		files, err := json.Marshal(orEmptyStrings(e.Files))
		if err != nil {
			return fmt.Errorf("journal entry %d: %w", e.ID, err)
		}
		tag, err := tx.Exec(ctx, `INSERT INTO journal (id, kind, namespace, session_id, turn_id, transcript_path,
				tool_name, title, body, files, memory_id, trimmed_bytes, created_at, search_words, author, anchor_id, transcript_offset)
			SELECT `+keepID("journal")+`, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, to_tsvector('`+stemmed+`', $14), $15, $16, $17
			WHERE NOT EXISTS (SELECT 1 FROM journal WHERE kind = $2 AND session_id = $4 AND created_at = $13 AND title = $8)`,
			e.ID, string(e.Kind), e.Namespace, e.SessionID, e.TurnID, e.TranscriptPath, e.ToolName, e.Title, e.Body,
			string(files), e.MemoryID, e.TrimmedBytes, e.CreatedAt, journalWords(e.Title, e.Body), e.Author, e.AnchorID, e.TranscriptOffset)
		if err != nil {
			return fmt.Errorf("journal entry %d: %w", e.ID, err)
		}
		if tag.RowsAffected() == 1 {
			res.Journal++
		} else {
			res.JournalExisting++
		}
	}
	return nil
}

func orEmptyStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Export reads every record inside one repeatable-read transaction (a
// consistent snapshot while other processes write) and hands each to v, in
// the SQLite store's order.
func (s *DB) Export(ctx context.Context, v memory.RecordVisitor) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		st := statements(tx)
		steps := []func() error{
			func() error {
				return each(ctx, tx, v.Memory != nil, `SELECT `+memoryColumns+` FROM memories m WHERE `+visibleSQL(ctx, "m")+` ORDER BY m.created_at, m.seq`, func(r pgx.Rows) error {
					m, _, err := scanMemory(r)
					if err != nil {
						return err
					}
					return v.Memory(m)
				})
			},
			func() error { return st.ExportEdges(ctx, v.Edge) },
			func() error { return st.ExportEvents(ctx, v.Event) },
			func() error { return st.ExportChanges(ctx, v.Change) },
			func() error { return st.ExportFiles(ctx, v.File) },
			func() error {
				return each(ctx, tx, v.Project != nil, `SELECT root, namespace, created_at FROM project_roots ORDER BY root`, func(r pgx.Rows) error {
					var root, ns string
					var at time.Time
					if err := r.Scan(&root, &ns, &at); err != nil {
						return err
					}
					return v.Project(map[string]any{"root": root, "namespace": ns, "created_at": at.UTC().Format(time.RFC3339Nano)})
				})
			},
			func() error { return st.ExportArchived(ctx, v.Archived) },
			func() error { return st.ExportJournal(ctx, v.Journal) },
			func() error { return exportVectors(ctx, tx, v) },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return fmt.Errorf("export: %w", err)
			}
		}
		return nil
	})
}

// exportVectors hands v the embedding space, then the vector of every
// memory that has one (staged or indexed), in the memories' order.
func exportVectors(ctx context.Context, tx pgx.Tx, v memory.RecordVisitor) error {
	if v.Vector == nil {
		return nil
	}
	sp, err := embeddingSpace(ctx, tx)
	if err != nil || sp.Model == "" {
		return err // vectors of no named model are made again by the importer's
	}
	put := storage.VectorsTo(v, sp)
	return each(ctx, tx, true, `SELECT m.id, coalesce(m.embedding_staged, m.embedding) FROM memories m
		WHERE NOT m.embedding_pending AND coalesce(m.embedding_staged, m.embedding) IS NOT NULL AND `+visibleSQL(ctx, "m")+`
		ORDER BY m.created_at, m.seq`, func(r pgx.Rows) error {
		var id string
		var vec pgvector.Vector
		if err := r.Scan(&id, &vec); err != nil {
			return err
		}
		return put(id, vec.Slice())
	})
}

// each runs query when want and calls fn for every row.
func each(ctx context.Context, tx pgx.Tx, want bool, query string, fn func(pgx.Rows) error, args ...any) error {
	if !want {
		return nil
	}
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
