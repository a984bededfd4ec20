package main

import (
	"context"
	"os"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/validation"
)

// memoryOps is what the commands over memories (add, show, edit, rm,
// restore, forget, stats) ask of Recall: this machine's database
// (localOps), or, on a client of a team server, the team server as the
// person whose token this machine holds (serverOps). The commands print the
// same either way. (export and import stream whole files: they choose their
// side themselves, see client_transfer.go.)
//
// It has a method for each thing those commands do, a few more than ten:
// each command asks for one, and one interface keeps the choice between the
// two sides in openMemories instead of in every command.
type memoryOps interface {
	// Remember stores a memory; one without a namespace goes to the
	// project of the working directory, as add promises.
	Remember(ctx context.Context, req memory.StoreRequest) (*memory.StoreResult, error)
	Get(ctx context.Context, id string) (*memory.Memory, error)
	// Show is a memory whole, as recall show prints it.
	Show(ctx context.Context, id string) (*shown, error)
	Update(ctx context.Context, req memory.UpdateRequest) (*memory.UpdateResult, error)
	// Forget deletes by id or query; Trash (rm) keeps them restorable.
	Forget(ctx context.Context, req memory.ForgetRequest) (*memory.ForgetResult, error)
	Trash(ctx context.Context) ([]memory.TrashItem, error)
	Restore(ctx context.Context, id string) (*memory.ImportResult, error)
	Stats(ctx context.Context) (*memory.Stats, error)
	// Where names what the commands work on, for people: the database
	// file, PostgreSQL's URL without its password, or the team server.
	Where() string
	// Embeds is false with RECALL_OLLAMA=off here (no notes about vectors).
	Embeds() bool
	Close()
}

// openMemories opens what the commands over memories work on: the team
// server on a client machine, else this machine's database.
func openMemories(ctx context.Context, e *env) (memoryOps, error) {
	if cfg, log, ok := clientConfig(e); ok {
		return newServerOps(cfg, log)
	}
	a, err := openApp(ctx, e, modeFull)
	if err != nil {
		return nil, err
	}
	return localOps{a}, nil
}

// localOps are the commands over this machine's database.
type localOps struct{ a *app }

func (l localOps) Remember(ctx context.Context, req memory.StoreRequest) (*memory.StoreResult, error) {
	if req.Namespace == "" {
		var err error
		if req.Namespace, err = defaultNamespace(ctx, l.a); err != nil {
			return nil, err
		}
	}
	return l.a.mem.Remember(memory.WithSource(ctx, memory.SourceCLI), req)
}

func (l localOps) Get(ctx context.Context, id string) (*memory.Memory, error) {
	return l.a.mem.Get(ctx, id)
}

func (l localOps) Show(ctx context.Context, id string) (*shown, error) {
	a := l.a
	m, err := a.mem.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	// The graph at depth 1 is the memory's own edges, both ways, as
	// memory_inspect_graph_tool gives them.
	g, err := a.mem.Inspect(ctx, memory.InspectRequest{MemoryID: m.ID, MaxDepth: 1})
	if err != nil {
		return nil, err
	}
	hist, err := a.cur.History(ctx, validation.HistoryRequest{MemoryID: m.ID, Limit: validation.MaxHistoryLimit})
	if err != nil {
		return nil, err
	}
	changes, err := a.mem.Changes(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	s := newShown(m, g.Edges, hist, changes)
	for _, n := range g.Nodes {
		s.previews[n.ID] = n.Content
	}
	return s, nil
}

func (l localOps) Update(ctx context.Context, req memory.UpdateRequest) (*memory.UpdateResult, error) {
	return l.a.mem.Update(ctx, req)
}

func (l localOps) Forget(ctx context.Context, req memory.ForgetRequest) (*memory.ForgetResult, error) {
	return l.a.mem.Forget(memory.WithSource(ctx, memory.SourceCLI), req)
}

func (l localOps) Trash(ctx context.Context) ([]memory.TrashItem, error) {
	return l.a.mem.Trash(ctx)
}

func (l localOps) Restore(ctx context.Context, id string) (*memory.ImportResult, error) {
	return l.a.mem.Restore(memory.WithSource(ctx, memory.SourceCLI), id)
}

func (l localOps) Stats(ctx context.Context) (*memory.Stats, error) { return l.a.db.Stats(ctx) }
func (l localOps) Where() string                                    { return l.a.storeName() }
func (l localOps) Embeds() bool                                     { return !l.a.cfg.OllamaOff }
func (l localOps) Close()                                           { l.a.Close() }

// defaultNamespace is where a memory stored without --namespace goes: the
// pinned project (RECALL_PROJECT), else RECALL_DEFAULT_NAMESPACE when set,
// else the project of the working directory's git repository as the hooks
// name it, else the configured default ("global"). A directory outside git
// is not made a project by a store: hooks bind it when a session runs there.
func defaultNamespace(ctx context.Context, a *app) (string, error) {
	if p, ok := a.projects.Pinned(); ok {
		return p.Namespace, nil
	}
	if _, set := os.LookupEnv("RECALL_DEFAULT_NAMESPACE"); set || !project.InRepository("") {
		return a.cfg.DefaultNamespace, nil
	}
	p, err := a.projects.ForDir(ctx, "")
	if err != nil {
		return "", err
	}
	return p.Namespace, nil
}
