package history

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	shopSession = "5b0c1d2e-0000-4000-8000-000000000001"
	shopDir     = "testdata/projects/-home-dev-shop"
)

var shopTranscript = filepath.Join(shopDir, shopSession+".jsonl")

func uuids(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.UUID)
	}
	return out
}

func byUUID(t *testing.T, msgs []Message, uuid string) Message {
	t.Helper()
	for _, m := range msgs {
		if m.UUID == uuid {
			return m
		}
	}
	t.Fatalf("no message %s in %v", uuid, uuids(msgs))
	return Message{}
}

func TestReadKeepsWhatPeopleAndTheModelWrote(t *testing.T) {
	msgs, stats, err := Reader{}.ReadFile(shopTranscript)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"u-0001", "a-0002", "u-0003", "a-0004", "u-0005", "u-0007", "u-0009", "u-0010", "a-0011"}
	if got := uuids(msgs); !slices.Equal(got, want) {
		t.Fatalf("messages %v\nwant %v", got, want)
	}
	// The not-JSON line and the record without a type are counted, nothing else.
	if stats.Malformed != 2 || stats.Lines != 18 {
		t.Errorf("stats = %+v, want 18 complete lines of which 2 malformed", stats)
	}

	a2 := byUUID(t, msgs, "a-0002")
	if strings.Contains(a2.Text, "zebras") {
		t.Errorf("thinking was indexed: %q", a2.Text)
	}
	if !strings.Contains(a2.Text, "[Read] /home/dev/shop/src/auth/middleware.go") {
		t.Errorf("tool call not summed up: %q", a2.Text)
	}
	if got := byUUID(t, msgs, "a-0004").Text; !strings.Contains(got, "[Bash] go test ./src/auth/...") {
		t.Errorf("Bash call: %q", got)
	}
	if got := byUUID(t, msgs, "u-0003").Text; !strings.HasPrefix(got, "[result] package auth") {
		t.Errorf("tool result given as a string: %q", got)
	}
	if got := byUUID(t, msgs, "u-0005").Text; got != "[error] FAIL TestLeeway expected nil" {
		t.Errorf("tool result given as blocks: %q", got)
	}
	if got := byUUID(t, msgs, "u-0007").Text; got != "Here is a screenshot of the failing login page" {
		t.Errorf("image block not dropped: %q", got)
	}
	sum := byUUID(t, msgs, "u-0009")
	if sum.Role != RoleSummary {
		t.Errorf("compaction summary has role %q", sum.Role)
	}
	u1 := byUUID(t, msgs, "u-0001")
	if u1.SessionID != shopSession || u1.Cwd != "/home/dev/shop" || u1.GitBranch != "main" || u1.Role != RoleUser {
		t.Errorf("fields of u-0001: %+v", u1)
	}
	if want := time.Date(2025, 1, 15, 10, 0, 1, 123e6, time.UTC); !u1.Timestamp.Equal(want) {
		t.Errorf("timestamp with fraction = %v", u1.Timestamp)
	}
	if want := time.Date(2025, 1, 15, 10, 0, 5, 0, time.UTC); !a2.Timestamp.Equal(want) {
		t.Errorf("timestamp without fraction = %v", a2.Timestamp)
	}
}

func TestReadAsksForThinking(t *testing.T) {
	msgs, _, err := Reader{Text: TextOptions{Thinking: true}}.ReadFile(shopTranscript)
	if err != nil {
		t.Fatal(err)
	}
	if got := byUUID(t, msgs, "a-0002").Text; !strings.Contains(got, "zebras") {
		t.Errorf("thinking asked for but not read: %q", got)
	}
}

