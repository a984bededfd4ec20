package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
)

func (t sharedTx) TrashedRecord(ctx context.Context, id string, since time.Time) ([]byte, bool, error) {
	var body []byte
	err := t.tx.QueryRow(ctx, `SELECT record FROM trash WHERE memory_id = $1 AND (archived OR deleted_at >= $2) FOR UPDATE`,
		id, since).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	return body, err == nil, err
}

func (t sharedTx) WriteRecords(ctx context.Context, r memory.Records) (*memory.ImportResult, error) {
	res, _, err := writeRecords(ctx, t.tx, r)
	return res, err
}
