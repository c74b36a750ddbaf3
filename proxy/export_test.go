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

// SetLiveKeepalive sets how often GET /admin/live's quiet streams get a
// comment, so a test need not wait the 15 seconds.
func SetLiveKeepalive(s *Server, d time.Duration) { s.liveKeepalive = d }

// DetachedStreams is how many streams took their connection from
// net/http so far (detach.go), in this process.
func DetachedStreams() int64 { return detachedTotal.Load() }
