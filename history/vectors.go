package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
)

// Embedder turns texts into vectors (embedding.Client is one).
type Embedder interface {
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	Model() string
}

// Vectors: a message is embedded in chunks of at most chunkChars (the
// embedding model reads 512 tokens), at most maxChunks of them; the vec0 row
// of chunk k of message id is id*maxChunks+k.
const (
	chunkChars = 1500
	maxChunks  = 16
	// knn is how many nearest chunks a search asks for before its filters.
	knn = 200
)

// chunks cuts text into pieces of at most chunkChars bytes, on rune
// boundaries, at most maxChunks of them.
func chunks(text string) []string {
	var out []string
	for text != "" && len(out) < maxChunks {
		n := min(len(text), chunkChars)
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n--
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// EmbedStats report one embedding run.
type EmbedStats struct {
	Messages int // messages embedded
	Pending  int // messages still without vectors
}

// Embed stores the vectors of messages that have none, batch messages per
// call to the embedder, each batch in its own transaction: stopped at any
// point (Ollama down, process ended) it resumes where it stopped. It embeds at
// most max messages (0: all). Take the Lock first.
func (ix *Index) Embed(ctx context.Context, e Embedder, batch, max int) (EmbedStats, error) {
	var st EmbedStats
	if batch <= 0 {
		batch = 32
	}
	if err := ix.checkModel(ctx, e.Model()); err != nil {
		return st, err
	}
	for max == 0 || st.Messages < max {
		n, err := ix.embedBatch(ctx, e, min(batch, remaining(max, st.Messages)))
		st.Messages += n
		if err != nil || n == 0 {
			st.Pending, _ = ix.pending(ctx)
			return st, err
		}
	}
	st.Pending, _ = ix.pending(ctx)
	return st, nil
}

func remaining(max, done int) int {
	if max == 0 {
		return 1 << 30
	}
	return max - done
}

func (ix *Index) pending(ctx context.Context) (int, error) {
	var n int
	err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE embedded = 0`).Scan(&n)
	return n, err
}

// checkModel forgets the vectors of another model: two models' vectors are
// not comparable.
func (ix *Index) checkModel(ctx context.Context, model string) error {
	prev, err := ix.meta(ctx, "embed_model")
	if err != nil || prev == model {
		return err
	}
	if prev != "" {
		if _, err := ix.db.ExecContext(ctx, `DROP TABLE IF EXISTS vectors`); err != nil {
			return err
		}
		if _, err := ix.db.ExecContext(ctx, `UPDATE messages SET embedded = 0`); err != nil {
			return err
		}
	}
	return ix.setMeta(ctx, "embed_model", model)
}

func (ix *Index) embedBatch(ctx context.Context, e Embedder, n int) (int, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT id, text FROM messages WHERE embedded = 0 ORDER BY id DESC LIMIT ?`, n) // newest first
	if err != nil {
		return 0, err
	}
	var ids []int64
	var texts []string
	var whole []string // each message's text
	var owner []int    // index in ids of each text
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			rows.Close()
			return 0, err
		}
		ids, whole = append(ids, id), append(whole, text)
		for _, c := range chunks(text) {
			texts = append(texts, c)
			owner = append(owner, len(ids)-1)
		}
	}
	rows.Close()
	if len(ids) == 0 {
		return 0, rows.Err()
	}
	vecs, err := e.EmbedDocuments(ctx, texts)
	if err != nil {
		return 0, err
	}
	if len(vecs) != len(texts) {
		return 0, fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	return len(ids), ix.storeVectors(ctx, ids, whole, owner, vecs)
}

// storeVectors stores the vectors of messages ids, whose texts were texts
// (owner[i] is the message of vecs[i]). A message gone or changed meanwhile
// (a rewritten transcript read again while Ollama worked) gets none: its id
// may be another message's now.
func (ix *Index) storeVectors(ctx context.Context, ids []int64, texts []string, owner []int, vecs [][]float32) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`CREATE VIRTUAL TABLE IF NOT EXISTS vectors USING vec0(embedding float[%d] distance_metric=cosine)`, len(vecs[0]))); err != nil {
		return err
	}
	gone := map[int]bool{}
	for i, id := range ids {
		var text string
		err := tx.QueryRowContext(ctx, `SELECT text FROM messages WHERE id = ? AND embedded = 0`, id).Scan(&text)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && text != texts[i]) {
			gone[i] = true
			continue
		}
		if err != nil {
			return err
		}
	}
	chunkNo := map[int]int64{}
	for i, v := range vecs {
		if gone[owner[i]] {
			continue
		}
		blob, err := sqlite_vec.SerializeFloat32(v)
		if err != nil {
			return err
		}
		id := ids[owner[i]]
		rowid := id*maxChunks + chunkNo[owner[i]]
		chunkNo[owner[i]]++
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO vectors(rowid, embedding) VALUES(?, ?)`, rowid, blob); err != nil {
			return fmt.Errorf("store vector (dimension %d): %w", len(v), err)
		}
	}
	for i, id := range ids {
		if gone[i] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET embedded = 1 WHERE id = ?`, id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// hasVectors reports whether any vector is stored.
func (ix *Index) hasVectors(ctx context.Context) (bool, error) {
	var n int
	err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'vectors'`).Scan(&n)
	return n > 0, err
}

// vectorCandidates ranks messages by the similarity of their nearest chunk
// to vec, keeping those at or above threshold that pass the filter.
func (ix *Index) vectorCandidates(ctx context.Context, vec []float32, threshold float64, f filter) ([]candidate, error) {
	ok, err := ix.hasVectors(ctx)
	if err != nil || !ok {
		return nil, err
	}
	blob, err := sqlite_vec.SerializeFloat32(vec)
	if err != nil {
		return nil, err
	}
	rows, err := ix.db.QueryContext(ctx, `WITH near AS (
			SELECT rowid / `+strconv.Itoa(maxChunks)+` AS id, min(distance) AS distance
			FROM vectors WHERE embedding MATCH ? AND k = ? GROUP BY 1)
		SELECT m.id, m.file_id, m.seq, near.distance FROM near
		JOIN messages m ON m.id = near.id JOIN files f ON f.id = m.file_id
		WHERE near.distance <= ? AND `+f.where+` ORDER BY near.distance, m.id`,
		append([]any{blob, knn, 1 - threshold}, f.args...)...)
	return readCandidates(rows, err, "vector search", func(dist float64) float64 { return 1 - dist })
}

// deleteVectors removes the vectors of a file's messages.
func deleteVectors(ctx context.Context, tx *sql.Tx, fileID int64) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'vectors'`).Scan(&n); err != nil || n == 0 {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE rowid IN (
		SELECT m.id * `+strconv.Itoa(maxChunks)+` + k.column1 FROM messages m, (`+chunkNumbers+`) k
		WHERE m.file_id = ? AND m.embedded = 1)`, fileID)
	return err
}

// chunkNumbers is a VALUES list of 0 .. maxChunks-1.
var chunkNumbers = func() string {
	vals := make([]string, maxChunks)
	for i := range vals {
		vals[i] = "(" + strconv.Itoa(i) + ")"
	}
	return "VALUES " + strings.Join(vals, ", ")
}()
