package storage

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/recall-mcp/recall/memory"
)

// signIndex is this process's copy of the vector_signs table: one bit per vector
// component, 128 bytes per 1024-dimension vector. Comparing bits (Hamming
// distance) approximates the angle between vectors about a hundred times faster
// than sqlite-vec's exact cosine scan of the float vectors, so vector search
// takes its candidates from here and ranks only those exactly.
//
// The copy follows the table by version: each search first reads the rows
// changed since the last one, so writes by other processes are seen at once.
type signIndex struct {
	mu      sync.Mutex
	version int64
	words   int // uint64 words per vector

	slot       map[int64]int // seq → position in the slices below
	seqs       []int64
	signs      []uint64 // words per slot, back to back
	live       []bool   // false once the memory or its vector is gone
	namespaces []string
	types      []string
	importance []float64
	strings    map[string]string // see intern

	// searched is set after this process's first vector search (see
	// signCandidates).
	searched bool
	// snapshot is the version of the file's snapshot as this process last
	// read or wrote it; snapshotTried is set once a search looked for one.
	snapshot      int64
	snapshotTried bool
}

func newSignIndex() *signIndex {
	return &signIndex{slot: map[int64]int{}, strings: map[string]string{}}
}

// signBits packs the sign of each component, bit i set when vec[i] > 0.
func signBits(vec []float32) []uint64 {
	out := make([]uint64, (len(vec)+63)/64)
	for i, f := range vec {
		if f > 0 {
			out[i/64] |= 1 << (i % 64)
		}
	}
	return out
}

func encodeSigns(words []uint64) []byte {
	b := make([]byte, 8*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return b
}

// putSigns records the signs of the vector stored for seq, as a new version.
func putSigns(ctx context.Context, tx *sql.Tx, seq int64, vec []float32) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO vector_signs (seq, signs, version)
		VALUES (?, ?, (SELECT coalesce(max(version), 0) + 1 FROM vector_signs))
		ON CONFLICT (seq) DO UPDATE SET signs = excluded.signs, version = excluded.version`,
		seq, encodeSigns(signBits(vec)))
	if err != nil {
		return fmt.Errorf("store vector signs: %w", err)
	}
	return nil
}

// dropAllSigns marks every vector gone, for ResetEmbeddings.
func dropAllSigns(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `UPDATE vector_signs SET signs = NULL,
		version = (SELECT coalesce(max(version), 0) + 1 FROM vector_signs)`); err != nil {
		return err
	}
	return dropSnapshot(ctx, tx)
}

// backfillSigns computes the signs of vectors stored before vector_signs existed.
func backfillSigns(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'memory_vectors'`).Scan(&n); err != nil || n == 0 {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT rowid, embedding FROM memory_vectors`)
	if err != nil {
		return err
	}
	defer rows.Close()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO vector_signs (seq, signs, version) VALUES (?, ?, 1)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for rows.Next() {
		var seq int64
		var blob []byte
		if err := rows.Scan(&seq, &blob); err != nil {
			return err
		}
		if _, err := ins.ExecContext(ctx, seq, encodeSigns(signsOfBlob(blob))); err != nil {
			return err
		}
	}
	return rows.Err()
}

// signsOfBlob is signBits of a little-endian float32 blob.
func signsOfBlob(blob []byte) []uint64 {
	out := make([]uint64, (len(blob)/4+63)/64)
	for i := 0; i+4 <= len(blob); i += 4 {
		// A float32 is positive when its sign bit is clear and it is not zero.
		u := binary.LittleEndian.Uint32(blob[i:])
		if u&0x80000000 == 0 && u&0x7fffffff != 0 {
			out[i/4/64] |= 1 << (i / 4 % 64)
		}
	}
	return out
}

// sync reads the rows changed since the last call.
func (x *signIndex) sync(ctx context.Context, db *sql.DB) error {
	var latest int64
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM vector_signs`).Scan(&latest); err != nil {
		return err
	}
	if latest == x.version {
		return nil
	}
	rows, err := db.QueryContext(ctx, `SELECT s.seq, s.signs, s.version, m.namespace, m.memory_type, m.importance
		FROM vector_signs s LEFT JOIN memories m ON m.seq = s.seq
		WHERE s.version > ? ORDER BY s.version`, x.version)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq, version int64
		var blob, ns, typ sql.RawBytes
		var imp sql.NullFloat64
		if err := rows.Scan(&seq, &blob, &version, &ns, &typ, &imp); err != nil {
			return err
		}
		x.set(seq, blob, x.intern(ns), x.intern(typ), imp.Float64, blob != nil && ns != nil)
		x.version = version
	}
	return rows.Err()
}

