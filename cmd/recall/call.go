package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/recall-mcp/recall/server"

	"github.com/spf13/pflag"
)

var callCommand = &command{
	group: "server",
	quiet: true,
	name:  "call",
	args:  "<tool> ['<json arguments>' | -]",
	summary: "Run one MCP tool and print its JSON result.\n" +
		"Example:\n" +
		"  recall call memory_recall_tool '{\"query\": \"caching\", \"n_results\": 3}'\n" +
		"Arguments default to {}; - reads them from stdin. A tool error is printed to\n" +
		"stderr and exits 1.",
	setup: runCall,
}

func runCall(fs *pflag.FlagSet) runFunc {
	return func(ctx context.Context, e *env, rest []string) error {
		if len(rest) < 1 || len(rest) > 2 {
			return usagef("want a tool name and at most one JSON argument, got %d arguments", len(rest))
		}
		tool, argsJSON := rest[0], "{}"
		if len(rest) == 2 {
			argsJSON = rest[1]
		}
		if argsJSON == "-" {
			b, err := io.ReadAll(e.stdin)
			if err != nil {
				return fmt.Errorf("read arguments from stdin: %w", err)
			}
			argsJSON = string(b)
		}
		if strings.TrimSpace(argsJSON) == "" {
			argsJSON = "{}"
		}
		if !json.Valid([]byte(argsJSON)) {
			return usagef("arguments of %s are not valid JSON: want an object such as '{\"query\": \"caching\"}'", tool)
		}

		out, err := callTool(ctx, e, tool, json.RawMessage(argsJSON))
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, out, "", "  "); err != nil {
			buf.Reset()
			buf.Write(out)
		}
		buf.WriteByte('\n')
		_, err = e.stdout.Write(buf.Bytes())
		return err
	}
}

// callTool runs the tool over this machine's database, or through the team
// server when this machine is its client.
func callTool(ctx context.Context, e *env, tool string, args json.RawMessage) (json.RawMessage, error) {
	cfg, log, err := loadConfigLevel(e.stderr, cliLevel(e))
	if err != nil {
		return nil, err
	}
	if cfg.ClientMode() {
		return clientCall(ctx, cfg, log, tool, args)
	}
	a, err := openAppWith(ctx, cfg, log, modeFull)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	a.openHistory(ctx)
	if a.hist != nil {
		// One call reads what its search needs (CatchUp) and ends; a
		// background index outliving it would surprise whoever ran it, as
		// `recall history search` starts none either.
		a.hist.Refresh = nil
	}
	return server.Call(ctx, a.mcpServer(cwd), tool, args)
}
