package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/recall-mcp/recall/memory"
)

func (t sharedTx) TrashedRecord(ctx context.Context, id string, since time.Time) ([]byte, bool, error) {
	var body string
	err := t.tx.QueryRowContext(ctx, `SELECT record FROM trash WHERE memory_id = ? AND (archived OR deleted_at >= ?)`,
		id, formatTime(since)).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return []byte(body), err == nil, err
}

func (t sharedTx) WriteRecords(ctx context.Context, r memory.Records) (*memory.ImportResult, error) {
	res, _, err := writeRecords(ctx, t.tx, r)
	return res, err
}
