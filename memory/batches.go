package memory

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Embedding many memories (reindex, the background fill) goes in requests
// sized by the length of their texts, not by a fixed count: on a CPU, 16 texts
// of 512 tokens take Ollama 26 s with a 24-layer model, so a fixed batch of 32
// never finishes within the 30 s timeout, while 32 short sentences take one.
// batchSizer keeps a token budget per request, aimed at batchTarget from the
// throughput measured so far, and halves it on a timeout down to a single
// text, which then gets the whole timeout.

const (
	// batchTarget is the time one embed request should take: well inside
	// Ollama's timeout (30 s by default) on a slow machine, long enough to keep
	// Ollama busy between requests.
	batchTarget = 5 * time.Second
	// firstBatchTokens is the budget of the first request, before any
	// throughput is known: a handful of long texts, or many short ones.
	firstBatchTokens = 2048
	maxBatchTokens   = 32768
	// maxBatchTexts keeps a batch within one request of the Ollama client.
	maxBatchTexts = 64
	// maxTextTokens caps the estimate of one text: Ollama reads no more than
	// the model's context (512 tokens for mxbai-embed-large).
	maxTextTokens = 512
)

// batchSizer chooses how many texts go into the next request.
type batchSizer struct {
	budget  int // tokens per request
	ceiling int // half of the smallest request that timed out: never exceeded again
}

func newBatchSizer() *batchSizer {
	return &batchSizer{budget: firstBatchTokens, ceiling: maxBatchTokens}
}

// estimateTokens guesses a text's token count from its length: about four
// bytes a token for English and code, capped at what Ollama reads.
func estimateTokens(text string) int {
	return min(len(text)/4+2, maxTextTokens)
}

func sumTokens(texts []string) int {
	n := 0
	for _, t := range texts {
		n += estimateTokens(t)
	}
	return n
}

// next returns how many of texts (at least one) fit the budget.
func (b *batchSizer) next(texts []string) int {
	n, tokens := 0, 0
	for n < len(texts) && n < maxBatchTexts {
		t := estimateTokens(texts[n])
		if n > 0 && tokens+t > b.budget {
			break
		}
		n, tokens = n+1, tokens+t
	}
	return n
}

// observe sets the budget from the throughput of a request that succeeded.
func (b *batchSizer) observe(texts []string, took time.Duration) {
	if took <= 0 {
		return
	}
	rate := float64(sumTokens(texts)) / took.Seconds()
	b.budget = max(1, min(int(rate*batchTarget.Seconds()), b.ceiling))
}

// halve shrinks the budget after a request of texts timed out, so that the
// next request holds at most half of them.
func (b *batchSizer) halve(texts []string) {
	b.budget = max(1, sumTokens(texts)/2)
	b.ceiling = min(b.ceiling, b.budget)
}

// embedInBatches embeds texts in requests the sizer chooses and hands each
// request's vectors to put, with the index of the first text. A text that
// times out alone is handed to skip and left; any other failure ends the run
// with its error.
func (s *Service) embedInBatches(ctx context.Context, texts []string, sizer *batchSizer,
	put func(first int, vecs [][]float32) error, skip func(i int, err error)) error {
	for i := 0; i < len(texts); {
		n := sizer.next(texts[i:])
		batch := texts[i : i+n]
		start := time.Now()
		vecs, err := s.embedder.EmbedDocuments(ctx, batch)
		switch {
		case err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
			if n > 1 {
				sizer.halve(batch)
				s.log().Info("embedding request timed out; sending fewer texts at once", "texts", n, "next_budget_tokens", sizer.budget)
				continue
			}
			skip(i, err)
			i++
			continue
		case err != nil:
			return err
		case len(vecs) != n:
			return fmt.Errorf("the embedding model %s returned %d vectors for %d texts: %w", s.embedder.Model(), len(vecs), n, ErrUnavailable)
		}
		sizer.observe(batch, time.Since(start))
		if err := put(i, vecs); err != nil {
			return err
		}
		i += n
	}
	return nil
}
