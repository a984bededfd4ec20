package server

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestLineConnWaitsForAnswersAtEndOfInput: after the last line, Read reports
// the end only once every call read has been answered; a call the server made
// to the client gets an error in place of the answer that can no longer come.
func TestLineConnWaitsForAnswersAtEndOfInput(t *testing.T) {
	ctx := context.Background()
	var out strings.Builder
	c := newLineConn(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), &out)
	msg, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	call, ok := msg.(*jsonrpc.Request)
	if !ok || call.Method != "ping" {
		t.Fatalf("read %#v", msg)
	}
	// The handler asks the client something before answering.
	askID, _ := jsonrpc.MakeID("ask-1")
	if err := c.Write(ctx, &jsonrpc.Request{ID: askID, Method: "roots/list"}); err != nil {
		t.Fatal(err)
	}
	msg, err = c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp, ok := msg.(*jsonrpc.Response); !ok || resp.ID != askID || resp.Error == nil {
		t.Fatalf("after the end of input, the server's question got %#v, want an error answer", msg)
	}
	// Read must not report the end while the ping is unanswered.
	ended := make(chan error, 1)
	go func() { _, err := c.Read(ctx); ended <- err }()
	select {
	case err := <-ended:
		t.Fatalf("Read returned %v before the ping was answered", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := c.Write(ctx, &jsonrpc.Response{ID: call.ID, Result: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := <-ended; !errors.Is(err, io.EOF) {
		t.Fatalf("Read after the answer = %v, want io.EOF", err)
	}
	if !strings.Contains(out.String(), `"id":1,"result":{}`) {
		t.Errorf("the answer was not written: %q", out.String())
	}
}

// TestLineConnRefusesAnOversizedLineAndReadsOn: a line over maxLineBytes is
// answered -32600 without being held in memory, and the next line is read.
func TestLineConnRefusesAnOversizedLineAndReadsOn(t *testing.T) {
	var out strings.Builder
	huge := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", maxLineBytes) + `"}}`
	c := newLineConn(strings.NewReader(huge+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n"), &out)
	msg, err := c.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if req, ok := msg.(*jsonrpc.Request); !ok || req.ID.Raw() != int64(2) {
		t.Fatalf("read %#v, want the ping with id 2", msg)
	}
	if !strings.Contains(out.String(), `"code":-32600`) || !strings.Contains(out.String(), "longer than") {
		t.Errorf("the oversized line got %q", out.String())
	}
}
