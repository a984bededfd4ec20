package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// The snapshot (table vector_sign_snapshot) is the sign copy of one process
// written down: per live vector, its seq (8 bytes), the index of its namespace
// and of its type in the dictionary (2 bytes each), its importance (8 bytes)
// and its signs (8 bytes a word). 150 bytes a vector of dimension 1024: 15 MB
// at 100k, read in one statement.

// snapshotLag is how far (in versions) a process's copy may get ahead of the
// snapshot before that process writes a newer one; new processes read the rows
// in between themselves.
const snapshotLag = 1_000

// snapshotDictionary names the namespaces and types the records point into.
type snapshotDictionary struct {
	Namespaces []string `json:"namespaces"`
	Types      []string `json:"types"`
}

// snapshotVersion returns the version of the snapshot, 0 when there is none.
func snapshotVersion(ctx context.Context, q querier) (int64, error) {
	var v int64
	err := q.QueryRowContext(ctx, `SELECT version FROM vector_sign_snapshot WHERE id = 1`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

// readSnapshot fills an empty copy from the snapshot and reports whether there
// was one. The copy is then at the snapshot's version: sync reads the rest.
func (x *signIndex) readSnapshot(ctx context.Context, q querier) (bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT version, words, dictionary, data FROM vector_sign_snapshot WHERE id = 1`)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return false, rows.Err()
	}
	var version int64
	var words int
	var dictText string
	var data sql.RawBytes // read in place: no copy of 15 MB
	if err := rows.Scan(&version, &words, &dictText, &data); err != nil {
		return false, err
	}
	var dict snapshotDictionary
	if err := json.Unmarshal([]byte(dictText), &dict); err != nil {
		return false, fmt.Errorf("vector sign snapshot dictionary: %w", err)
	}
	size := 20 + 8*words
	if words <= 0 || len(data)%size != 0 {
		return false, fmt.Errorf("vector sign snapshot: %d bytes is no whole number of %d-byte records", len(data), size)
	}
	n := len(data) / size
	x.words = words
	x.slot = nil // seqs are in ascending order: see slotOf
	x.seqs = make([]int64, n)
	x.signs = make([]uint64, n*words)
	x.live = make([]bool, n)
	x.namespaces = make([]uint32, n)
	x.types = make([]uint32, n)
	x.importance = make([]float64, n)
	nsIDs, typeIDs := make([]uint32, len(dict.Namespaces)), make([]uint32, len(dict.Types))
	for i, name := range dict.Namespaces {
		nsIDs[i] = x.intern([]byte(name))
	}
	for i, name := range dict.Types {
		typeIDs[i] = x.intern([]byte(name))
	}
	for i := range n {
		rec := data[i*size : (i+1)*size]
		seq := int64(binary.LittleEndian.Uint64(rec))
		ns, typ := int(binary.LittleEndian.Uint16(rec[8:])), int(binary.LittleEndian.Uint16(rec[10:]))
		if ns >= len(dict.Namespaces) || typ >= len(dict.Types) {
			return false, fmt.Errorf("vector sign snapshot: record %d points outside the dictionary", i)
		}
		if i > 0 && seq <= x.seqs[i-1] {
			return false, fmt.Errorf("vector sign snapshot: seqs out of order at record %d", i)
		}
		x.seqs[i], x.live[i] = seq, true
		x.namespaces[i], x.types[i] = nsIDs[ns], typeIDs[typ]
		x.importance[i] = math.Float64frombits(binary.LittleEndian.Uint64(rec[12:]))
		signs, src := x.signs[i*words:(i+1)*words], rec[20:]
		for w := range signs {
			signs[w] = binary.LittleEndian.Uint64(src[8*w:])
		}
	}
	x.version, x.snapshot = version, version
	return true, nil
}

// encodeSnapshot packs the live vectors of the copy. The caller holds x.mu or
// owns x alone.
func (x *signIndex) encodeSnapshot() (dict string, data []byte, err error) {
	var d snapshotDictionary
	nsIndex, typeIndex := map[string]int{}, map[string]int{}
	code := func(index map[string]int, list *[]string, s string) int {
		i, ok := index[s]
		if !ok {
			i = len(*list)
			index[s] = i
			*list = append(*list, s)
		}
		return i
	}
	size := 20 + 8*x.words
	data = make([]byte, 0, len(x.seqs)*size)
	rec := make([]byte, size)
	order := make([]int, 0, len(x.seqs))
	for i := range x.seqs {
		if x.live[i] {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(x.seqs[a], x.seqs[b]) })
	for _, i := range order {
		seq := x.seqs[i]
		ns, typ := code(nsIndex, &d.Namespaces, x.names[x.namespaces[i]]), code(typeIndex, &d.Types, x.names[x.types[i]])
		if ns > math.MaxUint16 || typ > math.MaxUint16 {
			return "", nil, fmt.Errorf("more than %d namespaces: no snapshot", math.MaxUint16)
		}
		binary.LittleEndian.PutUint64(rec, uint64(seq))
		binary.LittleEndian.PutUint16(rec[8:], uint16(ns))
		binary.LittleEndian.PutUint16(rec[10:], uint16(typ))
		binary.LittleEndian.PutUint64(rec[12:], math.Float64bits(x.importance[i]))
		for w := range x.words {
			binary.LittleEndian.PutUint64(rec[20+8*w:], x.signs[i*x.words+w])
		}
		data = append(data, rec...)
	}
	b, err := json.Marshal(d)
	return string(b), data, err
}

// writeSnapshot replaces the snapshot with one at version, unless the file
// already holds a newer one (another process wrote it meanwhile).
func writeSnapshot(ctx context.Context, db *sql.DB, version int64, words int, dict string, data []byte) error {
	_, err := db.ExecContext(ctx, `INSERT INTO vector_sign_snapshot (id, version, words, dictionary, data)
		VALUES (1, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET version = excluded.version, words = excluded.words,
			dictionary = excluded.dictionary, data = excluded.data
		WHERE excluded.version > vector_sign_snapshot.version`, version, words, dict, data)
	return err
}

// dropSnapshot removes the snapshot, when every vector is dropped.
func dropSnapshot(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM vector_sign_snapshot`)
	return err
}
