package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// AddFileActivity records one touch of a file and returns its id. It is a hook
// write: behind another writer it may be spooled (see spooled.go), and then
// returns 0.
func (s *DB) AddFileActivity(ctx context.Context, a *memory.FileActivity) (int64, error) {
	if a == nil {
		return 0, memory.Invalidf("file_path", `""`, "a file path")
	}
	rec := *a
	rec.CreatedAt = orNow(a.CreatedAt, time.Now()) // a spooled touch keeps its time
	rec.Author = memory.AuthorOr(ctx, a.Author)
	insert, err := fileActivityInsert(ctx, &rec)
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.hookWrite(ctx, spoolFileActivity, &rec, func(tx *sql.Tx) error {
		var err error
		id, err = insert(tx)
		return err
	})
	return id, err
}

// fileActivityInsert checks a touch and returns the statement that records it.
func fileActivityInsert(ctx context.Context, a *memory.FileActivity) (func(tx *sql.Tx) (int64, error), error) {
	if a.FilePath == "" {
		return nil, memory.Invalidf("file_path", `""`, "a file path")
	}
	if _, err := memory.ParseFileAction(string(a.Action)); err != nil {
		return nil, err
	}
	meta, err := memory.EncodeMetadata(a.Metadata)
	if err != nil {
		return nil, err
	}
	created := formatTime(orNow(a.CreatedAt, time.Now()))
	return func(tx *sql.Tx) (int64, error) {
		res, err := tx.ExecContext(ctx, `INSERT INTO file_activity (file_path, action, session_id,
			project_root, file_type, metadata, created_at, author) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			a.FilePath, string(a.Action), a.SessionID, a.ProjectRoot, a.FileType, meta, created, a.Author)
		if err != nil {
			return 0, fmt.Errorf("add file activity: %w", err)
		}
		return res.LastInsertId()
	}, nil
}

// RecentFiles aggregates activity per file since a time (all time when zero),
// within projectRoot when given, most recently touched first. Type, project and
// last action come from the latest touch. A limit of 0 or less means all.
//
// It reads the newest touches first until it has limit files, then counts just
// those files' touches, so its cost follows the files asked for, not the
// activity stored.
func (s *DB) RecentFiles(ctx context.Context, projectRoot string, since time.Time, limit int) ([]memory.FileSummary, error) {
	where, args := ownWork(ctx, "")
	where += ` AND created_at >= ?`
	args = append(args, formatOptionalTime(since))
	if projectRoot != "" {
		where += ` AND project_root = ?`
		args = append(args, projectRoot)
	}
	files, err := s.latestTouches(ctx, where, args, limit)
	if err != nil || len(files) == 0 {
		return files, err
	}
	if err := s.countTouches(ctx, where, args, files); err != nil {
		return nil, err
	}
	return files, nil
}

// latestTouches returns the latest touch of each file matching where, newest
// first, stopping at limit files (all when limit <= 0).
func (s *DB) latestTouches(ctx context.Context, where string, args []any, limit int) ([]memory.FileSummary, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT file_path, action, file_type, project_root, created_at
		FROM file_activity WHERE `+where+` ORDER BY created_at DESC, id DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("recent files: %w", err)
	}
	defer rows.Close()
	var out []memory.FileSummary
	seen := map[string]bool{}
	for rows.Next() && (limit <= 0 || len(out) < limit) {
		var f memory.FileSummary
		var action, last string
		if err := rows.Scan(&f.FilePath, &action, &f.FileType, &f.ProjectRoot, &last); err != nil {
			return nil, fmt.Errorf("recent files: %w", err)
		}
		if seen[f.FilePath] {
			continue
		}
		seen[f.FilePath] = true
		f.LastAction = memory.FileAction(action)
		if f.LastAccessed, err = parseTime(last); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// countTouches fills in the touches per action of files, over the rows
// matching where.
func (s *DB) countTouches(ctx context.Context, where string, args []any, files []memory.FileSummary) error {
	paths := make([]string, len(files))
	byPath := make(map[string]*memory.FileSummary, len(files))
	for i := range files {
		paths[i] = files[i].FilePath
		files[i].Actions = map[string]int{}
		byPath[files[i].FilePath] = &files[i]
	}
	list, err := json.Marshal(paths)
	if err != nil {
		return err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT file_path, action, sum(touches) FROM file_activity INDEXED BY file_activity_file
		WHERE file_path IN (SELECT value FROM json_each(?)) AND `+where+`
		GROUP BY file_path, action`, append([]any{string(list)}, args...)...)
	if err != nil {
		return fmt.Errorf("recent files: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var path, action string
		var n int
		if err := rows.Scan(&path, &action, &n); err != nil {
			return fmt.Errorf("recent files: %w", err)
		}
		f := byPath[path]
		f.Actions[action] += n
		f.AccessCount += n
	}
	return rows.Err()
}

// SummarizeFileActivity folds the touches older than before into one summary
// row per file, project, action and author, keeping their count and latest time, and
// returns how many rows it removed. With nothing to fold it only reads, so an
// idle process never takes the write lock for it.
func (s *DB) SummarizeFileActivity(ctx context.Context, before time.Time) (int64, error) {
	cutoff := formatTime(before)
	var pending int
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM file_activity
		WHERE created_at < ? AND summary = 0)`, cutoff).Scan(&pending); err != nil {
		return 0, fmt.Errorf("summarize file activity: %w", err)
	}
	if pending == 0 {
		return 0, nil
	}
	var removed int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var maxID int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM file_activity`).Scan(&maxID); err != nil {
			return err
		}
		// A bare column next to max() takes its value from the row holding the max.
		// Each person's touches are folded apart: a summary row stays theirs.
		if _, err := tx.ExecContext(ctx, `INSERT INTO file_activity (file_path, action, project_root, file_type,
				created_at, touches, summary, author)
			SELECT file_path, action, project_root, file_type, max(created_at), sum(touches), 1, author
			FROM file_activity WHERE created_at < ? AND id <= ?
			GROUP BY file_path, project_root, action, author`, cutoff, maxID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM file_activity WHERE created_at < ? AND id <= ?`, cutoff, maxID)
		if err != nil {
			return err
		}
		removed, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("summarize file activity: %w", err)
	}
	return removed, nil
}
