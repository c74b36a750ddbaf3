package mcp

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
)

// TestStatelessChecks: a server of the stateless revision, which has no
// ping, is checked with server/discover while its tool list is fresh by
// its ttlMs, and by listing its tools again once it is not; it stays up
// throughout, and a server that stops answering goes down and comes back.
func TestStatelessChecks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ttlMs int64
		// relists: whether the checks list the tools again.
		relists bool
	}{
		{"fresh for an hour", 3_600_000, false},
		{"fresh for 200ms", 200, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := newHTTPServerIn(t, statelessRevision)
			hs.ttl.Store(tc.ttlMs)
			f := newFixture(t)
			f.m.watchEvery = 40 * time.Millisecond
			f.m.Apply([]config.MCPServer{{Name: "web", URL: hs.url, Tools: []string{"echo"}}}, time.Minute)
			f.waitUp(t, "web", 1)
			waitFor(t, "checks by server/discover", func() bool { return hs.requests("server/discover") >= 4 })
			if tc.relists {
				waitFor(t, "the stale list listed again", func() bool { return hs.requests("tools/list") >= 3 })
			}
			if n := hs.requests("tools/list"); !tc.relists && n != 1 {
				t.Errorf("a list fresh for an hour was listed %d times", n)
			}
			if n := hs.requests("ping"); n != 0 {
				t.Errorf("%d pings sent to a server whose revision has none", n)
			}
			if s, _ := f.state("web"); s.Status != StatusUp {
				t.Fatalf("state %+v after the checks", s)
			}

			hs.down.Store(true)
			waitFor(t, "down", func() bool { s, _ := f.state("web"); return s.Status == StatusDown })
			if s, _ := f.state("web"); s.Error == "" {
				t.Errorf("down without a reason: %+v", s)
			}
			hs.down.Store(false)
			f.waitUp(t, "web", 1)
		})
	}
}
