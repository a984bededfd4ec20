package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// AddFileActivity records one touch of a file and returns its id.
func (s *DB) AddFileActivity(ctx context.Context, a *memory.FileActivity) (int64, error) {
	if a == nil || a.FilePath == "" {
		return 0, memory.Invalidf("file_path", `""`, "a file path")
	}
	if _, err := memory.ParseFileAction(string(a.Action)); err != nil {
		return 0, err
	}
	meta, err := encodeMetadata(a.Metadata)
	if err != nil {
		return 0, err
	}
	created := orNow(a.CreatedAt, time.Now())
	var id int64
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO file_activity (file_path, action, session_id,
			project_root, file_type, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			a.FilePath, string(a.Action), a.SessionID, a.ProjectRoot, a.FileType, meta, formatTime(created))
		if err != nil {
			return fmt.Errorf("add file activity: %w", err)
		}
		id, err = res.LastInsertId()
		return err
	})
	return id, err
}

// RecentFiles aggregates activity per file since a time (all time when zero),
// within projectRoot when given, most recently touched first. Type, project and
// last action come from the latest touch. A limit of 0 or less means all.
func (s *DB) RecentFiles(ctx context.Context, projectRoot string, since time.Time, limit int) ([]memory.FileSummary, error) {
	where := `created_at >= ?`
	args := []any{formatOptionalTime(since)}
	if projectRoot != "" {
		where += ` AND project_root = ?`
		args = append(args, projectRoot)
	}
	if limit <= 0 {
		limit = -1
	}
	// A bare column next to max() takes its value from the row holding the max.
	rows, err := s.db.QueryContext(ctx, `WITH recent AS (
			SELECT file_path, action, file_type, project_root, created_at, id FROM file_activity WHERE `+where+`
		), latest AS (
			SELECT file_path, action, file_type, project_root, max(created_at || printf('%020d', id)) AS last_key,
				count(*) AS total FROM recent GROUP BY file_path
		)
		SELECT file_path, action, file_type, project_root, substr(last_key, 1, length(last_key) - 20), total,
			(SELECT json_group_object(action, n) FROM
				(SELECT action, count(*) AS n FROM recent r WHERE r.file_path = latest.file_path GROUP BY action))
		FROM latest ORDER BY last_key DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("recent files: %w", err)
	}
	defer rows.Close()
	var out []memory.FileSummary
	for rows.Next() {
		var f memory.FileSummary
		var action, last, actions string
		if err := rows.Scan(&f.FilePath, &action, &f.FileType, &f.ProjectRoot, &last, &f.AccessCount, &actions); err != nil {
			return nil, fmt.Errorf("recent files: %w", err)
		}
		f.LastAction = memory.FileAction(action)
		if f.LastAccessed, err = parseTime(last); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(actions), &f.Actions); err != nil {
			return nil, fmt.Errorf("recent files: action counts: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
