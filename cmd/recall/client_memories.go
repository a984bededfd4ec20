package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/remote"
	"github.com/recall-mcp/recall/server"
	"github.com/recall-mcp/recall/viewer"
)

// serverOps are the commands over memories on a client of a team server:
// each goes to the server as the person whose token this machine holds,
// through the server's viewer API (/ui/api/), or its MCP tool where the API
// has no such request (forget by query). The server decides what the person
// may see and change; its refusals reach the person in its words.
type serverOps struct {
	cfg  *config.Config
	log  *slog.Logger
	c    *remote.Client
	sess *remote.Session // opened on first use (forget)
}

func newServerOps(cfg *config.Config, log *slog.Logger) (*serverOps, error) {
	c, err := teamClient(cfg)
	if err != nil {
		return nil, err
	}
	return &serverOps{cfg: cfg, log: log, c: c}, nil
}

// Remember stores through the server. Without a namespace it goes where add
// goes on a machine of its own: RECALL_PROJECT, else RECALL_DEFAULT_NAMESPACE
// when set or outside git, else this repository's project, which the server
// names (everyone's clone of it is one project).
func (s *serverOps) Remember(ctx context.Context, req memory.StoreRequest) (*memory.StoreResult, error) {
	if req.Namespace == "" {
		_, defaultSet := os.LookupEnv("RECALL_DEFAULT_NAMESPACE")
		switch {
		case s.cfg.Project != "":
			ctx = project.WithClient(ctx, project.ClientOf("", s.cfg.Project))
		case defaultSet || !project.InRepository(""):
			req.Namespace = s.cfg.DefaultNamespace
		default:
			ctx = project.WithClient(ctx, project.ClientOf("", ""))
		}
	}
	body := map[string]any{"content": req.Content, "memory_type": req.Type, "namespace": req.Namespace}
	if req.Importance != nil {
		body["importance"] = *req.Importance
	}
	var res memory.StoreResult
	if err := s.c.Do(ctx, http.MethodPost, "memories", nil, body, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// memoryPath is the API's address of one memory (or of its sub-resource).
func memoryPath(id string, sub ...string) string {
	return strings.Join(append([]string{"memories", url.PathEscape(id)}, sub...), "/")
}

func (s *serverOps) Get(ctx context.Context, id string) (*memory.Memory, error) {
	sh, err := s.Show(ctx, id)
	if err != nil {
		return nil, err
	}
	return sh.Memory, nil
}

// Show reads the memory's page of the viewer: the memory, its edges with
// their neighbours, its validation history and its change log.
func (s *serverOps) Show(ctx context.Context, id string) (*shown, error) {
	var d viewer.Detail
	if err := s.c.Do(ctx, http.MethodGet, memoryPath(id), nil, nil, &d); err != nil {
		return nil, err
	}
	if d.Memory == nil || d.History == nil {
		return nil, fmt.Errorf("the team server's answer for %s holds no memory", id)
	}
	changes := make([]memory.Change, len(d.Changes))
	for i, c := range d.Changes {
		changes[i] = c.Change
	}
	sh := newShown(d.Memory, d.Edges, d.History, changes)
	for _, n := range d.Neighbors {
		sh.previews[n.ID] = n.Content
	}
	return sh, nil
}

func (s *serverOps) Update(ctx context.Context, req memory.UpdateRequest) (*memory.UpdateResult, error) {
	body := map[string]any{}
	if req.Content != nil {
		body["content"] = *req.Content
	}
	if req.Type != nil {
		body["memory_type"] = *req.Type
	}
	if req.Importance != nil {
		body["importance"] = *req.Importance
	}
	if req.Namespace != nil {
		body["namespace"] = *req.Namespace
	}
	var res memory.UpdateResult
	if err := s.c.Do(ctx, http.MethodPatch, memoryPath(req.MemoryID), nil, body, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Forget deletes into the trash (rm) through the API, and for good, by id
// or query, through memory_forget_tool; unconfirmed, it only says what it
// would delete.
func (s *serverOps) Forget(ctx context.Context, req memory.ForgetRequest) (*memory.ForgetResult, error) {
	if req.Trash {
		var res memory.ForgetResult
		if err := s.c.Do(ctx, http.MethodDelete, memoryPath(req.MemoryID), nil, map[string]bool{"force": req.Force}, &res); err != nil {
			return nil, err
		}
		return &res, nil
	}
	args := map[string]any{"confirm": req.Confirm, "force": req.Force}
	for k, v := range map[string]string{"memory_id": req.MemoryID, "input": req.Input, "query": req.Query, "namespace": req.Namespace} {
		if v != "" {
			args[k] = v
		}
	}
	if req.NResults > 0 {
		args["n_results"] = req.NResults
	}
	var out struct {
		*memory.ForgetResult
		WouldDelete *memory.ForgetResult `json:"would_delete"`
	}
	if err := s.callTool(ctx, "memory_forget_tool", args, &out); err != nil {
		if out.WouldDelete != nil { // confirm=false: what a confirmed call deletes
			out.WouldDelete.DryRun = true
			return out.WouldDelete, nil
		}
		if !strings.Contains(err.Error(), "golden rule") {
			return nil, err
		}
		if req.MemoryID != "" || memory.LooksLikeID(req.Input) {
			return nil, fmt.Errorf("%w: %s", memory.ErrProtected, err)
		}
		// A query that matched golden rules alone: nothing deleted, and
		// which were kept, as a database of its own answers.
		dry := req
		dry.Confirm = false
		kept, derr := s.Forget(ctx, dry)
		if derr != nil {
			return nil, err
		}
		return &memory.ForgetResult{DeletedIDs: []string{}, Deleted: []memory.ForgottenMemory{}, Protected: kept.Protected, Mode: kept.Mode}, nil
	}
	if out.ForgetResult == nil {
		return nil, errors.New("the team server's forget answered nothing")
	}
	return out.ForgetResult, nil
}

// callTool calls one of the server's MCP tools with this machine's project
// and decodes its structured result into out, also when the tool failed
// (a dry run's would_delete comes with its failure).
func (s *serverOps) callTool(ctx context.Context, name string, args any, out any) error {
	if s.sess == nil {
		s.sess = &remote.Session{Client: s.c, Name: "recall (client mode CLI)", Version: version()}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	res, err := s.sess.Call(project.WithClient(ctx, project.ClientOf("", s.cfg.Project)), name, raw)
	if err != nil {
		return err
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err == nil {
			err = json.Unmarshal(b, out)
		}
		if err != nil && !res.IsError {
			return fmt.Errorf("the team server's answer of %s: %w", name, err)
		}
	}
	if res.IsError {
		return errors.New(server.ContentText(res))
	}
	return nil
}

func (s *serverOps) Trash(ctx context.Context) ([]memory.TrashItem, error) {
	var res struct {
		Memories []memory.TrashItem `json:"memories"`
	}
	if err := s.c.Do(ctx, http.MethodGet, "trash", nil, nil, &res); err != nil {
		return nil, err
	}
	return res.Memories, nil
}

func (s *serverOps) Restore(ctx context.Context, id string) (*memory.ImportResult, error) {
	var res memory.ImportResult
	if err := s.c.Do(ctx, http.MethodPost, "trash/"+url.PathEscape(id)+"/restore", nil, nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Stats are the server's counts as the person sees them (the Health page's).
func (s *serverOps) Stats(ctx context.Context) (*memory.Stats, error) {
	var res struct {
		Stats *memory.Stats `json:"stats"`
	}
	if err := s.c.Do(ctx, http.MethodGet, "health", nil, nil, &res); err != nil {
		return nil, err
	}
	if res.Stats == nil {
		return nil, errors.New("the team server's health answer holds no counts")
	}
	return res.Stats, nil
}

func (s *serverOps) Where() string { return "the team server " + s.cfg.ServerURL }

// Embeds: the server embeds, whatever RECALL_OLLAMA says here.
func (s *serverOps) Embeds() bool { return true }

func (s *serverOps) Close() {
	if s.sess != nil {
		s.sess.Close()
	}
}
