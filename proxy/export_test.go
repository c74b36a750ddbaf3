package proxy

import (
	"context"
	"time"
)

// SetSleep replaces how the upstream clients wait between retries, so tests
// can record the waits instead of sleeping them.
func SetSleep(s *Server, sleep func(ctx context.Context, d time.Duration) error) {
	for _, u := range s.state.Load().upstreams {
		u.SetSleep(sleep)
	}
}
