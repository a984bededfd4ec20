package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
)

// A post-tool-use hook runs after every tool call, and Claude Code waits for
// it. Working alone (no recall serve took it), opening the database cost it
// more than everything else it did: the first query reads the whole schema
// and the write-ahead log's index, then the turn is looked up and the write
// made, about 3 of its 4 ms after main on a quiet machine. So the hook keeps
// the tool call in the spool instead (one small file, not synced, as its
// database write is not) and exits without opening the database: the entry
// and the file touch are made as before, secrets removed, and only what needs
// the database is left for when the spool is applied (ResolveKeptToolCall):
// the project's namespace and the turn. Whoever opens the database next
// applies the spool before its own write, in order; the Stop hook, at the end
// of every turn, applies all of it, so the next prompt finds nothing to do.

// KeptToolCall is a tool call kept without opening the database: its journal
// entry and file touch as the hook made them, the entry without namespace and
// turn.
type KeptToolCall struct {
	Entry    *capture.Entry       `json:"entry,omitempty"`
	Activity *memory.FileActivity `json:"file_activity,omitempty"`
	// Cwd is the hook's working directory (its own when the event named
	// none): its project's namespace is the database's to say.
	Cwd string `json:"cwd"`
	// Namespace is the project the hook's configuration pins
	// (RECALL_PROJECT), which the process that applies the call may not.
	Namespace string `json:"namespace,omitempty"`
}

// KeepFunc keeps a tool call for when the database is next opened.
type KeepFunc func(ctx context.Context, k *KeptToolCall) error

// keepToolCall is postToolUse for a handler that keeps its tool calls
// (KeepToolCalls): the same entry and touch, kept instead of written.
func (h *Handler) keepToolCall(ctx context.Context, in *Input) error {
	// What the hook knows of its project is kept with the call: the process
	// that applies it has a working directory and configuration of its own.
	k := &KeptToolCall{Cwd: in.Cwd}
	if k.Cwd == "" {
		k.Cwd, _ = os.Getwd()
	}
	if h.Projects != nil {
		if p, ok := h.Projects.Pinned(); ok {
			k.Namespace = p.Namespace
		}
	}
	var entryErr, touchErr error
	k.Entry, k.Activity, entryErr, touchErr = h.toolCall(in, project.Project{Root: project.FindRoot(k.Cwd)}, "")
	if k.Entry == nil && k.Activity == nil {
		return errors.Join(entryErr, touchErr)
	}
	// As RecordToolCall names them when the hook writes them itself.
	if k.Entry != nil {
		k.Entry.Author = memory.AuthorOr(ctx, k.Entry.Author)
	}
	if k.Activity != nil {
		k.Activity.Author = memory.AuthorOr(ctx, k.Activity.Author)
	}
	var keepErr error
	if err := h.KeepToolCalls(ctx, k); err != nil {
		keepErr = fmt.Errorf("keep tool call: %w", err)
		h.lostWrite(writeToolCall, keepErr)
	}
	return errors.Join(entryErr, touchErr, keepErr)
}

// ResolveKeptToolCall completes a tool call a hook kept (a KeptToolCall, as
// JSON) with what only the database knows: the namespace of its project and
// its turn, found as the hook would have found them when it ran.
// pending are the journal entries written before it in the same
// transaction, oldest first (see capture.Recorder.TurnAfter).
func (h *Handler) ResolveKeptToolCall(ctx context.Context, data json.RawMessage, pending []*capture.Entry) (*capture.Entry, *memory.FileActivity, error) {
	var k KeptToolCall
	if err := json.Unmarshal(data, &k); err != nil {
		return nil, nil, fmt.Errorf("decode kept tool call: %w", err)
	}
	return h.resolveKept(ctx, &k, pending)
}

func (h *Handler) resolveKept(ctx context.Context, k *KeptToolCall, pending []*capture.Entry) (*capture.Entry, *memory.FileActivity, error) {
	if k.Entry == nil {
		return nil, k.Activity, nil
	}
	if k.Namespace != "" {
		k.Entry.Namespace = k.Namespace
	} else {
		p, err := h.project(ctx, k.Cwd)
		if err != nil {
			return nil, nil, err
		}
		k.Entry.Namespace = p.Namespace
	}
	if h.Capture != nil {
		// The transcript has grown since: its turn as of the hook's time.
		k.Entry.TurnID = h.Capture.TurnAfter(ctx, pending, k.Entry.SessionID, k.Entry.TranscriptPath, k.Entry.TranscriptOffset)
	}
	return k.Entry, k.Activity, nil
}

// RecordKept writes a kept tool call now, for a hook whose tool call could
// not be kept (the spool's directory full or read-only): as postToolUse
// writes one.
func (h *Handler) RecordKept(ctx context.Context, k *KeptToolCall) error {
	e, a, err := h.resolveKept(ctx, k, nil)
	if err != nil {
		return err
	}
	if h.ToolCalls != nil {
		return h.ToolCalls.RecordToolCall(ctx, e, a)
	}
	return h.recordSeparately(ctx, e, a)
}

// applyKept applies the spool at the end of a turn. What it leaves (the
// database busy, its time up) waits for the next write, which applies it
// first.
func (h *Handler) applyKept(ctx context.Context) {
	if h.ApplyKept == nil {
		return
	}
	if err := h.ApplyKept(ctx); err != nil {
		h.log().Info("kept writes not all applied; the next hook or recall serve will", "err", err)
	}
}
