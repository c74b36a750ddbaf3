package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

const (
	faultClientKey = "sk-fault-client"
	faultAdminKey  = "sk-fault-admin"
)

// faultEnv is a proxy in front of the scripted upstream, with its log
// captured, retry waits recorded (not slept) and, with tools, a webhook
// tool whose calls go to an audit log in an in-memory store.
type faultEnv struct {
	*turnEnv
	log   *syncBuffer
	waits func() []time.Duration
	// served is set when a serve handler's request was cancelled by the
	// proxy.
	served atomic.Bool
}

func newFaultEnv(t *testing.T, tools bool, rounds []upstreamtest.Round, mutate func(*config.Config)) *faultEnv {
	t.Helper()
	yaml := `auth:
  keys: ["` + faultClientKey + `"]
  admin_keys: ["` + faultAdminKey + `"]
loop:
  keepalive: 0s
upstreams:
  - name: up
    base_url: ${UPSTREAM}
    api_key: upstream-key
    models: ["*"]
    tool_mode: text
    text_format: hermes
    timeout: 5s
`
	if tools {
		yaml += `tools:
  - name: t
    webhook: {url: "${WEBHOOK}/t"}
`
	}
	p := newParts(t, yaml, rounds)
	if mutate != nil {
		mutate(p.cfg)
	}
	dbBackend, err := badger.Open(config.Storage{InMemory: true}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := store.Checked(dbBackend)
	t.Cleanup(func() { db.Close() })
	log := &syncBuffer{}
	opts := proxy.Options{
		Logger:  slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Records: db,
	}
	if tools {
		opts.Tools = p.host(t, toolhost.Options{Records: db, Instance: "inst_test"})
	}
	fe := &faultEnv{turnEnv: p.serve(t, opts), log: log}
	fe.waits = recordSleeps(fe.env)
	return fe
}

// watch wraps a handler standing in for the upstream, noting when the
// proxy hung up on it.
func (fe *faultEnv) watch(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h(w, r)
		if r.Context().Err() != nil {
			fe.served.Store(true)
		}
	}
}

// hungUp reports whether the proxy cancelled a request the upstream was
// still answering, waiting a little for it to happen.
func (fe *faultEnv) hungUp() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for !fe.served.Load() {
		select {
		case <-fe.up.Cancelled():
			return true
		case <-ctx.Done():
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
	return true
}

// auditStatuses returns the status of each row of the audit log, oldest
// first.
func (fe *faultEnv) auditStatuses(t *testing.T) []string {
	t.Helper()
	code, out := fe.jsonDo(t, http.MethodGet, "/admin/calls", "", faultAdminKey)
	if code != http.StatusOK {
		t.Fatalf("GET /admin/calls: %d %v", code, out)
	}
	data, _ := out["data"].([]any)
	var st []string
	for i := len(data) - 1; i >= 0; i-- {
		row, _ := data[i].(map[string]any)
		s, _ := row["status"].(string)
		st = append(st, s)
	}
	return st
}

// clientStream is what a client makes of an SSE body, read the way the
// specification says: data lines joined with "\n", comments apart.
type clientStream struct {
	data     []string // every event's data but [DONE]
	comments int
	content  string // delta.content joined
	finish   string // the last finish_reason seen
	done     bool   // [DONE] came
}

func readClientStream(t *testing.T, body string) clientStream {
	t.Helper()
	var cs clientStream
	for block := range strings.SplitSeq(body, "\n\n") {
		var data []string
		for line := range strings.SplitSeq(block, "\n") {
			switch {
			case strings.HasPrefix(line, ":"):
				cs.comments++
			case strings.HasPrefix(line, "data:"):
				data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			}
		}
		if data == nil {
			continue
		}
		d := strings.Join(data, "\n")
		if d == "[DONE]" {
			cs.done = true
			continue
		}
		if cs.done {
			t.Errorf("an event after [DONE]: %s", d)
		}
		cs.data = append(cs.data, d)
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Errorf("the client read an event that is not JSON: %v\n%s", err, clipped(d))
			continue
		}
		for _, ch := range c.Choices {
			cs.content += ch.Delta.Content
			if ch.FinishReason != nil {
				cs.finish = *ch.FinishReason
			}
		}
	}
	return cs
}

// syncBuffer is a bytes.Buffer safe for the proxy's goroutines to log to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
