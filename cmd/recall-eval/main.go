// Command recall-eval runs Recall's retrieval evaluation: it stores the
// dataset of package eval in a fresh SQLite file through the memory service,
// asks every query in keyword-only and hybrid mode, and prints R@5, R@10, MRR
// and what the UserPromptSubmit hook injects, per query category.
//
// Vectors come from an in-process fake Ollama (embedding/ollamatest) unless
// OLLAMA_HOST or RECALL_OLLAMA_HOST names a real one (RECALL_OLLAMA_MODEL and
// RECALL_OLLAMA_TIMEOUT apply). The fake's vectors are hashed words, not
// meaning, so hybrid figures then test the plumbing only.
//
// It is a command of its own, not a `recall` subcommand, so that the recall
// binary, which every hook starts, carries neither the dataset nor the fake
// server.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/eval"
	"github.com/recall-mcp/recall/memory"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recall-eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	details := fs.Bool("details", false, "with -json: include every query's ranked and injected memories")
	dataDir := fs.String("data", "", "read memories.jsonl and queries.jsonl from this directory instead of the built-in dataset")
	plumbing := fs.Bool("plumbing", false, "label hybrid figures as plumbing only (a real Ollama whose models have random weights)")
	keywordOnly := fs.Bool("keyword-only", false, "store without vectors and run keyword-only mode alone (no Ollama, fake or real)")
	verbose := fs.Bool("v", false, "log at INFO instead of WARN")
	oracle := fs.Bool("oracle", false, "print the fusion curve: keyword-only, vector-only and hybrid figures with an oracle embedder from perfect to meaningless")
	sizes := fs.String("sizes", "1000,10000", "with -oracle: memories in the store, comma-separated (the project's dataset gets distractors)")
	noises := fs.String("noise", defaultNoises, "with -oracle: the oracle's noise levels, 0 (perfect) to 1 (meaningless)")
	corpora := fs.String("corpus", "project,generated", "with -oracle: project (the dataset with distractors), generated (a corpus no constant was tuned on), or both")
	dim := fs.Int("dim", 1024, "with -oracle: the vectors' dimension")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: recall-eval [-json [-details]] [-data DIR] [-keyword-only | -plumbing] [-v]")
		fmt.Fprintln(stderr, "       recall-eval -oracle [-json] [-sizes 1000,10000] [-noise 0,...,1] [-corpus project,generated] [-dim 1024]")
		fmt.Fprintln(stderr, "Vectors come from a fake Ollama unless OLLAMA_HOST or RECALL_OLLAMA_HOST is set.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	if *oracle {
		o := oracleOptions{sizes: *sizes, noises: *noises, corpora: *corpora, dim: *dim, asJSON: *asJSON}
		if err := runOracle(ctx, stdout, logger, o); err != nil {
			fmt.Fprintln(stderr, "recall-eval:", err)
			return 1
		}
		return 0
	}
	run := runOptions{dataDir: *dataDir, asJSON: *asJSON, details: *details, plumbing: *plumbing, keywordOnly: *keywordOnly}
	if err := evaluate(ctx, stdout, logger, run); err != nil {
		fmt.Fprintln(stderr, "recall-eval:", err)
		return 1
	}
	return 0
}

// runOptions are the command's flags.
type runOptions struct {
	dataDir                                string
	asJSON, details, plumbing, keywordOnly bool
}

func evaluate(ctx context.Context, stdout io.Writer, logger *slog.Logger, run runOptions) error {
	ds, err := loadDataset(run.dataDir)
	if err != nil {
		return err
	}
	var opts eval.Options
	if !run.keywordOnly {
		var closeEmbedder func()
		if opts, closeEmbedder, err = embedderOptions(); err != nil {
			return err
		}
		defer closeEmbedder()
	}
	opts.Plumbing = opts.Plumbing || run.plumbing
	opts.Details = run.details
	opts.Logger = logger
	// The hook's floor comes from the same settings as recall's, so a value can
	// be tried here before it is set for real.
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	opts.Floor = &memory.Floor{MinCoverage: cfg.PromptMinCoverage, MinSimilarity: cfg.MatchMinSimilarity}
	rep, err := eval.Evaluate(ctx, ds, opts)
	if err != nil {
		return err
	}
	if run.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteText(stdout)
}

func loadDataset(dir string) (*eval.Dataset, error) {
	if dir == "" {
		return eval.Load()
	}
	return eval.LoadDir(dir)
}

// embedderOptions connects the configured Ollama when one is named in the
// environment, else starts the fake.
func embedderOptions() (eval.Options, func(), error) {
	if strings.TrimSpace(os.Getenv("OLLAMA_HOST")) == "" && strings.TrimSpace(os.Getenv("RECALL_OLLAMA_HOST")) == "" {
		fake := ollamatest.Start()
		c, err := embedding.New(embedding.Options{Host: fake.URL()})
		if err != nil {
			fake.Close()
			return eval.Options{}, nil, err
		}
		return eval.Options{Embedder: c, EmbedderName: "the fake Ollama (embedding/ollamatest)", Plumbing: true}, fake.Close, nil
	}
	cfg, err := config.Load()
	if err != nil {
		return eval.Options{}, nil, err
	}
	c, err := embedding.New(embedding.Options{Host: cfg.OllamaHost, EmbedModel: cfg.OllamaModel, Timeout: cfg.OllamaTimeout})
	if err != nil {
		return eval.Options{}, nil, err
	}
	return eval.Options{
		Embedder:          c,
		EmbedderName:      fmt.Sprintf("Ollama at %s (%s)", c.Host(), c.Model()),
		QueryEmbedTimeout: cfg.OllamaTimeout,
	}, func() {}, nil
}