// load reads every live vector's signs into an empty copy. Unlike sync it needs
// no order: one statement reads one snapshot, whose latest version comes with
// every row. size is the expected number of rows, to allocate once.
func (x *signIndex) load(ctx context.Context, db *sql.DB, size int) error {
	x.slot = make(map[int64]int, size)
	x.seqs = make([]int64, 0, size)
	x.live = make([]bool, 0, size)
	x.namespaces = make([]string, 0, size)
	x.types = make([]string, 0, size)
	x.importance = make([]float64, 0, size)
	rows, err := db.QueryContext(ctx, `SELECT s.seq, s.signs, m.namespace, m.memory_type, m.importance,
			(SELECT max(version) FROM vector_signs)
		FROM vector_signs s JOIN memories m ON m.seq = s.seq
		WHERE s.signs IS NOT NULL`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq, latest int64
		var blob, ns, typ sql.RawBytes
		var imp float64
		if err := rows.Scan(&seq, &blob, &ns, &typ, &imp, &latest); err != nil {
			return err
		}
		if x.signs == nil { // the first row tells the dimension
			x.words = len(blob) / 8
			x.signs = make([]uint64, 0, size*x.words)
		}
		x.set(seq, blob, x.intern(ns), x.intern(typ), imp, true)
		x.version = latest
	}
	return rows.Err()
}

// slotOf finds the slot of seq. A copy read from the snapshot has its seqs in
// ascending order and no map (building one for 100k vectors costs a fresh
// process tens of milliseconds): it is searched by halves, and the map is built
// the first time a seq comes that would break the order.
func (x *signIndex) slotOf(seq int64) (int, bool) {
	if x.slot != nil {
		i, ok := x.slot[seq]
		return i, ok
	}
	i, ok := slices.BinarySearch(x.seqs, seq)
	if ok || i == len(x.seqs) {
		return i, ok // absent and larger than all: appending keeps the order
	}
	x.slot = make(map[int64]int, len(x.seqs))
	for j, s := range x.seqs {
		x.slot[s] = j
	}
	return 0, false
}

// intern returns one shared string per distinct namespace or type, so that the
// copy holds a handful of strings instead of one per vector.
func (x *signIndex) intern(b []byte) string {
	if s, ok := x.strings[string(b)]; ok { // no allocation for the lookup
		return s
	}
	s := string(b)
	x.strings[s] = s
	return s
}

// set stores one row, starting over when the vectors change dimension (every
// older vector is gone by then: ResetEmbeddings dropped them first).
func (x *signIndex) set(seq int64, blob []byte, ns, typ string, imp float64, live bool) {
	if live && len(blob) != 8*x.words {
		x.words, x.slot = len(blob)/8, map[int64]int{}
		x.seqs, x.signs, x.live = nil, nil, nil
		x.namespaces, x.types, x.importance = nil, nil, nil
	}
	i, ok := x.slotOf(seq)
	if !ok {
		if !live {
			return
		}
		i = len(x.seqs)
		if x.slot != nil {
			x.slot[seq] = i
		}
		x.seqs = append(x.seqs, seq)
		x.signs = append(x.signs, make([]uint64, x.words)...)
		x.live = append(x.live, false)
		x.namespaces = append(x.namespaces, "")
		x.types = append(x.types, "")
		x.importance = append(x.importance, 0)
	}
	x.live[i] = live
	if !live {
		return
	}
	for w := range x.words {
		x.signs[i*x.words+w] = binary.LittleEndian.Uint64(blob[8*w:])
	}
	x.namespaces[i], x.types[i], x.importance[i] = ns, typ, imp
}

// candidates returns the seqs of up to n live vectors passing f's namespace,
// type and importance conditions and visible to p, nearest to query by Hamming distance of the
// signs. Distances are small integers, so a histogram finds the cut-off distance
// without sorting. The caller holds x.mu.
func (x *signIndex) candidates(query []uint64, f memory.Filter, p memory.Principal, n int) []int64 {
	if len(query) != x.words || n <= 0 {
		return nil
	}
	const skip = -1
	dist := make([]int, len(x.seqs))
	count := make([]int, 64*x.words+1)
	for i := range x.seqs {
		if !x.live[i] || !x.passes(i, f) || !p.Sees(x.namespaces[i]) {
			dist[i] = skip
			continue
		}
		v := x.signs[i*x.words : (i+1)*x.words]
		d := 0
		for w, q := range query {
			d += bits.OnesCount64(q ^ v[w])
		}
		dist[i] = d
		count[d]++
	}
	cut, taken := 0, 0
	for cut < len(count)-1 && taken+count[cut] < n {
		taken += count[cut]
		cut++
	}
	atCut := n - taken // how many at exactly the cut-off distance still fit
	var out []int64
	for i, d := range dist {
		switch {
		case d == skip || d > cut:
		case d < cut:
			out = append(out, x.seqs[i])
		case atCut > 0:
			out = append(out, x.seqs[i])
			atCut--
		}
	}
	return out
}

func (x *signIndex) passes(i int, f memory.Filter) bool {
	if len(f.Namespaces) > 0 && !slices.Contains(f.Namespaces, x.namespaces[i]) {
		return false
	}
	if len(f.Types) > 0 && !slices.Contains(f.Types, memory.Type(x.types[i])) {
		return false
	}
	return x.importance[i] >= f.MinImportance
}
