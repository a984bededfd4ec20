package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/transfer"

	"github.com/spf13/pflag"
)

var exportCommand = &command{
	short: "Write everything out (jsonl, memory.jsonl or Markdown)",
	quiet: true,
	name:  "export",
	args:  "[-o FILE] [--format jsonl|memory-jsonl] [--markdown DIR]",
	summary: "Write everything out: memories, edges, validation events, file activity, projects,\n" +
		"archived memories (into the trash on import; deleted ones are not written).\n" +
		"jsonl (default) is Recall's lossless, versioned format, one record a line, which\n" +
		"`recall import` reads back. memory-jsonl is the MCP memory server's memory.jsonl.\n" +
		"--markdown DIR writes a readable record instead: a file per namespace, memories\n" +
		"grouped by type, with ids, confidence, dates and links to related memories.",
	setup: runExport,
}

func runExport(fs *pflag.FlagSet) runFunc {
	out := fs.StringP("output", "o", "-", "file to write (- is stdout)")
	format := fs.String("format", "jsonl", "jsonl or memory-jsonl")
	mdDir := fs.String("markdown", "", "write a markdown record into this directory instead")
	return func(ctx context.Context, e *env, rest []string) error {
		if err := noArgs(rest); err != nil {
			return err
		}
		if *format != "jsonl" && *format != "memory-jsonl" {
			return usagef("--format %q: want jsonl or memory-jsonl", *format)
		}
		if cfg, log, ok := clientConfig(e); ok {
			return exportThroughServer(ctx, e, cfg, log, *format, *out, *mdDir)
		}
		a, err := openApp(ctx, e, modeFull)
		if err != nil {
			return err
		}
		defer a.Close()
		if *mdDir != "" {
			files, err := transfer.ExportMarkdown(ctx, a.db, *mdDir)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "wrote %d markdown files to %s\n", len(files), *mdDir)
			return nil
		}
		return writeTo(*out, e.stdout, func(w io.Writer) error {
			if *format == "memory-jsonl" {
				return transfer.ExportMemoryServer(ctx, a.db, w)
			}
			n, err := transfer.ExportJSONL(ctx, a.db, w, time.Now())
			if err == nil {
				fmt.Fprintf(e.stderr, "exported %s, %s, %s, %s, %s, %s\n",
					describe.Count(n.Memories, "memory", "memories"), describe.Count(n.Edges, "edge", "edges"),
					describe.Count(n.Events, "validation event", "validation events"), describe.Count(n.Changes, "change log entry", "change log entries"),
					describe.Count(n.Files, "file activity row", "file activity rows"), describe.Count(n.Projects, "project binding", "project bindings"))
				if n.Archived > 0 || n.Deleted > 0 {
					fmt.Fprintf(e.stderr, "exported the trash: %s, %s\n", describe.Count(n.Archived, "archived memory", "archived memories"),
						describe.Count(n.Deleted, "deleted memory", "deleted memories"))
				}
				if n.Journal > 0 || n.Vectors > 0 {
					fmt.Fprintf(e.stderr, "exported %s, %s\n", describe.Count(n.Journal, "journal entry", "journal entries"),
						describe.Count(n.Vectors, "vector", "vectors"))
				}
			}
			return err
		})
	}
}

