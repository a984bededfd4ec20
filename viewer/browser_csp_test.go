package viewer

import (
	"context"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// cspViolation is what a page reports of a securitypolicyviolation event.
type cspViolation struct {
	Directive string `json:"directive"`
	Blocked   string `json:"blocked"`
	Sample    string `json:"sample"`
	Source    string `json:"source"`
	Line      int    `json:"line"`
}

// cspListener runs in every document before the page's own scripts: each
// violation of the Content-Security-Policy goes to the test.
const cspListener = `document.addEventListener("securitypolicyviolation", (e) => {
  window.recallCSPViolation({directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample, source: e.sourceFile, line: e.lineNumber});
});`

// watchCSP fails the test if any page it opens trips the Content-Security-
// Policy: an inline style or script (ours or a library's), another origin, an
// eval. The page would still look fine in a test, with a blocked piece missing.
// It starts the browser.
func watchCSP(t testing.TB, ctx context.Context) {
	t.Helper()
	var mu sync.Mutex
	var seen []cspViolation
	report := func(_ context.Context, v cspViolation) (chromedp.Void, error) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, v)
		return chromedp.Void{}, nil
	}
	err := chromedp.Do(ctx,
		chromedp.ExposeFunc("recallCSPViolation", report),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: cspListener})
			return err
		}))
	if err != nil {
		t.Fatalf("watching for CSP violations: %v", err)
	}
	// Registered after the browser's own cleanup, so it runs before the
	// browser closes.
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, v := range seen {
			t.Errorf("Content-Security-Policy violated: %s blocked %s (%s:%d) sample %q", v.Directive, v.Blocked, v.Source, v.Line, v.Sample)
		}
	})
}
