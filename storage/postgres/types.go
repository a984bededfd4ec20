package postgres

import (
	"context"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	pgxvec "github.com/pgvector/pgvector-go/pgx"
)

// vectorTypes teaches each new connection of a pool pgvector's vector type.
// Its OIDs are looked up on the process's first connection only, in one
// round trip, where pgvector's own RegisterTypes takes two on every
// connection: a fresh process searching keywords and vectors at once opens
// two connections, and the second one's lookup held up the vector search.
type vectorTypes struct {
	mu            sync.Mutex
	vector, array uint32
}

func (v *vectorTypes) register(ctx context.Context, conn *pgx.Conn) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.vector == 0 {
		var vector, array *uint32
		if err := conn.QueryRow(ctx, `SELECT to_regtype('vector')::oid, to_regtype('_vector')::oid`,
			pgx.QueryExecModeSimpleProtocol).Scan(&vector, &array); err != nil {
			return err
		}
		if vector == nil || array == nil {
			return errors.New("vector type not found in the database")
		}
		v.vector, v.array = *vector, *array
	}
	tm := conn.TypeMap()
	t := &pgtype.Type{Name: "vector", OID: v.vector, Codec: &pgxvec.VectorCodec{}}
	tm.RegisterType(t)
	tm.RegisterType(&pgtype.Type{Name: "_vector", OID: v.array, Codec: &pgtype.ArrayCodec{ElementType: t}})
	return nil
}
