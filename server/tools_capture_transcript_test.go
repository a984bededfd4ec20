package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/capture"
)

// transcriptOf returns the uuids of a details record's transcript and the
// anchor's, failing when the record has none.
func transcriptOf(t *testing.T, rec map[string]any) (uuids []string, anchor string) {
	t.Helper()
	msgs, _ := rec["transcript"].([]any)
	for _, m := range msgs {
		m := m.(map[string]any)
		uuids = append(uuids, m["uuid"].(string))
		if m["is_match"] == true {
			anchor = m["uuid"].(string)
		}
	}
	return uuids, anchor
}

// TestRecallDetailsReadsAroundTheTurnInTheTranscript: a record whose body the
// journal trimmed comes with the conversation around its turn; any record does
// when asked (around); a transcript moved away is found by its session; what
// the transcript shows is cleaned of private sections and secrets.
func TestRecallDetailsReadsAroundTheTurnInTheTranscript(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	root := filepath.Join(t.TempDir(), "projects")
	path := writePrivateTranscript(t, root)
	f.reader.TranscriptRoot = root
	rec := &capture.Recorder{Store: f.db}
	a := capture.Anchor{Namespace: "project:vault", SessionID: privateSession, TurnID: "p-0001", TranscriptPath: path}

	long := "Deploy the billing worker, here is the whole log:\n" + strings.Repeat("worker log line\n", 2000)
	prompt, err := rec.Prompt(ctx, a, long)
	if err != nil || prompt.TrimmedBytes == 0 {
		t.Fatalf("prompt: %v, trimmed %d bytes; want a trimmed prompt", err, prompt.TrimmedBytes)
	}
	in, _ := json.Marshal(map[string]any{"command": "gh release create v2"})
	out, _ := json.Marshal(map[string]any{"stdout": "release v2 published"})
	obs, err := rec.Observation(ctx, a, capture.Tool{Name: "Bash", Input: in, Response: out})
	if err != nil || obs.TrimmedBytes != 0 {
		t.Fatalf("observation: %v, trimmed %d bytes", err, obs.TrimmedBytes)
	}
	moved := a
	moved.TurnID, moved.TranscriptPath = "p-0004", filepath.Join(t.TempDir(), "moved-away.jsonl")
	far, err := rec.Observation(ctx, moved, capture.Tool{Name: "Bash", Input: in, Response: out})
	if err != nil {
		t.Fatal(err)
	}
	noTurn := a
	noTurn.TurnID = ""
	lost, err := rec.Observation(ctx, noTurn, capture.Tool{Name: "Bash", Input: in, Response: out})
	if err != nil {
		t.Fatal(err)
	}
	pid, oid, fid, lid := capture.EntryID(prompt.ID), capture.EntryID(obs.ID), capture.EntryID(far.ID), capture.EntryID(lost.ID)

	cs := f.connect(t)
	check := func(res map[string]any) []any {
		t.Helper()
		b, _ := json.Marshal(res)
		if l := leaked(string(b)); l != nil {
			t.Errorf("recall_details shows %v: %s", l, b)
		}
		return res["records"].([]any)
	}

	// Unasked: the trimmed prompt gets its turn and what followed, the whole
	// observation nothing.
	recs := check(call(t, cs, "recall_details", map[string]any{"ids": []string{pid, oid}}))
	uuids, anchor := transcriptOf(t, recs[0].(map[string]any))
	if strings.Join(uuids, ",") != "p-0001,p-0002,p-0003,p-0004" || anchor != "p-0001" {
		t.Fatalf("trimmed prompt: transcript %v, anchor %q; want p-0001 to p-0004 around p-0001", uuids, anchor)
	}
	first := recs[0].(map[string]any)["transcript"].([]any)[0].(map[string]any)
	if !strings.Contains(first["content"].(string), "AWS key [REDACTED:") || first["role"] != "user" || first["timestamp"] != "2025-02-01T09:00:00.000Z" {
		t.Errorf("the anchor message: %v", first)
	}
	if _, ok := recs[1].(map[string]any)["transcript"]; ok {
		t.Errorf("a whole record got a transcript unasked: %v", recs[1])
	}

	// Asked: one message each side.
	recs = check(call(t, cs, "recall_details", map[string]any{"ids": []string{oid, fid, lid}, "around": 1}))
	uuids, _ = transcriptOf(t, recs[0].(map[string]any))
	if strings.Join(uuids, ",") != "p-0001,p-0002" {
		t.Fatalf("around 1 of p-0001: %v", uuids)
	}
	if c := recs[0].(map[string]any)["transcript"].([]any)[1].(map[string]any)["content"].(string); !strings.Contains(c, "[Bash] export GITHUB_TOKEN=[REDACTED:") {
		t.Errorf("the tool call: %q", c)
	}
	uuids, anchor = transcriptOf(t, recs[1].(map[string]any))
	if strings.Join(uuids, ",") != "p-0003,p-0004,p-0005" || anchor != "p-0004" {
		t.Fatalf("a transcript moved away, found by its session: %v, anchor %q", uuids, anchor)
	}
	if c := recs[1].(map[string]any)["transcript"].([]any)[1].(map[string]any)["content"].(string); !strings.Contains(c, "Grafana. [private] Keep") {
		t.Errorf("the private section: %q", c)
	}
	if note, _ := recs[2].(map[string]any)["transcript_note"].(string); note == "" || recs[2].(map[string]any)["transcript"] != nil {
		t.Errorf("a record without a turn: %v", recs[2])
	}

	callErr(t, cs, "recall_details", map[string]any{"ids": []string{oid}, "around": 21}, "around", "0 to 20")
}
