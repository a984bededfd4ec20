package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/transfer"
)

// exportThroughServer is recall export on a client of a team server:
// everything the person may see, in the same formats. The server writes the
// jsonl; --markdown is written here from it.
func exportThroughServer(ctx context.Context, e *env, cfg *config.Config, log *slog.Logger, format, out, mdDir string) error {
	c, err := teamClient(cfg)
	if err != nil {
		return err
	}
	if mdDir != "" {
		format = "jsonl"
	}
	body, err := c.Stream(ctx, http.MethodGet, "export", url.Values{"format": {format}}, nil, "")
	if err != nil {
		return err
	}
	defer body.Close()
	if mdDir != "" {
		var held heldRecords
		if _, err := transfer.Import(ctx, &held, body, transfer.ImportOptions{}); err != nil {
			return fmt.Errorf("the team server's export: %w", err)
		}
		files, err := transfer.ExportMarkdown(ctx, &held, mdDir)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %d markdown files to %s\n", len(files), mdDir)
		return nil
	}
	return writeTo(out, e.stdout, func(w io.Writer) error {
		n, err := io.Copy(w, body)
		if err != nil {
			return fmt.Errorf("the team server's export broke off after %d bytes: %w", n, err)
		}
		log.Info("exported through the team server", "bytes", n, "server", cfg.ServerURL)
		return nil
	})
}

// importThroughServer is recall import on a client of a team server: the
// file goes to the server, which checks and writes it as the person (into
// another person's namespace nothing is written).
func importThroughServer(ctx context.Context, e *env, cfg *config.Config, log *slog.Logger, in io.Reader, ns string) error {
	c, err := teamClient(cfg)
	if err != nil {
		return err
	}
	q := url.Values{}
	if ns != "" {
		q.Set("namespace", ns)
	}
	body, err := c.Stream(ctx, http.MethodPost, "import", q, in, "application/x-ndjson")
	if err != nil {
		return err
	}
	defer body.Close()
	var rep transfer.ImportReport
	if err := json.NewDecoder(body).Decode(&rep); err != nil {
		return fmt.Errorf("the team server's answer to the import: %w", err)
	}
	if rep.Result == nil {
		return errors.New("the team server's answer to the import holds no result")
	}
	log.Info("imported through the team server", "lines", rep.Lines, "server", cfg.ServerURL)
	return reportImport(e, &rep)
}

// heldRecords keeps the records an import read, to hand them on as an
// export (recall export --markdown on a client machine): memories and edges,
// what the markdown record shows.
type heldRecords struct{ recs memory.Records }

func (h *heldRecords) Import(_ context.Context, r memory.Records) (*memory.ImportResult, error) {
	h.recs = r
	return &memory.ImportResult{}, nil
}

func (h *heldRecords) Export(_ context.Context, v memory.RecordVisitor) error {
	for _, m := range h.recs.Memories {
		if err := v.Memory(m); err != nil {
			return err
		}
	}
	for i := range h.recs.Edges {
		if v.Edge == nil {
			break
		}
		if err := v.Edge(&h.recs.Edges[i]); err != nil {
			return err
		}
	}
	return nil
}
