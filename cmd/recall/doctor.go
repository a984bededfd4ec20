package main

import (
	"context"
	"fmt"
	"io"

	"github.com/recall-mcp/recall/doctor"
	"github.com/recall-mcp/recall/viewer"

	"github.com/spf13/pflag"
)

var doctorCommand = &command{
	group: "server",
	name:  "doctor",
	args:  "",
	summary: "Check the database, Ollama, the models and the Claude Code wiring.\n" +
		"Each problem comes with exactly what to run to fix it. Exits 1 only when\n" +
		"something essential is broken (the configuration or the database); Ollama is\n" +
		"optional (search falls back to keywords), so its problems are warnings.",
	setup: runDoctor,
}

var levelMarks = map[doctor.Level]string{doctor.OK: "ok  ", doctor.Warn: "warn", doctor.Fail: "FAIL"}

// report prints checks as they complete and remembers the worst outcome.
type report struct {
	w     io.Writer
	worst doctor.Level
}

// print writes one finding; its fixes, when given, are what to run.
func (r *report) print(f doctor.Finding) {
	fmt.Fprintf(r.w, "[%s] %s\n", levelMarks[f.Level], f.What)
	for _, fix := range f.Fix {
		fmt.Fprintf(r.w, "       fix: %s\n", fix)
	}
	r.worst = max(r.worst, f.Level)
}

func runDoctor(fs *pflag.FlagSet) runFunc {
	asJSON := jsonFlag(fs)
	return func(ctx context.Context, e *env, rest []string) error {
		if err := noArgs(rest); err != nil {
			return err
		}
		r := &report{w: e.stdout}
		var findings []doctor.Finding
		emit := r.print
		if *asJSON {
			// The viewer's Health page reads the same findings.
			emit = func(f doctor.Finding) { findings = append(findings, f); r.worst = max(r.worst, f.Level) }
		}
		cfg, _, err := loadConfig(io.Discard)
		if err != nil {
			emit(doctor.Finding{Level: doctor.Fail, What: "configuration: " + err.Error(),
				Fix: []string{"correct the RECALL_* variable named above (recall help config lists them)"}})
		} else {
			doctor.Run(ctx, cfg, emit)
		}
		if *asJSON {
			if err := writeJSON(e.stdout, map[string]any{"findings": findings, "worst": r.worst}); err != nil {
				return err
			}
			if r.worst == doctor.Fail {
				return exitError{1}
			}
			return nil
		}
		if err != nil {
			return exitError{1}
		}

		switch r.worst {
		case doctor.Fail:
			fmt.Fprintln(e.stdout, "\nSomething essential is broken (marked FAIL): run the fixes above.")
			return exitError{1}
		case doctor.Warn:
			fmt.Fprintln(e.stdout, "\nRecall works; the warnings above say how to get all of it.")
		default:
			fmt.Fprintln(e.stdout, "\nAll good.")
		}
		return nil
	}
}

// checkup is recall doctor's findings for the viewer's Health page.
func (a *app) checkup(ctx context.Context) []viewer.Finding {
	findings, _ := doctor.Collect(ctx, a.cfg)
	out := make([]viewer.Finding, len(findings))
	for i, f := range findings {
		out[i] = viewer.Finding{Level: f.Level.String(), What: f.What, Fix: f.Fix}
	}
	return out
}
