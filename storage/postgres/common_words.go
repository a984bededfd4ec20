package postgres

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// The words too common to count past the keyword search's window (see
// windowedKeywordSQL) come from the table's statistics (pg_stats), which
// PostgreSQL refreshes as autovacuum analyzes the table. Planning a read of
// pg_stats (a view over six catalogs) took longer than the rest of the
// search's statement, and longest on a new connection, where a fresh
// process (a hook, a CLI call) runs it: so the list is kept in meta, read
// by the search as one row, and refreshed from pg_stats in the background
// by a search that finds it older than commonWordsEvery.
const (
	metaCommonWords   = "common_words"    // the words, quoted as querytree prints them, space-separated
	metaCommonWordsAt = "common_words_at" // when, in seconds since 1970 (the server's clock)
	commonWordsEvery  = 10 * time.Minute
)

// commonWordsSQL is the statement's list of common words, one per row.
const commonWordsSQL = `SELECT unnest(string_to_array(value, ' ')) AS lexeme FROM meta WHERE key = '` + metaCommonWords + `'`

// commonWordsStaleSQL tells whether the list is missing or older than
// commonWordsEvery.
var commonWordsStaleSQL = `coalesce((SELECT value::bigint FROM meta WHERE key = '` + metaCommonWordsAt +
	`') < extract(epoch FROM now())::bigint - ` + strconv.Itoa(int(commonWordsEvery/time.Second)) + `, true)`

// refreshCommonWords records the words the table's statistics know to be in
// more than twice rareWordMatches memories. The frequencies end with three
// figures of no word (the least and the greatest frequency, and that of
// NULL), which are left out.
func (s *DB) refreshCommonWords(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO meta (key, value)
		SELECT $1, coalesce(string_agg('''' || f.lexeme || '''', ' '), '') FROM pg_stats s
			JOIN pg_class c ON c.oid = 'memories'::regclass,
			unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS f(lexeme, freq)
			WHERE s.schemaname = current_schema() AND s.tablename = 'memories' AND s.attname = 'search_words'
				AND f.lexeme IS NOT NULL AND f.freq * c.reltuples > 2 * $3
		UNION ALL SELECT $2, extract(epoch FROM now())::bigint::text
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, metaCommonWords, metaCommonWordsAt, rareWordMatches)
	return err
}

// commonWords refreshes the list in the background, one refresh at a time
// and at most one attempt a minute per process; Close waits for it.
type commonWords struct {
	mu      sync.Mutex
	tried   time.Time
	running sync.WaitGroup
}

func (s *DB) refreshCommonWordsLater() {
	c := &s.common
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.tried.IsZero() && time.Since(c.tried) < time.Minute {
		return
	}
	c.tried = time.Now()
	c.running.Add(1)
	go func() {
		defer c.running.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.refreshCommonWords(ctx); err != nil {
			s.log.Debug("the list of common words was not refreshed", "err", err)
		}
	}()
}
