// Package backend opens the storage backend that storage.backend names and
// readies it for one process: it mints the process's instance id and
// resolves what an earlier process left behind. It is the wiring's one
// door to storage, so cmd and the demo hold no storage logic.
package backend

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"strings"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
	"github.com/toolstream/toolstream/toolhost/store/postgres"
)

// Options configure [Open]. The zero value is ready to use.
type Options struct {
	// Logger receives the start-up line and the backend's own warnings.
	// Nil discards.
	Logger *slog.Logger
}

// Open opens the backend cfg.Backend names (badger when empty) behind
// [store.Checked], mints this process's instance id ([NewInstance]) and
// calls [store.Lifecycle.Recover] with it once, logging what it resolved. The caller owns the store and
// closes it last; the instance id goes on every call record and action
// this process writes.
func Open(ctx context.Context, cfg config.Storage, opts Options) (store.Store, string, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var (
		b   store.Backend
		err error
	)
	switch cfg.Backend {
	case config.BackendBadger, "":
		b, err = badger.Open(cfg, badger.Options{Logger: log})
	case config.BackendPostgres:
		b, err = postgres.Open(ctx, cfg, postgres.Options{Logger: log})
	default:
		err = fmt.Errorf("storage.backend %q is unknown (want badger or postgres)", cfg.Backend)
	}
	if err != nil {
		return nil, "", err
	}
	s := store.Checked(b)

	instance := NewInstance()
	rec, err := s.Recover(ctx, instance)
	if err != nil {
		s.Close()
		return nil, "", err
	}
	name := cmp.Or(cfg.Backend, config.BackendBadger)
	if name == config.BackendPostgres {
		// The DSN may hold a password: it is never logged.
		log.Info("storage open", "backend", name, "max_conns", cfg.Postgres.MaxConns, "instance", instance)
	} else {
		log.Info("storage open", "backend", name, "in_memory", cfg.InMemory, "instance", instance)
	}
	if rec.Calls > 0 || rec.CallsExpired > 0 || rec.Actions > 0 {
		// An earlier process stopped without finishing these: its calls
		// may or may not have acted, and its approvals can no longer
		// release anything (the calls that waited for them never ran).
		log.Warn("storage recovered what an earlier process left",
			"calls_outcome_unknown", rec.Calls, "calls_expired", rec.CallsExpired, "actions_expired", rec.Actions)
	}
	return s, instance, nil
}

// NewInstance returns a new random instance id: "inst_" and 16 lower-case
// letters and digits (80 bits).
func NewInstance() string {
	return "inst_" + strings.ToLower(rand.Text()[:16])
}
