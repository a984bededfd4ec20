package eval

// Related names the summary of every category but unrelated together.
const Related = "related"

// Summary is the figures of one category of queries in one search mode.
type Summary struct {
	Category string `json:"category"`
	Queries  int    `json:"queries"`

	// Ranking of recall's answer; related queries only.
	RecallAt5  float64 `json:"recall_at_5"`
	RecallAt10 float64 `json:"recall_at_10"`
	MRR        float64 `json:"mrr"`
	// Answered is the share of queries recall returned anything for (for
	// unrelated prompts, the goal is 0).
	Answered float64 `json:"answered"`
	// Errors counts queries recall refused.
	Errors int `json:"errors"`
	// Degraded counts queries answered from keywords alone although the mode
	// asked for vectors too.
	Degraded int `json:"degraded"`

	Hook HookSummary `json:"hook"`
}

// HookSummary is what the UserPromptSubmit hook injected.
type HookSummary struct {
	// InjectedAny is the share of prompts that injected at least one memory
	// (for unrelated prompts, the goal is 0).
	InjectedAny float64 `json:"injected_any"`
	// RelevantInjected is the share of related prompts that injected at least
	// one relevant memory.
	RelevantInjected float64 `json:"relevant_injected"`
	// Precision is the share of injected memories that are relevant, over
	// related prompts.
	Precision float64 `json:"precision"`
	// MeanInjected is the mean number of memories injected per prompt.
	MeanInjected float64 `json:"mean_injected"`
}

// Summarize computes the figures per category (in the order of Categories,
// those with queries) and for all related queries together.
func Summarize(d *Dataset, outcomes []Outcome) []Summary {
	judged := make(map[string]Query, len(d.Queries))
	for _, q := range d.Queries {
		judged[q.ID] = q
	}
	groups := map[string][]Outcome{}
	for _, o := range outcomes {
		groups[o.Category] = append(groups[o.Category], o)
		if o.Category != Unrelated {
			groups[Related] = append(groups[Related], o)
		}
	}
	var out []Summary
	for _, c := range append(Categories[:len(Categories):len(Categories)], Related) {
		if len(groups[c]) > 0 {
			out = append(out, summarize(c, groups[c], judged))
		}
	}
	return out
}

func summarize(category string, outcomes []Outcome, judged map[string]Query) Summary {
	s := Summary{Category: category, Queries: len(outcomes)}
	var r5, r10, rr, answered, injectedAny, relevantInjected, injectedCounts []float64
	relevant, injected := 0, 0
	for _, o := range outcomes {
		rel := judged[o.QueryID].Relevant
		if o.Error != "" {
			s.Errors++
		}
		if o.Degraded != "" {
			s.Degraded++
		}
		answered = append(answered, indicator(len(o.Ranked) > 0))
		injectedAny = append(injectedAny, indicator(len(o.Injected) > 0))
		injectedCounts = append(injectedCounts, float64(len(o.Injected)))
		if len(rel) == 0 {
			continue
		}
		r5 = append(r5, RecallAt(o.Ranked, rel, 5))
		r10 = append(r10, RecallAt(o.Ranked, rel, 10))
		rr = append(rr, ReciprocalRank(o.Ranked, rel))
		hits := CountRelevant(o.Injected, rel)
		relevantInjected = append(relevantInjected, indicator(hits > 0))
		relevant += hits
		injected += len(o.Injected)
	}
	s.RecallAt5, s.RecallAt10, s.MRR = mean(r5), mean(r10), mean(rr)
	s.Answered = mean(answered)
	s.Hook = HookSummary{
		InjectedAny:      mean(injectedAny),
		RelevantInjected: mean(relevantInjected),
		MeanInjected:     mean(injectedCounts),
	}
	if injected > 0 {
		s.Hook.Precision = float64(relevant) / float64(injected)
	}
	return s
}

func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
