package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// OllamaState is the note beside the database that tells hooks to skip the
// vector side: it exists while Ollama is down, hung or slower than the budget.
// It is a hint, not data: losing it costs one hook one budget. recall doctor
// reports it.
type OllamaState struct {
	Since   time.Time `json:"since"`   // when Ollama was first found wanting
	Checked time.Time `json:"checked"` // when it was last tried (or a try started)
	Reason  string    `json:"reason"`
}

// OllamaStatePath is the state file of the database at dbPath.
func OllamaStatePath(dbPath string) string { return dbPath + ".ollama" }

// ReadOllamaState returns the state at path (OllamaStatePath), or nil when
// there is none (Ollama is believed to answer).
func ReadOllamaState(path string) (*OllamaState, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st OllamaState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &st, nil
}

// writeOllamaState replaces the state at once (a rename), so that a reader
// never sees half a file. No fsync: after a crash the worst is one more try.
func writeOllamaState(path string, st *OllamaState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	if err := errors.Join(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func removeOllamaState(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
