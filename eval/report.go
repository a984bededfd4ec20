package eval

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText prints the report as tables for people: per mode, the ranking
// figures and the prompt hook's figures, per category.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Retrieval evaluation: %d memories, %d queries", r.Memories, r.Queries)
	if r.Embedder != "" {
		fmt.Fprintf(w, "; vectors from %s", r.Embedder)
	} else {
		fmt.Fprint(w, "; no vectors")
	}
	if r.Plumbing {
		fmt.Fprint(w, " (they carry no meaning: hybrid figures test plumbing only)")
	}
	fmt.Fprintln(w)
	if r.Pending > 0 && len(r.Modes) > 1 {
		fmt.Fprintf(w, "%d memories were stored without a vector (the embedder failed); hybrid finds them by keywords only\n", r.Pending)
	}
	for _, m := range r.Modes {
		fmt.Fprintf(w, "\n%s search (recall of %d, all namespaces)\n", m.Mode, Depth)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "category\tqueries\tR@5\tR@10\tMRR\tanswered\terrors\tdegraded\t")
		for _, s := range m.Summaries {
			if s.Category == Unrelated {
				fmt.Fprintf(tw, "%s\t%d\t-\t-\t-\t%.3f\t%d\t%d\t\n", s.Category, s.Queries, s.Answered, s.Errors, s.Degraded)
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%d\t\n", s.Category, s.Queries, s.RecallAt5, s.RecallAt10, s.MRR, s.Answered, s.Errors, s.Degraded)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "\n%s prompt hook (UserPromptSubmit, in the query's project)\n", m.Mode)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "category\tprompts\tinjected any\trelevant injected\tprecision\tmean injected\t")
		for _, s := range m.Summaries {
			if s.Category == Unrelated {
				fmt.Fprintf(tw, "%s\t%d\t%.3f\t-\t-\t%.2f\t\n", s.Category, s.Queries, s.Hook.InjectedAny, s.Hook.MeanInjected)
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.2f\t\n", s.Category, s.Queries, s.Hook.InjectedAny, s.Hook.RelevantInjected, s.Hook.Precision, s.Hook.MeanInjected)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if r.VectorChanged != nil {
		fmt.Fprintf(w, "\nThe vector side changed what the prompt hook injects for %d of %d prompts (", r.VectorChanged["all"], r.Queries)
		for i, c := range Categories {
			if i > 0 {
				fmt.Fprint(w, ", ")
			}
			fmt.Fprintf(w, "%s %d", c, r.VectorChanged[c])
		}
		fmt.Fprintln(w, "): a hook whose vector comes too late injects the keyword-only list for those.")
	}
	fmt.Fprintln(w, "\nR@k: share of the relevant memories in the first k; MRR: 1/rank of the first relevant memory within the first 10; answered: share of queries with any result (goal 0 for unrelated); injected any: share of prompts the hook injected something for (goal 0 for unrelated); relevant injected: share of related prompts with a relevant memory injected; precision: relevant share of injected memories.")
	return nil
}
