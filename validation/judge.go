package validation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/recall-mcp/recall/memory"
)

// Judgments asked of the chat model. Each goes through memory.Judge, which
// sends the JSON schema as Ollama's `format` with temperature 0; any failure
// (no model configured, model not pulled, timeout, a reply that does not parse
// or breaks the rules below) is returned as an error and reported by the caller
// as a failed judgment, never a crash.

// MinJudgmentConfidence is the least confidence the model must state for a
// judgment to create an edge.
const MinJudgmentConfidence = 0.7

// contradictionSchema is the reply of a contradiction judgment.
var contradictionSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "contradicts": {"type": "boolean"},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    "reason": {"type": "string"}
  },
  "required": ["contradicts", "confidence", "reason"]
}`)

const contradictionSystem = `You compare two notes kept by a coding assistant about a user's preferences, decisions and patterns.
Decide whether they contradict: following one would mean breaking the other.
Notes on different topics, or that merely add detail, do not contradict.
Answer only with JSON: {"contradicts": true or false, "confidence": 0 to 1, "reason": "one short sentence"}.`

// contradictionVerdict is the model's answer on one pair.
type contradictionVerdict struct {
	Contradicts *bool    `json:"contradicts"`
	Confidence  *float64 `json:"confidence"`
	Reason      string   `json:"reason"`
}

// judgeContradiction asks whether a and b contradict. confirmed is true when
// the model says so with at least MinJudgmentConfidence.
func (s *Service) judgeContradiction(ctx context.Context, a, b *memory.Memory) (confirmed bool, confidence float64, reason string, err error) {
	if s.judge == nil {
		return false, 0, "", errNoJudge
	}
	var v contradictionVerdict
	prompt := fmt.Sprintf("Note A: %s\n\nNote B: %s\n\nDo A and B contradict each other?", quoteNote(a), quoteNote(b))
	if err := s.callJudge(ctx, contradictionSystem, prompt, contradictionSchema, &v); err != nil {
		return false, 0, "", err
	}
	if v.Contradicts == nil || v.Confidence == nil {
		return false, 0, "", fmt.Errorf("the model's reply lacks contradicts or confidence: %w", memory.ErrBadReply)
	}
	if *v.Confidence < 0 || *v.Confidence > 1 {
		return false, 0, "", fmt.Errorf("the model's confidence %v is outside 0 to 1: %w", *v.Confidence, memory.ErrBadReply)
	}
	return *v.Contradicts && *v.Confidence >= MinJudgmentConfidence, *v.Confidence, strings.TrimSpace(v.Reason), nil
}

// noteFailure adds a judgment that failed to failed, so that the others
// still count; when ctx is done it returns ctx's error instead, to stop.
func noteFailure(ctx context.Context, failed *[]FailedJudgment, memoryID string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	*failed = append(*failed, FailedJudgment{MemoryID: memoryID, Reason: err.Error()})
	return nil
}

// relationSchema is the reply of a relationship classification.
var relationSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "relation": {"type": "string", "enum": ["none", "relates_to", "supersedes", "caused_by", "contradicts"]},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    "reason": {"type": "string"}
  },
  "required": ["relation", "confidence", "reason"]
}`)

const relationSystem = `You link notes kept by a coding assistant about a user's preferences, decisions and patterns.
Classify how the NEW note relates to the OLD note:
- "supersedes": the new note replaces the old one (same topic, newer choice);
- "contradicts": the two cannot both be followed, and neither clearly replaces the other;
- "caused_by": the new note exists because of the old one;
- "relates_to": same topic, both stay true;
- "none": unrelated.
Answer only with JSON: {"relation": one of the names above, "confidence": 0 to 1, "reason": "one short sentence"}.`

// relationVerdict is the model's classification of one pair.
type relationVerdict struct {
	Relation   string   `json:"relation"`
	Confidence *float64 `json:"confidence"`
	Reason     string   `json:"reason"`
}

// classifyRelation asks how newer relates to older. rel is empty for "none".
func (s *Service) classifyRelation(ctx context.Context, newer, older *memory.Memory) (rel memory.Relation, confidence float64, reason string, err error) {
	if s.judge == nil {
		return "", 0, "", errNoJudge
	}
	var v relationVerdict
	prompt := fmt.Sprintf("OLD note: %s\n\nNEW note: %s\n\nHow does the NEW note relate to the OLD note?", quoteNote(older), quoteNote(newer))
	if err := s.callJudge(ctx, relationSystem, prompt, relationSchema, &v); err != nil {
		return "", 0, "", err
	}
	if v.Confidence == nil || *v.Confidence < 0 || *v.Confidence > 1 {
		return "", 0, "", fmt.Errorf("the model's reply lacks a confidence from 0 to 1: %w", memory.ErrBadReply)
	}
	if v.Relation == "none" {
		return "", *v.Confidence, strings.TrimSpace(v.Reason), nil
	}
	r, err := memory.ParseRelation(v.Relation)
	if err != nil {
		return "", 0, "", fmt.Errorf("the model answered an unknown relation %q: %w", v.Relation, memory.ErrBadReply)
	}
	return r, *v.Confidence, strings.TrimSpace(v.Reason), nil
}

// errNoJudge is the failed judgment of a service without a chat model.
var errNoJudge = fmt.Errorf("no chat model configured: %w", memory.ErrUnavailable)

// callJudge bounds one judgment by Options.JudgeTimeout and records how the
// chat model fared (see recordHealth).
func (s *Service) callJudge(ctx context.Context, system, prompt string, schema json.RawMessage, out any) error {
	callCtx, cancel := context.WithTimeout(ctx, s.opts.JudgeTimeout)
	defer cancel()
	err := s.judge.JudgeJSON(callCtx, system, prompt, schema, out)
	if err != nil && errors.Is(callCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		err = fmt.Errorf("the chat model did not answer within %s: %w", s.opts.JudgeTimeout, err)
	}
	s.recordHealth(ctx, roleChat, err)
	return err
}

// maxNoteBytes bounds what of a memory goes into a prompt: a judgment needs
// the gist, and a small model's context is short.
const maxNoteBytes = 2000

func quoteNote(m *memory.Memory) string {
	c := m.Content
	if len(c) > maxNoteBytes {
		c = strings.ToValidUTF8(c[:maxNoteBytes], "") + " [...]"
	}
	return fmt.Sprintf("(%s) %q", m.Type, c)
}
