package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/upstream"
)

// TestIdleTimeoutDuringRead: an upstream that falls silent mid-stream
// is given up after idle_timeout while the round's reader is blocked in
// Read, on either transport and whatever wraps the body (the TTFB
// observer's, the busy count's). The timer ends the round's context and
// never closes the body itself beside the Read (run with -race); the
// round fails as the idle timeout, and the connection is closed.
func TestIdleTimeoutDuringRead(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			st, srv := openSilent(t, tr.setup, 50*time.Millisecond)
			var got []string
			var streamErr error
			for data, err := range st.Events() {
				if err != nil {
					streamErr = err
					break
				}
				got = append(got, data)
			}
			st.Close()
			var se *loop.StreamError
			if len(got) != 1 || !errors.As(streamErr, &se) || !strings.Contains(se.Reason, "idle_timeout") {
				t.Errorf("got %q then %v, want one event then the idle timeout", got, streamErr)
			}
			wait(t, srv.clientClosed, "the client closing the connection")
		})
	}
}

// openSilent opens a round on a client set up by setup whose upstream
// sends one event and falls silent, given up after idle.
func openSilent(t *testing.T, setup func(*upstream.Client), idle time.Duration) (loop.Stream, *scriptServer) {
	t.Helper()
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
	srv := newScriptServer(t, answer(head+fmt.Sprintf("%x\r\n%s\r\n", len(event), event)))
	cfg := config.DefaultUpstreamEntry()
	cfg.Name, cfg.BaseURL = "up", "http://"+srv.addr+"/v1"
	cfg.IdleTimeout = idle
	c, err := upstream.New(cfg, upstream.Options{TTFB: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ttfb"})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	setup(c)
	st, err := c.Open(context.Background(), []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	return st, srv
}
