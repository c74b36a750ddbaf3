// Package leftout logs what a turn route left out of a request: a tool
// type, an input item or a block the proxy cannot honour, which is
// dropped from the round rather than refused (a stock coding agent sends
// new kinds with every release). One info line per route, key and kind
// per period (an hour) is enough to tell an operator, and a busy agent
// that sends the same tool on every request does not flood the log.
package leftout

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Period is how long a route, key and kind stay quiet after their line.
const Period = time.Hour

// maxSeen bounds the kinds remembered; past it, those whose period is over
// are forgotten (a key that sends ever new kinds cannot grow the map
// without end).
const maxSeen = 4096

// Logger writes the left-out lines. Its zero value is not usable: make it
// with [New]. It is safe for concurrent use.
type Logger struct {
	log *slog.Logger
	now func() time.Time

	mu   sync.Mutex
	seen map[seenKey]time.Time
}

type seenKey struct{ route, key, kind string }

// New returns a Logger writing to log, timed by now (time.Now when nil).
func New(log *slog.Logger, now func() time.Time) *Logger {
	if now == nil {
		now = time.Now
	}
	return &Logger{log: log, now: now, seen: map[seenKey]time.Time{}}
}

// Note logs each of kinds left out of a request on route by key (its
// name; empty without keys), unless the same route, key and kind was
// logged less than [Period] ago.
func (l *Logger) Note(ctx context.Context, route, key string, kinds []string) {
	if l == nil || len(kinds) == 0 {
		return
	}
	now := l.now()
	for _, kind := range kinds {
		if !l.due(seenKey{route, key, kind}, now) {
			continue
		}
		l.log.LogAttrs(ctx, slog.LevelInfo, "left out of the request",
			slog.String("route", route), slog.String("key", key), slog.String("left_out", kind))
	}
}

// NoteWhy logs kind as Note does, with why it was left out: for what is
// left out for a reason of the config (a hosted tool that hosted_tools
// does not bind) rather than for what the proxy cannot do.
func (l *Logger) NoteWhy(ctx context.Context, route, key, kind, why string) {
	if l == nil || !l.due(seenKey{route, key, kind}, l.now()) {
		return
	}
	l.log.LogAttrs(ctx, slog.LevelInfo, "left out of the request",
		slog.String("route", route), slog.String("key", key), slog.String("left_out", kind), slog.String("why", why))
}

// due reports whether k's line is due at now, and if so marks it written.
func (l *Logger) due(k seenKey, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if last, ok := l.seen[k]; ok && now.Sub(last) < Period {
		return false
	}
	if len(l.seen) >= maxSeen {
		for sk, t := range l.seen {
			if now.Sub(t) >= Period {
				delete(l.seen, sk)
			}
		}
	}
	l.seen[k] = now
	return true
}
