package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/recall-mcp/recall/internal/benchreport"
	"github.com/recall-mcp/recall/memory"
)

// codeOf reads the stored code of the memory m (nil when it has none).
func codeOf(t *testing.T, db *DB, m *memory.Memory) []byte {
	t.Helper()
	var code []byte
	err := db.db.QueryRowContext(context.Background(), `SELECT c.code FROM vector_codes c
		JOIN memories m ON m.seq = c.seq WHERE m.id = ?`, m.ID).Scan(&code)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// A code keeps each component as a byte scaled by the largest magnitude, so
// its cosine with any vector is within rounding of the float vector's.
func TestVectorCodeKeepsTheCosine(t *testing.T) {
	code := vectorCode([]float32{0.5, -1, 0.25, 0})
	if want := []byte{64, byte(256 - 127), 32, 0}; !bytes.Equal(code, want) {
		t.Errorf("vectorCode = %v, want %v", code, want)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for range 100 {
		v, q := unitVector(r, 1024), unitVector(r, 1024)
		var exact float64
		for i := range v {
			exact += float64(v[i]) * float64(q[i])
		}
		if got := codeCosine(q, vectorCode(v)); got-exact > 0.002 || exact-got > 0.002 {
			t.Fatalf("cosine by code %.4f, exact %.4f", got, exact)
		}
	}
}

// Every stored vector gets its code, replaced with the vector; deleting the
// memory or resetting the embeddings drops it.
func TestCodesFollowTheVectors(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	a := mustInsert(t, db, newMemory("vector a", "global", memory.TypeDecision), []float32{1, 0, 0, 0})
	b := mustInsert(t, db, newMemory("vector b", "global", memory.TypeDecision), []float32{0, 1, 0, 0})
	if got := codeOf(t, db, a); !bytes.Equal(got, []byte{127, 0, 0, 0}) {
		t.Errorf("code of a = %v", got)
	}
	if err := db.SetEmbedding(ctx, a.ID, []float32{0, 0, -2, 0}); err != nil {
		t.Fatal(err)
	}
	if got := codeOf(t, db, a); !bytes.Equal(got, []byte{0, 0, 129, 0}) {
		t.Errorf("code of a after a new vector = %v, want [0 0 129 0] (-127)", got)
	}
	if _, err := db.db.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, b.ID); err != nil {
		t.Fatal(err)
	}
	if got := codeOf(t, db, b); got != nil {
		t.Errorf("code of a deleted memory = %v, want none", got)
	}
	if err := db.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "other", Dimension: 4}); err != nil {
		t.Fatal(err)
	}
	if got := codeOf(t, db, a); got != nil {
		t.Errorf("code after ResetEmbeddings = %v, want none", got)
	}
}

// A database from before vector_codes gets the codes of all its vectors on
// open, and searches by codes find what the exact scan finds.
func TestOpenComputesTheCodesOfOlderVectors(t *testing.T) {
	searchBySigns(t)
	ctx := context.Background()
	path := t.TempDir() + "/recall.db"
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 2))
	var ms []*memory.Memory
	var vecs [][]float32
	for i := range 300 {
		v := unitVector(r, 64)
		ms = append(ms, mustInsert(t, db, newMemory(fmt.Sprintf("memory %d", i), "global", memory.TypeDecision), v))
		vecs = append(vecs, v)
	}
	err = db.write(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{`DROP TRIGGER vector_codes_delete`, `DROP TABLE vector_codes`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return setMeta(ctx, tx, metaSchemaVersion, strconv.Itoa(versionOf("vector_codes.sql")-1))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, m := range ms {
		if got, want := codeOf(t, db, m), vectorCode(vecs[i]); !bytes.Equal(got, want) {
			t.Fatalf("memory %d: code %v, want %v", i, got, want)
		}
	}
	q := unitVector(r, 64)
	want, err := exactNeighbours(ctx, db, q, memory.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := db.SearchVector(ctx, q, memory.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := hitSeqs(t, db, hits); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("search after the upgrade = %v, exact %v", got, want)
	}
}

// rankByCodes orders candidates by their codes and keeps one without a code
// for the exact step rather than dropping it.
func TestRankByCodesKeepsCandidatesWithoutACode(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	near := mustInsert(t, db, newMemory("near", "global", memory.TypeDecision), []float32{1, 0.1, 0, 0})
	far := mustInsert(t, db, newMemory("far", "global", memory.TypeDecision), []float32{0, 1, 0, 0})
	nearer := mustInsert(t, db, newMemory("nearer", "global", memory.TypeDecision), []float32{1, 0, 0, 0})
	uncoded := mustInsert(t, db, newMemory("uncoded", "global", memory.TypeDecision), []float32{0, 0, 1, 0})
	seq := map[string]int64{}
	for _, m := range []*memory.Memory{near, far, nearer, uncoded} {
		var s int64
		if err := db.db.QueryRowContext(ctx, `SELECT seq FROM memories WHERE id = ?`, m.ID).Scan(&s); err != nil {
			t.Fatal(err)
		}
		seq[m.Content] = s
	}
	if _, err := db.db.ExecContext(ctx, `DELETE FROM vector_codes WHERE seq = ?`, seq["uncoded"]); err != nil {
		t.Fatal(err)
	}
	got, err := db.rankByCodes(ctx, []float32{1, 0, 0, 0},
		[]int64{seq["far"], seq["uncoded"], seq["near"], seq["nearer"]}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{seq["uncoded"], seq["nearer"], seq["near"]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rankByCodes = %v, want %v (uncoded, nearer, near)", got, want)
	}
}

// BenchmarkUpgradeToVectorCodes times the upgrade of a file made before
// vector_codes (the codes of every vector computed in the migration's
// transaction) on a copy of the seeded topics file, with the file's pages
// cold or warm as the copy leaves them:
//
//	go test -tags sqlite_fts5 -run '^$' -bench 'UpgradeToVectorCodes/100k' -benchtime 1x ./storage/
func BenchmarkUpgradeToVectorCodes(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			ctx := context.Background()
			seeded := seededDB(b, fmt.Sprintf("recall-bench-topics-%d-schema%d.db", n, SchemaVersion()), n, seedTopics)
			source := seeded.Path()
			seeded.Close()
			var took benchreport.Latencies
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				path := filepath.Join(b.TempDir(), "old.db")
				if err := copyFile(source, path); err != nil {
					b.Fatal(err)
				}
				old, err := Open(ctx, path)
				if err != nil {
					b.Fatal(err)
				}
				err = old.write(ctx, func(tx *sql.Tx) error {
					for _, q := range []string{`DROP TRIGGER vector_codes_delete`, `DROP TABLE vector_codes`} {
						if _, err := tx.ExecContext(ctx, q); err != nil {
							return err
						}
					}
					return setMeta(ctx, tx, metaSchemaVersion, strconv.Itoa(versionOf("vector_codes.sql")-1))
				})
				if err != nil {
					b.Fatal(err)
				}
				old.Close()
				b.StartTimer()
				took.Time(func() {
					db, err := Open(ctx, path)
					if err != nil {
						b.Fatal(err)
					}
					db.Close()
				})
			}
			took.Report(b)
		})
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
