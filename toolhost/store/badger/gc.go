package badger

import (
	"errors"
	"fmt"
	"time"

	dgbadger "github.com/dgraph-io/badger/v4"
)

// DefaultGCInterval is how often value-log GC runs when
// [Options.GCInterval] is zero.
const DefaultGCInterval = 5 * time.Minute

// gcDiscardRatio rewrites a value-log file when half of it is garbage
// (badger's recommendation: a lifetime write amplification of 2).
const gcDiscardRatio = 0.5

// gcLoop runs a value-log GC pass every interval until Close. badger
// leaves value-log GC to its user; without it, the space of expired and
// replaced turn records never comes back.
func (d *DB) gcLoop(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-d.stopGC:
			return
		case <-t.C:
			if _, err := d.gcPass(); err != nil {
				d.log.Warn("value-log gc", "component", "storage", "error", err)
			}
		}
	}
}

// gcPass rewrites value-log files while badger finds one worth rewriting,
// and returns how many it rewrote. A pass ends without error on
// [dgbadger.ErrNoRewrite] (nothing left to reclaim) and on
// [dgbadger.ErrRejected] (a GC already running, or the database closing);
// it also ends when Close begins.
func (d *DB) gcPass() (int, error) {
	for n := 0; ; n++ {
		select {
		case <-d.stopGC:
			return n, nil
		default:
		}
		// A rewrite copies a file's live values into the current value
		// log before it frees the file: up to a whole file, written
		// through a mapping like every other write (space.go).
		if err := d.room(valueLogFileSize); err != nil {
			return n, fmt.Errorf("skipped: %w", err)
		}
		err := d.db.RunValueLogGC(gcDiscardRatio)
		switch {
		case err == nil:
			continue
		case errors.Is(err, dgbadger.ErrNoRewrite), errors.Is(err, dgbadger.ErrRejected):
			return n, nil
		default:
			return n, err
		}
	}
}
