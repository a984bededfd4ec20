package main

import (
	"context"
	"flag"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/recall-mcp/recall/viewer"
)

var uiCommand = &command{
	name: "ui",
	args: "[--port N]",
	summary: "Serve the web viewer on 127.0.0.1 and print its URL.\n" +
		"The port is --port, else RECALL_UI_PORT, else 20000 + your user id mod 10000.\n" +
		"Only this machine can reach it; SIGINT or SIGTERM stops it.",
	run: runUI,
}

func runUI(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	port := fs.Int("port", 0, "port on 127.0.0.1 (default: RECALL_UI_PORT, else derived from the user id)")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if *port < 0 || *port > 65535 {
		return usagef("invalid --port %d: accepted 1 to 65535", *port)
	}

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	a, err := openApp(ctx, e, modeFull)
	if err != nil {
		return err
	}
	defer a.Close()

	p := *port
	if p == 0 {
		p = a.cfg.UIPort
	}
	if p == 0 {
		p = viewer.DefaultPort()
	}
	ln, err := viewer.Listen(p)
	if err != nil {
		return fmt.Errorf("%w (choose another with --port or RECALL_UI_PORT)", err)
	}
	fmt.Fprintf(e.stdout, "Recall viewer: http://%s/\n", ln.Addr())
	a.log.Info("serving the viewer", "addr", ln.Addr().String(), "database", a.cfg.SQLitePath)
	h := viewer.New(viewer.Deps{Memory: a.mem, Validation: a.cur, DB: a.db, Logger: a.log, Doctor: a.checkup})
	return viewer.Serve(ctx, ln, h)
}