func TestReadLeavesAHalfWrittenLastLine(t *testing.T) {
	info, err := os.Stat(shopTranscript)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(shopTranscript)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	end, _, err := Reader{}.Read(f, 0, func(Message) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	half := int64(len(`{"parentUuid":"a-0011","type":"user","message":{"role":"user","content":"half writ`))
	if end != info.Size()-half {
		t.Errorf("read up to %d of %d bytes; want to stop before the %d-byte half line", end, info.Size(), half)
	}
}

func TestReadEpochMillisecondTimestamps(t *testing.T) {
	msgs, _, err := Reader{}.ReadFile("testdata/projects/-home-dev-blog/7a7a7a7a-0000-4000-8000-000000000007.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if want := time.UnixMilli(1706789012345).UTC(); !msgs[0].Timestamp.Equal(want) {
		t.Errorf("timestamp = %v, want %v", msgs[0].Timestamp, want)
	}
}

func TestReadZeroByteAndSummaryOnlyFiles(t *testing.T) {
	for _, name := range []string{"00000000-0000-4000-8000-0000000000e0.jsonl", "00000000-0000-4000-8000-0000000000f0.jsonl"} {
		msgs, stats, err := Reader{}.ReadFile(filepath.Join(shopDir, name))
		if err != nil || len(msgs) != 0 || stats.Malformed != 0 {
			t.Errorf("%s: %d messages, %+v, %v", name, len(msgs), stats, err)
		}
	}
}

func TestReadSkipsOverlongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.jsonl")
	long := `{"type":"user","uuid":"big","message":{"role":"user","content":"` + strings.Repeat("x", maxLineBytes) + `"}}` + "\n"
	ok := `{"type":"user","uuid":"small","message":{"role":"user","content":"fine"}}` + "\n"
	if err := os.WriteFile(path, []byte(long+ok), 0o600); err != nil {
		t.Fatal(err)
	}
	msgs, stats, err := Reader{}.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := uuids(msgs); !slices.Equal(got, []string{"small"}) || stats.Malformed != 1 {
		t.Errorf("got %v, %+v; want only the short line, one malformed", got, stats)
	}
}

func TestAroundReturnsTheWindow(t *testing.T) {
	msgs, anchor, err := Reader{}.Around(shopTranscript, "u-0005", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := uuids(msgs); !slices.Equal(got, []string{"u-0003", "a-0004", "u-0005", "u-0007"}) || anchor != 2 {
		t.Errorf("window %v anchor %d", got, anchor)
	}
	msgs, anchor, err = Reader{}.Around(shopTranscript, "u-0001", 3, 0)
	if err != nil || !slices.Equal(uuids(msgs), []string{"u-0001"}) || anchor != 0 {
		t.Errorf("window at the start: %v %d %v", uuids(msgs), anchor, err)
	}
	if _, _, err := (Reader{}).Around(shopTranscript, "nope", 1, 1); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown uuid: %v", err)
	}
}

func TestReadAroundFindsTheSessionsTranscripts(t *testing.T) {
	root := "testdata/projects"
	msgs, anchor, err := ReadAround(root, shopSession, "a-0011", 1, 5)
	if err != nil || !slices.Equal(uuids(msgs), []string{"u-0010", "a-0011"}) || anchor != 1 {
		t.Errorf("main transcript: %v %d %v", uuids(msgs), anchor, err)
	}
	// A message of a subagent of the session, new layout and old.
	for _, id := range []string{"sa-0002", "ol-0002"} {
		msgs, anchor, err = ReadAround(root, shopSession, id, 1, 0)
		if err != nil || len(msgs) != 2 || msgs[anchor].UUID != id {
			t.Errorf("%s: %v %d %v", id, uuids(msgs), anchor, err)
		}
	}
	if _, _, err := ReadAround(root, "no-such-session", "u-0001", 1, 1); err == nil || !strings.Contains(err.Error(), "no transcript") {
		t.Errorf("unknown session: %v", err)
	}
	if _, _, err := ReadAround(root, shopSession, "nope", 1, 1); err == nil || !strings.Contains(err.Error(), "not in session") {
		t.Errorf("unknown message: %v", err)
	}
}

func TestToolCallsAreSummedUpByTheirTellingArgument(t *testing.T) {
	msgs, _, err := Reader{}.ReadFile(filepath.Join(shopDir, shopSession, "subagents", "agent-a1b2c3.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got := byUUID(t, msgs, "sa-0002").Text; !strings.HasPrefix(got, "[Grep] checkClockSkew\n") {
		t.Errorf("Grep call: %q", got)
	}
	if !msgs[0].Sidechain || msgs[0].AgentID != "a1b2c3" {
		t.Errorf("subagent fields: %+v", msgs[0])
	}
}