// writeTo runs write on stdout or on a file that appears only when complete
// (a temporary name, renamed at the end), so an interrupted export never
// leaves a truncated file where a good one is expected.
func writeTo(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.partial")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

var importCommand = &command{
	short: "Read memories in from an export or a memory.jsonl",
	quiet: true,
	name:  "import",
	args:  "[--namespace NS] <file | ->",
	summary: "Read memories in: a `recall export` (jsonl) or the MCP memory server's memory.jsonl,\n" +
		"told apart by the first line. Every line is checked; bad lines are reported by\n" +
		"number and left out, the good ones are written in one transaction (all or none).\n" +
		"Memories keep their ids and times; vectors are made later (`recall serve` fills\n" +
		"them in batches). Exits 1 when a line was left out.",
	setup: runImport,
}

func runImport(fs *pflag.FlagSet) runFunc {
	ns := fs.String("namespace", "", `namespace of a memory server file's memories (default "global")`)
	return func(ctx context.Context, e *env, rest []string) error {
		if len(rest) != 1 {
			return usagef("give one file to import (- reads stdin)")
		}
		in := e.stdin
		if rest[0] != "-" {
			f, err := os.Open(rest[0])
			if err != nil {
				return err
			}
			defer f.Close()
			in = f
		}
		if cfg, log, ok := clientConfig(e); ok {
			return importThroughServer(ctx, e, cfg, log, in, cliNamespace(*ns))
		}
		a, err := openApp(ctx, e, modeFull)
		if err != nil {
			return err
		}
		defer a.Close()
		bar := newProgress(e.stderr, true)
		rep, err := transfer.Import(ctx, a.db, in, transfer.ImportOptions{Namespace: cliNamespace(*ns), Progress: func(done, total int) {
			bar.show(fmt.Sprintf("importing %3d%% (%d/%d)", done*100/max(total, 1), done, total), done >= total)
		}})
		bar.end(false)
		if err != nil {
			return err
		}
		return reportImport(e, rep)
	}
}

// reportImport prints what an import did; exit 1 when a line was left out.
func reportImport(e *env, rep *transfer.ImportReport) error {
	printImport(e.stdout, e.stderr, rep)
	if len(rep.BadLines) > 0 {
		return exitError{1}
	}
	return nil
}

func printImport(stdout, stderr io.Writer, rep *transfer.ImportReport) {
	r := rep.Result
	fmt.Fprintf(stdout, "imported %s, %s, %s, %s from %s (%s)\n",
		describe.Count(r.Memories, "memory", "memories"), describe.Count(r.Edges, "edge", "edges"),
		describe.Count(r.Events, "validation event", "validation events"), describe.Count(r.Files, "file activity row", "file activity rows"),
		rep.Format, describe.Count(rep.Lines, "line", "lines"))
	if r.Changes > 0 {
		fmt.Fprintf(stdout, "imported %s\n", describe.Count(r.Changes, "change log entry", "change log entries"))
	}
	if r.Projects > 0 {
		fmt.Fprintf(stdout, "imported %s\n", describe.Count(r.Projects, "project binding", "project bindings"))
	}
	if r.Existing > 0 {
		fmt.Fprintf(stdout, "%s already stored (same id, or same content in the namespace)\n", describe.Count(r.Existing, "memory was", "memories were"))
	}
	if r.Archived > 0 || r.Deleted > 0 || r.ArchivedExisting > 0 {
		what := describe.Count(r.Archived, "archived memory", "archived memories")
		if r.Deleted > 0 {
			what += " and " + describe.Count(r.Deleted, "deleted memory", "deleted memories")
		}
		fmt.Fprintf(stdout, "imported %s into the trash (restorable in the viewer); %d already stored (live or in the trash)\n", what, r.ArchivedExisting)
	}
	if r.Journal > 0 || r.JournalExisting > 0 {
		fmt.Fprintf(stdout, "imported %s into the capture journal; %d already stored\n",
			describe.Count(r.Journal, "entry", "entries"), r.JournalExisting)
	}
	if rep.Mapping != "" {
		fmt.Fprintln(stdout, "mapping:", rep.Mapping)
	}
	for _, s := range r.Skipped {
		fmt.Fprintln(stdout, "skipped:", s)
	}
	if r.Vectors > 0 {
		fmt.Fprintf(stdout, "imported %s with their vectors\n", describe.Count(r.Vectors, "memory", "memories"))
	}
	if r.VectorsLeft != "" {
		fmt.Fprintln(stdout, "vectors:", r.VectorsLeft)
	}
	if r.Memories > r.Vectors {
		fmt.Fprintln(stdout, "vectors: the rest are made in the background by `recall serve` (or now by `recall reindex`); keyword search works meanwhile")
	}
	for _, b := range rep.BadLines {
		fmt.Fprintln(stderr, "left out", b.String())
	}
	if n := len(rep.BadLines); n > 0 {
		fmt.Fprintf(stderr, "lines left out: %d; the good lines were imported\n", n)
	}
}
