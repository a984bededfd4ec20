package viewer

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/doctor"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
)

// withDoctor wires recall doctor's real checks into the fixture's viewer, over
// its database file and its fake Ollama reached with a password in the URL.
func (f *fixture) withDoctor(t *testing.T) {
	t.Helper()
	host := strings.Replace(f.ol, "http://", "http://recall:s3cret-pass@", 1)
	cfg := &config.Config{SQLitePath: f.path, OllamaHost: host, OllamaModel: ollamatest.DefaultEmbedModel,
		OllamaChatModel: ollamatest.DefaultChatModel, OllamaTimeout: 5 * time.Second}
	f.h = New(Deps{Memory: f.mem, Validation: f.val, DB: f.db, Journal: f.journal(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Doctor: func(ctx context.Context) []Finding {
			found, _ := doctor.Collect(ctx, cfg)
			out := make([]Finding, len(found))
			for i, f := range found {
				out[i] = Finding{Level: f.Level.String(), What: f.What, Fix: f.Fix}
			}
			return out
		}})
}

// /api/doctor gives recall doctor's findings with their fixes, and never the
// password of the Ollama URL.
func TestDoctorFindingsAPI(t *testing.T) {
	f := newFixture(t)
	if w := f.do(t, "GET", "/api/doctor", "", nil); w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "run recall doctor") {
		t.Fatalf("without a doctor: %d %s", w.Code, w.Body)
	}
	f.withDoctor(t)
	f.fake.RemoveModel(ollamatest.DefaultChatModel)
	w := f.do(t, "GET", "/api/doctor", "", nil)
	got := decode[struct {
		Findings []struct {
			Level string   `json:"level"`
			What  string   `json:"what"`
			Fix   []string `json:"fix"`
		} `json:"findings"`
	}](t, w, http.StatusOK)
	if strings.Contains(w.Body.String(), "s3cret-pass") {
		t.Fatalf("the Ollama password was returned: %s", w.Body)
	}
	var database, chat bool
	for _, fd := range got.Findings {
		database = database || fd.Level == "ok" && strings.HasPrefix(fd.What, "database: schema")
		chat = chat || fd.Level == "warn" && strings.Contains(fd.What, "chat model "+ollamatest.DefaultChatModel+" is not pulled") &&
			len(fd.Fix) == 1 && fd.Fix[0] == "ollama pull "+ollamatest.DefaultChatModel
	}
	if !database || !chat {
		t.Fatalf("findings: %+v; want the database ok and the chat model to pull", got.Findings)
	}
	// Ollama down: the finding that says so names the host without its password.
	f.fake.Close()
	if w := f.do(t, "GET", "/api/doctor", "", nil); w.Code != http.StatusOK || strings.Contains(w.Body.String(), "s3cret-pass") || !strings.Contains(w.Body.String(), "recall:xxxxx@") {
		t.Fatalf("doctor with Ollama down: %d %s; want the host shown without its password", w.Code, w.Body)
	}
	if w := f.do(t, "GET", "/api/doctor?verbose=1", "", nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "takes no parameters") {
		t.Errorf("unknown parameter: %d %s", w.Code, w.Body)
	}
}

// healthWithAWarning serves a viewer over one memory with recall doctor's
// real checks, the chat model not pulled (a warning, with its fix), for a
// browser; it returns the browser, the fixture and the viewer's URL.
func healthWithAWarning(t *testing.T) (context.Context, *fixture, string) {
	ctx := newBrowser(t)
	f := newFixture(t)
	f.store(t, "Prefer table-driven tests.", memory.TypePreference, "global")
	f.withDoctor(t)
	f.fake.RemoveModel(ollamatest.DefaultChatModel)
	return ctx, f, newLoopbackServer(t, f)
}

// The Health page ends with recall doctor's findings, problems first.
func TestBrowserHealthShowsDoctorFindings(t *testing.T) {
	ctx, _, srv := healthWithAWarning(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/health")); err != nil {
		t.Fatal(err)
	}
	err := within(ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(`#doctor li.finding`)))
	if err != nil {
		t.Fatalf("the doctor's findings: %v", err)
	}
	first, _ := run(ctx, chromedp.Text(chromedp.CSS(`#doctor li.finding:first-child`)))
	screenshot(t, ctx, "health-doctor")
	if !strings.Contains(first, "warn chat model "+ollamatest.DefaultChatModel+" is not pulled") || !strings.Contains(first, "fix: ollama pull "+ollamatest.DefaultChatModel) {
		t.Fatalf("first finding %q: want the warning about the chat model, with its fix", first)
	}
	page, _ := run(ctx, chromedp.Text(chromedp.CSS(`body`)))
	if strings.Contains(page, "s3cret-pass") {
		t.Fatal("the page shows the Ollama password")
	}
}
