package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
)

// refusing fails every round it is asked for with err, and counts them.
type refusing struct {
	err error
	n   int
}

func (u *refusing) Open(context.Context, []byte) (loop.Stream, error) {
	u.n++
	return nil, u.err
}

// recording is rounds that keeps the bodies it was sent.
type recording struct {
	rounds
	bodies []string
}

func (u *recording) Open(ctx context.Context, body []byte) (loop.Stream, error) {
	u.bodies = append(u.bodies, string(body))
	return u.rounds.Open(ctx, body)
}

// unsent is an error saying whether the request was written.
type unsent bool

func (u unsent) Error() string   { return "connection refused" }
func (u unsent) Unstarted() bool { return bool(u) }

// chunks records what a turn sends: chunks, and its own text and events.
type chunks struct {
	loop.Ignore
	sent []string
}

func (c *chunks) Takes() loop.Takes { return loop.Takes{Chunks: true} }

func (c *chunks) Raw(b []byte) error  { c.sent = append(c.sent, string(b)); return nil }
func (c *chunks) Done() error         { c.sent = append(c.sent, "[DONE]"); return nil }
func (c *chunks) Text(t string) error { c.sent = append(c.sent, "text "+t); return nil }
func (c *chunks) Event(ev *loop.Event) error {
	b, err := json.Marshal(ev)
	c.sent = append(c.sent, "event "+string(b))
	return err
}
func (c *chunks) all() string { return strings.Join(c.sent, "\n") }

// TestUpstreamFallback: a round its upstream cannot start — nothing
// written, or 429/5xx before any body — goes to the fallback, in the
// fallback's own tool mode and model, and the rounds after stay there;
// any other failure is the turn's.
func TestUpstreamFallback(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		moves bool
	}{
		{"nothing written", unsent(true), true},
		{"503 before any body", &loop.UpstreamError{Upstream: "gpu", Status: 503}, true},
		{"529 overloaded", &loop.UpstreamError{Upstream: "gpu", Status: 529}, true},
		{"written, then cut", unsent(false), false},
		{"400", &loop.UpstreamError{Upstream: "gpu", Status: 400, Body: []byte(`{"error":{"message":"bad"}}`)}, false},
		{"an error that says nothing", errors.New("broken"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lc := config.Default().Loop
			lc.Keepalive = 0
			primary := &refusing{err: tt.err}
			backup := &recording{rounds: rounds{events: [][]string{
				{chunk(`{"role":"assistant","content":""}`, ""), hermesCall("good"), chunk(`{}`, "stop"), "[DONE]"},
				{chunk(`{"role":"assistant","content":"Done."}`, ""), chunk(`{}`, "stop"), "[DONE]"},
			}}}
			req, err := loop.ParseRequest([]byte(`{"model":"fast","stream":true,"messages":[{"role":"user","content":"go"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Rename("qwen3:8b") // the primary's alias
			turn := &loop.Turn{Request: req, Upstream: primary, UpstreamName: "gpu", Mode: config.ToolModeNative,
				Tools: []toolhost.Tool{{Name: "good"}}, Executor: verdicts{}, Loop: lc,
				Fallbacks: []loop.Fallback{{Upstream: backup, Name: "backup", Mode: config.ToolModeText, Format: "hermes", Model: "fast"}}}
			out := &chunks{}
			rep, err := (&loop.Runner{}).Run(context.Background(), turn, out)
			if !tt.moves {
				if err == nil || len(backup.bodies) != 0 || primary.n != 1 {
					t.Fatalf("error %v, fallback asked %d times, primary %d: the round must not move", err, len(backup.bodies), primary.n)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, out.all())
			}
			if primary.n != 1 || len(backup.bodies) != 2 {
				t.Fatalf("primary asked %d times, fallback %d; want 1 and both rounds", primary.n, len(backup.bodies))
			}
			if rep.Upstream != "backup" {
				t.Errorf("Report.Upstream %q", rep.Upstream)
			}
			for _, b := range backup.bodies {
				// Text mode: the tools are taught in the prompt, not sent.
				if !strings.Contains(b, `"model":"fast"`) || strings.Contains(b, `"tools"`) || !strings.Contains(b, "How to call a tool") {
					t.Errorf("the fallback was sent %s", b)
				}
			}
			all := out.all()
			if !strings.Contains(all, `"event":"upstream.fallback","round":1,"from":"gpu","to":"backup"`) || !strings.Contains(all, "Done.") {
				t.Errorf("the client read:\n%s", all)
			}
			if strings.Count(all, `"event":"upstream.fallback"`) != 1 {
				t.Errorf("the fallback was told more than once:\n%s", all)
			}
		})
	}
}
