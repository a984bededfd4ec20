package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/internal/lines"
)

// Why our own stdio connection: the SDK's stdio transport returns any line it
// cannot decode as a read error, and its JSON-RPC layer ends the session on a
// read error; at end of input it also refuses to write the answers of calls
// still running. So one malformed line killed the server, and
// `printf '<init>\n<call>\n' | recall serve` printed no answer to the call.
// lineConn answers a malformed line itself and reads on, and reports the end
// of input only once every call it has read has been answered.

// maxLineBytes bounds one inbound message, as the SDK's stdio transport does.
const maxLineBytes = 16 << 20

// drainLimit bounds how long the end of input waits for calls still running.
const drainLimit = time.Minute

// lineTransport is MCP over newline-delimited JSON on a reader and a writer.
type lineTransport struct {
	conn *lineConn
}

func newLineTransport(in io.Reader, out io.Writer) *lineTransport {
	return &lineTransport{conn: newLineConn(in, out)}
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

// lineConn is an mcp.Connection over newline-delimited JSON.
type lineConn struct {
	out     io.Writer
	writeMu sync.Mutex

	lines    chan []byte   // complete lines from the reading goroutine; closed at end of input
	stopOnce sync.Once     // guards stop
	stop     chan struct{} // closed by StopReading: take no more input
	closing  sync.Once
	closed   chan struct{} // closed by Close

	mu         sync.Mutex
	callsIn    map[any]bool  // ids of calls read and not yet answered
	callsOut   map[any]bool  // ids of our calls to the client not yet answered
	changed    chan struct{} // signalled when callsIn or callsOut shrink or grow
	inputEnded bool          // only touched by Read
}

func newLineConn(in io.Reader, out io.Writer) *lineConn {
	c := &lineConn{
		out:      out,
		lines:    make(chan []byte),
		stop:     make(chan struct{}),
		closed:   make(chan struct{}),
		callsIn:  map[any]bool{},
		callsOut: map[any]bool{},
		changed:  make(chan struct{}, 1),
	}
	go c.readLines(in)
	return c
}

// oversized stands for a line longer than maxLineBytes.
var oversized = []byte{0}

// readLines sends every line of in to c.lines. It runs on its own goroutine
// so that Read can also wait for Close; a read of stdin cannot be interrupted,
// so at exit it may stay blocked, which is harmless.
func (c *lineConn) readLines(in io.Reader) {
	defer close(c.lines)
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(r)
		if len(line) > 0 {
			select {
			case c.lines <- line:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// readLine returns the next line without its newline, or oversized for a line
// longer than maxLineBytes (whose rest is skipped).
func readLine(r *bufio.Reader) ([]byte, error) {
	line, tooLong, _, err := lines.Read(r, maxLineBytes)
	if tooLong {
		return oversized, err
	}
	return bytes.Clone(bytes.TrimSpace(line)), err
}

// StopReading makes the connection take no more input, as at the end of it:
// calls already read are answered, then Read reports io.EOF.
func (c *lineConn) StopReading() {
	c.stopOnce.Do(func() { close(c.stop) })
}

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for !c.inputEnded {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.inputEnded = true
				continue
			}
			if msg := c.decode(line); msg != nil {
				return msg, nil
			}
		case <-c.stop:
			c.inputEnded = true
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		}
	}
	return c.drain(ctx)
}

// drain runs after the end of input. It waits until every call read has been
// answered; a call the server made to the client can get no answer any more,
// so it gets an error in place of one, which lets the handler waiting on it
// finish.
func (c *lineConn) drain(ctx context.Context) (jsonrpc.Message, error) {
	limit := time.NewTimer(drainLimit)
	defer limit.Stop()
	for {
		c.mu.Lock()
		var unanswered any
		for id := range c.callsOut {
			unanswered = id
			delete(c.callsOut, id)
			break
		}
		waiting := len(c.callsIn)
		c.mu.Unlock()
		if unanswered != nil {
			id, _ := jsonrpc.MakeID(unanswered)
			return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the client closed its input"}}, nil
		}
		if waiting == 0 {
			return nil, io.EOF
		}
		select {
		case <-c.changed:
		case <-limit.C:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		}
	}
}

// wireMessage is the shape of any JSON-RPC message, for checking a line
// before the SDK decodes it.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// decode turns a line into a message, or answers it with the JSON-RPC error
// it deserves and returns nil.
func (c *lineConn) decode(line []byte) jsonrpc.Message {
	if bytes.Equal(line, oversized) {
		c.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", maxLineBytes))
		return nil
	}
	if !json.Valid(line) {
		c.reject(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: a line is not valid JSON")
		return nil
	}
	if line[0] != '{' {
		c.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: want one JSON-RPC object per line (batches are not supported)")
		return nil
	}
	var w wireMessage
	if err := json.Unmarshal(line, &w); err != nil {
		c.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	id, idErr := decodeID(w.ID)
	switch {
	case bytes.Equal(bytes.TrimSpace(w.ID), []byte("null")) && w.Method != nil:
		// Not a notification (that has no id at all), so it is owed an
		// answer; MCP does not allow a null id.
		c.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, `invalid request: "id" must be a string or a number, not null (leave "id" out for a notification)`)
		return nil
	case idErr != nil:
		c.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: id must be a string or a number")
		return nil
	case w.JSONRPC != "2.0":
		c.reject(id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
		return nil
	case w.Method == nil && w.Result == nil && w.Error == nil:
		c.reject(id, jsonrpc.CodeInvalidRequest, `invalid request: no "method"`)
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.reject(id, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	return c.track(msg)
}

// decodeID reads a request id: absent or null (a notification), a string or a
// number.
func decodeID(raw json.RawMessage) (jsonrpc.ID, error) {
	if len(raw) == 0 {
		return jsonrpc.ID{}, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return jsonrpc.ID{}, err
	}
	return jsonrpc.MakeID(v)
}

// track records a call read (so that the end of input waits for its answer)
// or an answer to one of our calls; a call reusing the id of one still
// running is refused, since its answer could not be told apart.
func (c *lineConn) track(msg jsonrpc.Message) jsonrpc.Message {
	c.mu.Lock()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method == "notifications/cancelled" {
			c.forgetCancelled(m.Params)
		}
		if m.ID.IsValid() {
			if c.callsIn[m.ID.Raw()] {
				c.mu.Unlock()
				c.reject(m.ID, jsonrpc.CodeInvalidRequest, "invalid request: id is already in use by a call still running")
				return nil
			}
			c.callsIn[m.ID.Raw()] = true
		}
	case *jsonrpc.Response:
		delete(c.callsOut, m.ID.Raw())
	}
	c.signal()
	c.mu.Unlock()
	return msg
}

// forgetCancelled stops waiting for a call the client cancelled: the server
// need not answer it. Called with c.mu held.
func (c *lineConn) forgetCancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
		delete(c.callsIn, id.Raw())
	}
}

func (c *lineConn) signal() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// reject answers a message that never reaches the server. The SDK's encoder
// leaves out a missing id, but JSON-RPC wants "id": null there.
func (c *lineConn) reject(id jsonrpc.ID, code int64, message string) {
	answer := struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), &jsonrpc.Error{Code: code, Message: message}}
	data, err := json.Marshal(answer)
	if err == nil {
		_ = c.writeLine(data)
	}
}

// Write implements mcp.Connection.
func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		c.mu.Lock()
		c.callsOut[req.ID.Raw()] = true
		c.signal()
		c.mu.Unlock()
	}
	err := c.writeMessage(msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		// Only once the answer is out may the end of input be reported: the SDK
		// writes nothing more after that.
		c.mu.Lock()
		delete(c.callsIn, resp.ID.Raw())
		c.signal()
		c.mu.Unlock()
	}
	return err
}

func (c *lineConn) writeMessage(msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	return c.writeLine(data)
}

// writeLine writes one message and its newline at once, so that concurrent
// answers never interleave.
func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close implements mcp.Connection.
func (c *lineConn) Close() error {
	c.closing.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection: stdio has no session id.
func (c *lineConn) SessionID() string { return "" }
