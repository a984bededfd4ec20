package history

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
)

// QueryEmbedder embeds a search query (embedding.Client is one).
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Service answers history searches and drill-downs for the MCP tools and the
// CLI. It never indexes on the caller's time: Refresh, when set, is asked to
// bring the index up to date in the background.
type Service struct {
	Index        *Index
	Root         string        // Claude Code's projects directory
	Project      string        // the caller's project root, for project searches
	Embedder     QueryEmbedder // nil: keywords only
	EmbedTimeout time.Duration // longest wait for the query's vector
	Refresh      func()        // starts a background update; may be nil
	// CatchUp, when set, reads the newest messages of the projects (every
	// project's when none) into the index before a search, within a bound,
	// and says what it could not read ("" when nothing is missing).
	CatchUp func(ctx context.Context, projects []string) string
	Logger  *slog.Logger
}

// ProjectPaths are the directories of the caller's project: its root and
// its git worktrees, whose conversations Claude Code keeps apart (by the
// working directory) though they are one project's.
func (s *Service) ProjectPaths() []string { return project.Worktrees(s.Project) }

// SearchRequest is a search as the tools and the CLI take it: the seed's
// parameters, dates as text.
type SearchRequest struct {
	Query            string
	After, Before    string
	Context          int
	Threshold        float64
	MaxResults       int
	Offset           int
	IncludeSubagents bool
	Projects         []string // empty: all projects
}

// Bounds of the request's numbers.
const (
	maxContext = 20
	maxResults = 100
)

// Search validates the request and searches; bad input is a memory.ErrInvalid
// naming the field and what it accepts.
func (s *Service) Search(ctx context.Context, req SearchRequest) (*Response, error) {
	q, err := req.query()
	if err != nil {
		return nil, err
	}
	var caughtUp, embedded string
	if s.CatchUp != nil {
		caughtUp = s.CatchUp(ctx, q.Projects)
	}
	if s.Refresh != nil {
		s.Refresh()
	}
	if s.Embedder != nil {
		q.Vector, embedded = s.queryVector(ctx, req.Query)
	}
	resp, err := s.Index.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	resp.Note = joinNotes(resp.Note, caughtUp, embedded)
	return resp, nil
}

// joinNotes joins the notes that say something.
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

// queryVector embeds the query when the index holds vectors; on failure the
// search runs on keywords and the note says why.
func (s *Service) queryVector(ctx context.Context, text string) ([]float32, string) {
	if ok, err := s.Index.hasVectors(ctx); err != nil || !ok {
		return nil, ""
	}
	timeout := s.EmbedTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err := s.Embedder.EmbedQuery(ctx, text)
	if err != nil {
		if s.Logger != nil {
			s.Logger.Warn("history search by keywords only", "err", err)
		}
		return nil, "degraded: search by meaning unavailable (" + err.Error() + "), keywords only"
	}
	return v, ""
}

func (r SearchRequest) query() (Query, error) {
	q := Query{
		Text: strings.TrimSpace(r.Query), Projects: r.Projects, IncludeSubagents: r.IncludeSubagents,
		Context: r.Context, Threshold: r.Threshold, MaxResults: r.MaxResults, Offset: r.Offset,
	}
	var err error
	switch {
	case q.Text == "":
		return q, memory.Invalidf("query", `""`, "the words or sentence to search for")
	case r.Context < 0 || r.Context > maxContext:
		return q, memory.Invalidf("context_before_after", r.Context, fmt.Sprintf("a whole number from 0 to %d", maxContext))
	case !(r.Threshold >= 0 && r.Threshold <= 1):
		return q, memory.Invalidf("threshold", r.Threshold, "a number from 0 to 1")
	case r.MaxResults < 1 || r.MaxResults > maxResults:
		return q, memory.Invalidf("max_results", r.MaxResults, fmt.Sprintf("a whole number from 1 to %d", maxResults))
	case r.Offset < 0:
		return q, memory.Invalidf("offset", r.Offset, "a whole number of at least 0")
	}
	if q.After, err = ParseDate("after", r.After); err != nil {
		return q, err
	}
	if q.Before, err = ParseDate("before", r.Before); err != nil {
		return q, err
	}
	return q, nil
}

// dateForms are the ISO 8601 forms a date filter accepts; without a zone a
// time is UTC.
var dateForms = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"}

// ParseDate reads a date filter; "" is no bound.
func ParseDate(field, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, f := range dateForms {
		if t, err := time.Parse(f, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, memory.Invalidf(field, fmt.Sprintf("%q", s),
		"an ISO 8601 date (2025-01-15) or timestamp (2025-01-15T10:30:00Z, 2025-01-15T10:30:00+02:00; UTC without a zone)")
}

// Show reads a conversation around a message, or a page of the whole
// conversation from cursor (see Index.Show).
func (s *Service) Show(ctx context.Context, sessionID, uuid string, window int, cursor string) (*Window, error) {
	sessionID, uuid = strings.TrimSpace(sessionID), strings.TrimSpace(uuid)
	if sessionID == "" {
		return nil, memory.Invalidf("session_id", `""`, "the session id of a search result")
	}
	if window < 0 || window > 100 {
		return nil, memory.Invalidf("window", window, "a whole number from 0 to 100")
	}
	if uuid != "" && cursor != "" {
		return nil, memory.Invalidf("cursor", fmt.Sprintf("%q", cursor), "no cursor with a uuid: a cursor pages through a whole conversation")
	}
	if _, err := parseCursor(cursor); err != nil {
		return nil, memory.Invalidf("cursor", fmt.Sprintf("%q", cursor), "the next_cursor of the previous page, or nothing for the first page")
	}
	w, err := s.Index.Show(ctx, s.Root, sessionID, uuid, window, window, strings.TrimSpace(cursor))
	if errors.Is(err, ErrBadCursor) {
		return nil, memory.Invalidf("cursor", fmt.Sprintf("%q", cursor), "the next_cursor of the previous page of this session")
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", memory.ErrNotFound, err)
	}
	return w, nil
}
