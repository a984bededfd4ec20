package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"strings"
	"syscall"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/team"
	"github.com/recall-mcp/recall/viewer"

	"github.com/spf13/pflag"
)

var uiCommand = &command{
	group: "server",
	name:  "ui",
	args:  "[--port N | --addr HOST:PORT [--writable] [--hostname NAME,...]]",
	summary: "Serve the web viewer on 127.0.0.1 and print its URL.\n" +
		"The port is --port, else RECALL_UI_PORT, else 20000 + your user id mod 10000.\n" +
		"Only this machine can reach it; SIGINT or SIGTERM stops it.\n" +
		"--addr serves another address; one other machines reach needs RECALL_HTTP_TOKEN\n" +
		"(open the page once as http://HOST:PORT/?token=<token>) and is read-only unless\n" +
		"--writable. --hostname lists the names people use for this machine (IP\n" +
		"addresses are always accepted).",
	setup: runUI,
}

func runUI(fs *pflag.FlagSet) runFunc {
	port := fs.Int("port", 0, "port on 127.0.0.1 (default: RECALL_UI_PORT, else derived from the user id)")
	addr := fs.String("addr", "", "serve on this host:port instead of 127.0.0.1 (another than loopback needs RECALL_HTTP_TOKEN)")
	writable := fs.Bool("writable", false, "allow changes when serving another address than loopback")
	hostnames := fs.String("hostname", "", "comma-separated names of this machine the page may be opened at (with --addr)")
	return func(ctx context.Context, e *env, rest []string) error {
		if err := noArgs(rest); err != nil {
			return err
		}
		if *port < 0 || *port > 65535 {
			return usagef("invalid --port %d: accepted 1 to 65535", *port)
		}
		if *addr != "" && *port != 0 {
			return usagef("--port and --addr both given: use one (--addr takes host:port)")
		}
		remote := false
		if *addr != "" {
			var err error
			if remote, err = remoteAddr(*addr); err != nil {
				return err
			}
		}
		if !remote && (*writable || *hostnames != "") {
			return usagef("--writable and --hostname are for --addr on an address other than loopback; on loopback the viewer is writable and answers loopback names")
		}

		ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		if cfg, log, err := loadConfigLevel(e.stderr, cliLevel(e)); err == nil && cfg.ClientMode() {
			if *addr != "" {
				return usagef("--addr is for a viewer of this machine's database; as a client of a team server the viewer is served on 127.0.0.1 (--port)")
			}
			return serveUIAsClient(ctx, e, cfg, log, *port)
		}
		a, err := openApp(ctx, e, modeFull)
		if err != nil {
			return err
		}
		defer a.Close()
		if remote && a.cfg.HTTPToken == "" {
			return fmt.Errorf("refusing to serve the viewer on %q without a token: other machines could read every memory; "+
				"set RECALL_HTTP_TOKEN to a long random value (make one with `%s`), then open the page once as http://%s/?token=<token>", *addr, config.TokenCommand, *addr)
		}
		if remote {
			if err := config.CheckHTTPToken(a.cfg.HTTPToken); err != nil {
				return err
			}
		}
		if *addr != "" {
			return serveUIOn(ctx, e, a, *addr, remote, *writable, splitNames(*hostnames))
		}

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
		return viewer.Serve(ctx, ln, a.viewer(viewer.Access{}, nil))
	}
}

// serveUIOn serves the viewer on addr; remote (not loopback) with the token,
// read-only unless writable.
func serveUIOn(ctx context.Context, e *env, a *app, addr string, remote, writable bool, hostnames []string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	var acc viewer.Access
	mode := "writable"
	if remote {
		// The people's tokens open it too, each as its person.
		acc = viewer.Access{Token: a.cfg.HTTPToken, Auth: team.Authenticator{AdminToken: a.cfg.HTTPToken, Dir: a.db},
			Hosts: hostnames, ReadOnly: !writable}
		if acc.ReadOnly {
			mode = "read-only"
		}
		at := ln.Addr().String()
		if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
			at = fmt.Sprintf("<an address of this machine>:%d", tcp.Port) // all interfaces: no single URL
		}
		fmt.Fprintf(e.stdout, "Recall viewer: http://%s/ (%s; open it once as http://%s/?token=<RECALL_HTTP_TOKEN>)\n", at, mode, at)
	} else {
		fmt.Fprintf(e.stdout, "Recall viewer: http://%s/\n", ln.Addr())
	}
	a.log.Info("serving the viewer", "addr", ln.Addr().String(), "remote", remote, "mode", mode, "database", a.cfg.SQLitePath)
	return viewer.Serve(ctx, ln, a.viewer(acc, nil))
}

// viewer is the web viewer over the app's services, with its access rules;
// done, when closed, ends its live-update streams.
func (a *app) viewer(acc viewer.Access, done <-chan struct{}) http.Handler {
	return viewer.New(viewer.Deps{Memory: a.mem, Validation: a.cur, DB: a.db, Journal: a.reader(), Access: acc, Logger: a.log, Done: done, Doctor: a.checkup,
		Projects: a.projects, Records: a.db, ForgetCaptured: a.forgetCaptured})
}

// remoteAddr reports whether addr is one other machines can reach.
func remoteAddr(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, usagef("invalid --addr %q: want host:port such as 127.0.0.1:8765 or 0.0.0.0:8765", addr)
	}
	if strings.EqualFold(host, "localhost") {
		return false, nil
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback(), nil
}

func splitNames(list string) []string {
	var names []string
	for n := range strings.SplitSeq(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}
