package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
)

// AddFileActivity records one touch of a file and returns its id.
func (s *DB) AddFileActivity(ctx context.Context, a *memory.FileActivity) (int64, error) {
	if err := checkFileActivity(a); err != nil {
		return 0, err
	}
	return insertFileActivity(ctx, s.pool, a)
}

// checkFileActivity refuses a touch without a path or with an unknown action.
func checkFileActivity(a *memory.FileActivity) error {
	if a == nil || a.FilePath == "" {
		return memory.Invalidf("file_path", `""`, "a file path")
	}
	_, err := memory.ParseFileAction(string(a.Action))
	return err
}

func insertFileActivity(ctx context.Context, q querier, a *memory.FileActivity) (int64, error) {
	meta, err := memory.EncodeMetadata(a.Metadata)
	if err != nil {
		return 0, err
	}
	var id int64
	a.Author = memory.AuthorOr(ctx, a.Author)
	err = q.QueryRow(ctx, `INSERT INTO file_activity (file_path, action, session_id,
		project_root, file_type, metadata, created_at, author) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
		a.FilePath, string(a.Action), a.SessionID, a.ProjectRoot, a.FileType, meta, orNow(a.CreatedAt, time.Now()), a.Author).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("add file activity: %w", err)
	}
	return id, nil
}

// RecentFiles aggregates activity per file since a time (all time when zero),
// within projectRoot when given, most recently touched first. Type, project
// and last action come from the latest touch. A limit of 0 or less means all.
func (s *DB) RecentFiles(ctx context.Context, projectRoot string, since time.Time, limit int) ([]memory.FileSummary, error) {
	var p params
	where := ownWork(ctx, "", &p)
	if !since.IsZero() {
		where += ` AND created_at >= ` + p.add(since)
	}
	if projectRoot != "" {
		where += ` AND project_root = ` + p.add(projectRoot)
	}
	lim := "ALL"
	if limit > 0 {
		lim = p.add(limit)
	}
	// The latest touch of each file, newest first, then the touches per
	// action of just those files.
	rows, err := s.pool.Query(ctx, `WITH latest AS (
			SELECT DISTINCT ON (file_path) file_path, action, file_type, project_root, created_at, id
			FROM file_activity WHERE `+where+` ORDER BY file_path, created_at DESC, id DESC),
		top AS (SELECT * FROM latest ORDER BY created_at DESC, id DESC LIMIT `+lim+`)
		SELECT t.file_path, t.action, t.file_type, t.project_root, t.created_at,
			(SELECT jsonb_object_agg(action, n) FROM (SELECT action, sum(touches) AS n FROM file_activity f
				WHERE f.file_path = t.file_path AND `+where+` GROUP BY action) c)
		FROM top t ORDER BY t.created_at DESC, t.id DESC`, p...)
	if err != nil {
		return nil, fmt.Errorf("recent files: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (memory.FileSummary, error) {
		var f memory.FileSummary
		var action string
		var counts map[string]int
		if err := r.Scan(&f.FilePath, &action, &f.FileType, &f.ProjectRoot, &f.LastAccessed, &counts); err != nil {
			return f, err
		}
		f.LastAction, f.LastAccessed, f.Actions = memory.FileAction(action), f.LastAccessed.UTC(), counts
		if f.Actions == nil {
			f.Actions = map[string]int{}
		}
		for _, n := range counts {
			f.AccessCount += n
		}
		return f, nil
	})
	if err != nil {
		return nil, fmt.Errorf("recent files: %w", err)
	}
	return out, nil
}

// SummarizeFileActivity folds the touches older than before into one summary
// row per file, project and action, keeping their count and latest time, and
// returns how many rows it removed.
func (s *DB) SummarizeFileActivity(ctx context.Context, before time.Time) (int64, error) {
	var pending bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM file_activity WHERE created_at < $1 AND NOT summary)`,
		before).Scan(&pending); err != nil {
		return 0, fmt.Errorf("summarize file activity: %w", err)
	}
	if !pending {
		return 0, nil
	}
	var removed int64
	err := s.write(ctx, func(tx pgx.Tx) error {
		// One folder at a time: two servers folding at once would count twice.
		if _, err := tx.Exec(ctx, `LOCK TABLE file_activity IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `DELETE FROM file_activity WHERE created_at < $1
			RETURNING file_path, action, project_root, file_type, created_at, touches, author`, before)
		if err != nil {
			return err
		}
		type key struct{ path, action, root, author string } // each person's touches fold apart
		type fold struct {
			fileType string
			last     time.Time
			touches  int
		}
		folds := map[key]*fold{}
		var order []key
		for rows.Next() {
			var k key
			var ft string
			var at time.Time
			var n int
			if err := rows.Scan(&k.path, &k.action, &k.root, &ft, &at, &n, &k.author); err != nil {
				rows.Close()
				return err
			}
			removed++
			f := folds[k]
			if f == nil {
				f = &fold{}
				folds[k] = f
				order = append(order, k)
			}
			f.touches += n
			if !at.Before(f.last) {
				f.last, f.fileType = at, ft
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, k := range order {
			f := folds[k]
			if _, err := tx.Exec(ctx, `INSERT INTO file_activity (file_path, action, project_root, file_type,
				created_at, touches, summary, author) VALUES ($1, $2, $3, $4, $5, $6, true, $7)`,
				k.path, k.action, k.root, f.fileType, f.last, f.touches, k.author); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("summarize file activity: %w", err)
	}
	return removed, nil
}
