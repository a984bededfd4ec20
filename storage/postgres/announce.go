package postgres

import (
	"context"
	"sync"
)

// notifyChannel is where the store announces changes to memories, edges
// and the journal, for the viewers of every server (see watch.go).
const notifyChannel = "recall_changes"

// announcer tells the database's listeners that memories or edges changed,
// after the change committed and outside its transaction: a NOTIFY inside a
// transaction holds a lock that every notifying commit of the database waits
// on through its flush to disk, so writers of all servers would take turns.
// Announcements of one process are coalesced: while one is on its way, the
// changes made meanwhile are announced by one more, sent in the background.
type announcer struct {
	mu      sync.Mutex
	busy    bool // an announcement is on its way
	pending bool // a change committed since it was sent
	drains  sync.WaitGroup
}

// changed announces a committed change to memories or edges. The first
// writer of a quiet moment sends the announcement itself (a short-lived
// process has sent it when its write returns); the others leave it to the
// one on its way.
func (s *DB) changed(ctx context.Context) {
	a := &s.announce
	a.mu.Lock()
	if a.busy {
		a.pending = true
		a.mu.Unlock()
		return
	}
	a.busy = true
	a.mu.Unlock()
	s.notify(context.WithoutCancel(ctx))
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.pending {
		a.busy = false
		return
	}
	a.pending = false
	a.drains.Go(func() { s.drain() })
}

// drain announces until no change is pending.
func (s *DB) drain() {
	a := &s.announce
	for {
		s.notify(context.Background())
		a.mu.Lock()
		if !a.pending {
			a.busy = false
			a.mu.Unlock()
			return
		}
		a.pending = false
		a.mu.Unlock()
	}
}

// notify sends one announcement. It commits without waiting for the disk: an
// announcement lost in a crash loses nothing (the listeners read the tables).
// Best effort: a viewer missing one catches up at the next.
func (s *DB) notify(ctx context.Context) {
	if _, err := s.pool.Exec(ctx, `SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, '')`, notifyChannel); err != nil {
		s.log.Debug("change not announced", "err", err)
	}
}
