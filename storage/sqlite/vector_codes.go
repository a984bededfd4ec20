package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// The table vector_codes keeps every vector at one byte a component: each
// component divided by the vector's largest magnitude and rounded to -127..127.
// Cosine does not depend on a vector's length, so no scale is kept. At
// dimension 1024 a code is 1 KB and its row fits in one page, where reading
// the float vector walks its vec0 chunk (up to 8 pages): ranking a search's
// candidates by codes reads an eighth of the pages, and the rounding moves a
// cosine by about 0.002, far less than the gaps the sign bits cannot see.

// vectorCode quantizes vec (see above). A zero vector is refused before it
// gets here (memory.CheckVector).
func vectorCode(vec []float32) []byte {
	var largest float32
	for _, f := range vec {
		largest = max(largest, float32(math.Abs(float64(f))))
	}
	code := make([]byte, len(vec))
	if largest == 0 {
		return code
	}
	scale := 127 / largest
	for i, f := range vec {
		code[i] = byte(int8(math.Round(float64(f * scale))))
	}
	return code
}

// codeOfBlob is vectorCode of a little-endian float32 blob (a vec0 row).
func codeOfBlob(blob []byte) []byte {
	return vectorCode(decodeVector(blob))
}

// putCode records the code of the vector stored for seq.
func putCode(ctx context.Context, tx *sql.Tx, seq int64, vec []float32) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO vector_codes (seq, code) VALUES (?, ?)
		ON CONFLICT (seq) DO UPDATE SET code = excluded.code`, seq, vectorCode(vec)); err != nil {
		return fmt.Errorf("store vector code: %w", err)
	}
	return nil
}

// dropAllCodes forgets every code, with the vectors they copy.
func dropAllCodes(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM vector_codes`)
	return err
}

// backfillCodes computes the codes of the vectors stored before vector_codes
// existed.
func backfillCodes(ctx context.Context, tx *sql.Tx) error {
	return backfillFromVectors(ctx, tx, `INSERT OR REPLACE INTO vector_codes (seq, code) VALUES (?, ?)`,
		func(blob []byte) any { return codeOfBlob(blob) })
}

// scoredSeq is a candidate with its score by code.
type scoredSeq struct {
	seq   int64
	score float64
}

// rankByCodes reads the codes of seqs and returns the n whose codes are
// nearest to vec by cosine, nearest first. A candidate without a code (none
// should lack one) is kept, ahead of the others, so the exact ranking that
// follows decides about it.
func (s *DB) rankByCodes(ctx context.Context, vec []float32, seqs []int64, n int) ([]int64, error) {
	if len(seqs) <= n {
		return seqs, nil
	}
	// Read in the file's order: neighbouring codes share pages.
	list, err := json.Marshal(slices.Sorted(slices.Values(seqs)))
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT seq, code FROM vector_codes
		WHERE seq IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	scored := make([]scoredSeq, 0, len(seqs))
	for rows.Next() {
		var seq int64
		var code sql.RawBytes
		if err := rows.Scan(&seq, &code); err != nil {
			return nil, err
		}
		if len(code) != len(vec) {
			continue // left to the exact ranking, as a missing code
		}
		scored = append(scored, scoredSeq{seq, codeCosine(vec, code)})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []int64
	if len(scored) < len(seqs) {
		coded := make(map[int64]bool, len(scored))
		for _, c := range scored {
			coded[c.seq] = true
		}
		for _, seq := range seqs {
			if !coded[seq] {
				out = append(out, seq)
			}
		}
	}
	slices.SortFunc(scored, func(a, b scoredSeq) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.seq, b.seq))
	})
	for _, c := range scored {
		if len(out) >= n {
			break
		}
		out = append(out, c.seq)
	}
	return out, nil
}

// codeCosine is the cosine of vec and a code, but for the factor 1/|vec|,
// which is the same for every code of one search.
func codeCosine(vec []float32, code []byte) float64 {
	code = code[:len(vec)]
	var dot, norm float32
	for i, b := range code {
		c := float32(int8(b))
		dot += vec[i] * c
		norm += c * c
	}
	if norm == 0 {
		return 0
	}
	return float64(dot) / math.Sqrt(float64(norm))
}
