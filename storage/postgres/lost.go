package postgres

import (
	"errors"
	"time"

	"github.com/recall-mcp/recall/spool"
)

// Hook writes the database never took. PostgreSQL takes a hook's write at
// once or not at all (the server down or out of reach, the hook's time run
// out): nothing waits beside it to be applied later. Such a write must not be
// lost silently, so the hook records it on its own machine, without its
// content, where SQLite's spool records its lost writes (package spool); this
// machine's stats, doctor and next session's start tell of it.

// RecordLost records that a hook write of kind was lost, and why.
func (s *DB) RecordLost(kind, cause string) error {
	if s.lost == nil {
		return errors.New("no place to record lost writes: the store was opened without Options.SpoolDir")
	}
	return s.lost.RecordLost(kind, cause)
}

// LostRecords are the files recording hook writes that were kept nowhere.
func (s *DB) LostRecords() []string {
	if s.lost == nil {
		return nil
	}
	return s.lost.LostRecords()
}

// UnreportedLosses are the hook writes lost since the last
// MarkLossesReported.
func (s *DB) UnreportedLosses() (spool.Losses, error) {
	if s.lost == nil {
		return spool.Losses{}, nil
	}
	return s.lost.Unreported()
}

// MarkLossesReported records that the losses until at were told.
func (s *DB) MarkLossesReported(at time.Time) {
	if s.lost != nil {
		s.lost.MarkReported(at)
	}
}
