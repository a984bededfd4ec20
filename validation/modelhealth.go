package validation

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Model roles whose health is recorded in the database.
const (
	roleChat  = "chat"
	roleEmbed = "embed"
)

// recordHealth records how a call to a model role went, so that `recall stats`
// and `recall doctor` can say why judgments keep failing. The log says it once
// per change (failing, failing differently, answering again), not once per job.
// An interrupted call says nothing about the model and is not recorded.
func (s *Service) recordHealth(ctx context.Context, role string, err error) {
	if ctx.Err() != nil {
		return
	}
	msg := ""
	if err != nil {
		msg = explainFailure(role, err)
	}
	s.healthMu.Lock()
	last, seen := s.health[role]
	s.health[role] = msg
	s.healthMu.Unlock()
	switch {
	case msg != "" && msg != last:
		s.log().Warn("model calls failing", "role", role, "reason", msg, "detail", err)
	case msg == "" && last != "":
		s.log().Info("model answers again", "role", role)
	case msg == "" && seen:
		return // healthy before and now: nothing to write
	}
	// A shared record: other processes' failures count too. A busy database
	// must not fail the judgment itself.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if werr := s.store.RecordModelHealth(wctx, role, msg, time.Now()); werr != nil {
		s.log().Debug("recording model health failed", "err", werr)
	}
}

// explainFailure says in one stable sentence what keeps a model role from
// working and what to check: the same cause gives the same words, whatever the
// memory or the reply, so it is reported once.
func explainFailure(role string, err error) string {
	setting := "RECALL_OLLAMA_CHAT_MODEL"
	if role == roleEmbed {
		setting = "RECALL_OLLAMA_MODEL"
	}
	switch {
	case errors.Is(err, memory.ErrBadReply):
		return "the chat model's replies do not parse: check " + setting
	case errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "did not answer within"):
		msg := err.Error()
		if i := strings.Index(msg, ": "); i > 0 {
			msg = msg[:i]
		}
		return msg + ": check that " + setting + " names a model that answers in time, and that Ollama is not overloaded"
	}
	return err.Error()
}
