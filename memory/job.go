package memory

import "time"

// Job is work recorded in the store to run off the request path (curation of
// a stored memory, a session's summary). The job runner (package jobs) claims
// and runs it; a store keeps it, so a store needs no runner to hold one.
type Job struct {
	ID        int64     `json:"id"`
	Kind      string    `json:"kind"`
	Subject   string    `json:"subject"`  // a memory id (relate), a session id (summary)
	Attempts  int       `json:"attempts"` // claims so far, the current one included
	LastError string    `json:"last_error,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}
