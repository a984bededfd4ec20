// Package viewer is Recall's web page for people: a JSON API and embedded page
// files over the same memory and validation services the MCP tools use, so the
// page can never show something the tools would not.
package viewer

import (
	"context"
	"embed"
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/transfer"
	"github.com/recall-mcp/recall/validation"
)

//go:embed static
var staticFiles embed.FS

// Deps are the services the viewer reads and changes memories through.
type Deps struct {
	Memory     *memory.Service
	Validation *validation.Service
	// DB is the store the services use (the SQLite file or PostgreSQL); the
	// live updates watch it for commits from any process. Without it
	// /api/events is off.
	DB     Store
	Logger *slog.Logger
	// Access is who may use the viewer; the zero value is this machine
	// alone, changes allowed.
	Access Access
	// Done, when closed, ends the event streams (a server shutting down
	// would otherwise wait for them).
	Done <-chan struct{}
	// Journal is the session journal the Journal page reads (the capture
	// service); without it /api/journal is off.
	Journal Journal
	// Doctor runs recall doctor's checks for the Health page; without it
	// /api/doctor is off.
	Doctor func(ctx context.Context) []Finding
	// Projects binds the project a client machine sends (project.Header) to
	// its namespace: a memory created without a namespace by a client
	// machine's CLI goes to the project it is in. Without it the header is
	// refused.
	Projects ClientProjects
	// Records is the store's whole export and import (Recall's jsonl): a
	// client machine's recall export and import. Without it they are off.
	Records Records
	// ForgetCaptured removes captured sessions (a client machine's recall
	// forget --session/--before); without it that is off.
	ForgetCaptured ForgetCaptured
}

// ClientProjects binds a client machine's project (project.Resolver).
type ClientProjects interface {
	ForClient(ctx context.Context, c project.Client) (project.Project, error)
}

// Records reads everything the asker may see and writes an import in one
// transaction (the store).
type Records interface {
	transfer.Source
	transfer.Sink
}

// Store is what the viewer needs of the store beside the services: a watch
// on its commits, for the live updates. Everything else goes through the
// services, as the MCP tools do.
type Store interface {
	Watch(ctx context.Context) (memory.Watcher, error)
}

// handler serves the API and the page.
type handler struct {
	mem     *memory.Service
	val     *validation.Service
	hub     *hub // nil without Deps.DB
	acc     Access
	done    <-chan struct{}
	log     *slog.Logger
	journal Journal // nil: no journal page
	// doctor runs recall doctor's checks (nil: not offered).
	doctor  func(ctx context.Context) []Finding
	clients ClientProjects // nil: no client machine's project
	records Records        // nil: no jsonl export or import
	// forgetCaptured removes captured sessions (nil: not offered).
	forgetCaptured ForgetCaptured
}

// New returns the viewer as one http.Handler with its security checks in place:
// loopback Host only (unless d.Access has a token), cross-origin writes refused,
// strict Content-Security-Policy.
// Every URL the page uses is relative, so the handler also works under a prefix
// (http.StripPrefix("/ui", ...)).
func New(d Deps) http.Handler {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	h := &handler{mem: d.Memory, val: d.Validation, acc: d.Access, log: d.Logger, done: d.Done, doctor: d.Doctor, journal: d.Journal,
		clients: d.Projects, records: d.Records, forgetCaptured: d.ForgetCaptured}
	if d.DB != nil {
		h.hub = newHub(d.DB, d.Logger)
	}
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/access", h.access)
	mux.HandleFunc("GET /api/events", h.events)
	mux.HandleFunc("GET /api/memories", h.listMemories)
	mux.HandleFunc("POST /api/memories", h.createMemory)
	mux.HandleFunc("POST /api/memories/bulk", h.bulkMemories)
	mux.HandleFunc("GET /api/memories/{id}", h.getMemory)
	mux.HandleFunc("GET /api/memories/{id}/graph", h.graph)
	mux.HandleFunc("POST /api/memories/{id}/edges", h.addEdge)
	mux.HandleFunc("DELETE /api/edges/{edge}", h.removeEdge)
	mux.HandleFunc("DELETE /api/memories/{id}", h.forgetMemory)
	mux.HandleFunc("PATCH /api/memories/{id}", h.editMemory)
	mux.HandleFunc("POST /api/memories/{id}/demote", h.retypeMemory(h.mem.Demote, "why this is no longer a golden rule"))
	mux.HandleFunc("POST /api/memories/{id}/promote", h.retypeMemory(h.mem.Promote, "why this becomes a golden rule"))
	mux.HandleFunc("POST /api/memories/{id}/validate", h.validateMemory)
	mux.HandleFunc("GET /api/trash", h.listTrash)
	mux.HandleFunc("POST /api/trash/{id}/restore", h.restoreMemory)
	mux.HandleFunc("GET /api/health", h.health)
	mux.HandleFunc("GET /api/doctor", h.checkup)
	mux.HandleFunc("GET /api/golden", h.golden)
	mux.HandleFunc("GET /api/projects", h.projects)
	mux.HandleFunc("GET /api/authors", h.authors)
	mux.HandleFunc("GET /api/sources", h.sources)
	mux.HandleFunc("GET /api/files", h.recentFiles)
	mux.HandleFunc("GET /api/export", h.export)
	mux.HandleFunc("POST /api/import", h.importRecords)
	mux.HandleFunc("GET /api/journal", h.journalFeed)
	mux.HandleFunc("POST /api/journal/forget", h.forgetJournal)
	mux.HandleFunc("GET /api/review/contradictions", h.listContradictions)
	mux.HandleFunc("POST /api/review/contradictions/{edge}", h.resolveContradiction)
	mux.HandleFunc("GET /api/review/stale", h.listStale)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no API route "+r.Method+" "+r.URL.Path)
	})
	tags := fileETags(static)
	files := http.FileServerFS(static)
	mux.Handle("GET /static/", http.StripPrefix("/static", revalidated(tags, "", files)))
	// Browsers ask for /favicon.ico on pages without their own icon (an API
	// answer opened in a tab): the same icon as the page's.
	mux.Handle("GET /favicon.ico", revalidated(tags, "favicon.svg", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, static, "favicon.svg")
	})))
	mux.Handle("GET /{$}", revalidated(tags, "index.html", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, static, "index.html")
	})))
	return secure(throughTheViewer(mux), d.Access, d.Logger)
}

// throughTheViewer marks every request's work as the viewer's: a memory
// created on the page records it as its source, a restore too. A client
// machine's CLI using the API says so (memory.SourceHeader) and is recorded
// as the CLI.
func throughTheViewer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(memory.WithSource(r.Context(), door(r))))
	})
}
