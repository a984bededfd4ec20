package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/recall-mcp/recall/memory"
)

// APIPrefix is where the team server serves its viewer's JSON API: what the
// CLI uses for the commands the MCP tools do not cover (show, edit, rm,
// restore, stats, export, import), as the person whose token this machine
// holds, under the same checks as the viewer's page.
const APIPrefix = "/ui/api/"

// APIError is the team server refusing a request of its API, with the
// server's own words. It unwraps to memory.ErrNotFound, ErrInvalid or
// ErrProtected as the status says, so callers word those as they do for
// their own database.
type APIError struct {
	Status int
	Msg    string
}

func (e *APIError) Error() string {
	switch e.Status {
	case http.StatusUnauthorized:
		return "the team server refused the token (RECALL_TOKEN): " + e.Msg
	case http.StatusForbidden:
		if strings.Contains(e.Msg, "--hostname") { // the name in RECALL_SERVER_URL is not one the server knows
			return "the team server refused: " + e.Msg + " (its administrator adds the host name of RECALL_SERVER_URL with recall serve --hostname NAME)"
		}
		return "the team server refused: " + e.Msg
	}
	if e.Status >= 500 {
		return "the team server failed: " + e.Msg
	}
	return e.Msg
}

func (e *APIError) Unwrap() error {
	switch e.Status {
	case http.StatusNotFound:
		return memory.ErrNotFound
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return memory.ErrInvalid
	case http.StatusConflict:
		return memory.ErrProtected
	}
	return nil
}

// Do sends one request of the API (path relative to APIPrefix, query
// parameters, a JSON body when body is not nil) and decodes the JSON answer
// into out (when not nil).
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	var in io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		in = bytes.NewReader(b)
	}
	resp, err := c.send(ctx, method, path, query, in, "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("the team server's answer to %s %s: %w", method, path, err)
	}
	return nil
}

// Stream sends one request of the API with body as it is (contentType) and
// returns the answer's body for the caller to read and close.
func (c *Client) Stream(ctx context.Context, method, path string, query url.Values, body io.Reader, contentType string) (io.ReadCloser, error) {
	resp, err := c.send(ctx, method, path, query, body, contentType)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// send makes the request and turns an answer other than 2xx into an
// *APIError carrying the server's message.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, body io.Reader, contentType string) (*http.Response, error) {
	u := c.URL + APIPrefix + strings.TrimPrefix(path, "/")
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	// The CLI is the door: its changes are recorded as the CLI's.
	req.Header.Set(memory.SourceHeader, memory.SourceCLI)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("team server %s did not answer: %w", c.URL, unwrapURL(err))
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, &APIError{Status: resp.StatusCode, Msg: errorMessage(resp)}
}

// errorMessage is the server's words for a refused request: the API's
// {"error": "..."}, else the body's text, else the status.
func errorMessage(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return e.Error
	}
	// The MCP endpoint's JSON-RPC errors (401 before the viewer sees it).
	var rpc struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &rpc) == nil && rpc.Error.Message != "" {
		return rpc.Error.Message
	}
	if text := strings.TrimSpace(string(b)); text != "" && !strings.HasPrefix(text, "<") {
		return text
	}
	if resp.StatusCode == http.StatusNotFound {
		return "the team server has no " + resp.Request.URL.Path + ": is RECALL_SERVER_URL the address of recall serve --http (a newer version)?"
	}
	return resp.Status
}

// unwrapURL drops url.Error's "Get <url>:" prefix: the caller names the server.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
