package doctor

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/remote"
	"github.com/recall-mcp/recall/spool"
)

// checkTeamServer is doctor on a client of a team server (RECALL_SERVER_URL):
// no database nor Ollama here, so it checks what this machine needs of the
// server: that it answers, that it takes the token and whose it is, whether
// its API takes changes, and the hook events waiting to be sent.
func checkTeamServer(ctx context.Context, r *report, cfg *config.Config) {
	r.check(OK, "configuration: a client of the team server "+redacted(cfg.ServerURL)+" (no database nor Ollama on this machine)")
	c, err := remote.New(cfg.ServerURL, cfg.Token, cfg.ServerCA)
	if err != nil {
		r.check(Fail, "team server: "+err.Error(), "set RECALL_TOKEN to your token (the administrator prints one with recall users token NAME on the server)")
		return
	}
	var access struct {
		ReadOnly bool   `json:"read_only"`
		Person   string `json:"person"`
	}
	if err := c.Do(ctx, http.MethodGet, "access", nil, nil, &access); err != nil {
		r.check(Fail, "team server: "+err.Error(),
			"check RECALL_SERVER_URL (the address of recall serve --http, or of the TLS proxy before it) and RECALL_TOKEN",
			"or unset RECALL_SERVER_URL to use a database of this machine's own")
	} else {
		who := "the administrator's token (RECALL_HTTP_TOKEN): it sees everything"
		if access.Person != "" {
			who = fmt.Sprintf("%s's token: the shared namespaces and user:%s (private)", access.Person, access.Person)
		}
		r.check(OK, "team server answers; "+who)
		if access.ReadOnly {
			r.check(Warn, "team server: its viewer is read-only, so recall add, edit, rm, restore, import and forget --session from here are refused (the agents' tools still write)",
				"the administrator restarts it with recall serve --http ... --allow-remote --writable")
		}
	}
	out := spool.New(remote.OutboxDir(cfg.SQLitePath), slog.New(slog.DiscardHandler))
	switch n, err := out.Pending(); {
	case err != nil:
		r.check(Warn, fmt.Sprintf("hook outbox %s unreadable: %v", out.Dir(), err))
	case n > 0:
		r.check(Warn, fmt.Sprintf("hook outbox: %d events wait to be sent to the team server (the next hook, or recall serve every few seconds, sends them)", n))
	default:
		r.check(OK, "hook outbox: nothing waiting")
	}
}
