package loop_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
)

// stepper reports progress 1..5 of 5, 30ms apart, then answers.
type stepper struct{ last *toolhost.Call }

func (s stepper) Execute(_ context.Context, c toolhost.Call) (toolhost.Result, error) {
	if s.last != nil {
		*s.last = c
	}
	for i := 1; i <= 5; i++ {
		if i > 1 {
			time.Sleep(30 * time.Millisecond)
		}
		toolhost.ReportProgress(c, toolhost.ProgressUpdate{Progress: float64(i), Total: 5, Message: "step"})
	}
	return toolhost.Result{CallID: c.ID, Name: c.Name, Content: `{"ok":true}`, IsJSON: true, Status: toolhost.StatusOK}, nil
}

// chunkSink takes chat chunks and keeps the turn's events and content —
// those in the chunks and those the turn hands on itself — and counts
// keepalives.
type chunkSink struct {
	loop.Ignore
	mu         sync.Mutex
	events     []string
	content    strings.Builder
	keepalives int
}

func (s *chunkSink) Takes() loop.Takes { return loop.Takes{Chunks: true} }

func (s *chunkSink) Raw(b []byte) error {
	var c struct {
		Choices []struct {
			Delta struct {
				Content string `json:"content"`
			} `json:"delta"`
		} `json:"choices"`
		Toolstream json.RawMessage `json:"toolstream"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.Toolstream != nil {
		s.events = append(s.events, string(c.Toolstream))
	}
	if len(c.Choices) > 0 {
		s.content.WriteString(c.Choices[0].Delta.Content)
	}
	return nil
}
func (s *chunkSink) Text(t string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.content.WriteString(t)
	return nil
}
func (s *chunkSink) Event(ev *loop.Event) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, string(b))
	return nil
}
func (s *chunkSink) Keepalive() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keepalives++
	return nil
}
func (s *chunkSink) Done() error { return nil }

func progressTurn(t *testing.T, display string) *loop.Turn {
	t.Helper()
	req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	lc := config.Default().Loop
	lc.Keepalive = 0
	lc.Display = display
	return &loop.Turn{Request: req, UpstreamName: "mem", Format: "hermes",
		Upstream: &scripted{mark: -1, rounds: [][]string{
			{chunk(`{"role":"assistant","content":"Working. "}`, ""), hermesCall("build"), chunk(`{}`, "stop"), "[DONE]"},
			{chunk(`{"role":"assistant","content":"Built."}`, ""), chunk(`{}`, "stop"), "[DONE]"}}},
		Tools: []toolhost.Tool{{Name: "build"}}, Executor: stepper{}, Loop: lc, Mode: config.ToolModeText}
}

// TestToolProgress: a call's progress reaches a chat client as
// tool.progress events between its tool.started and tool.finished, at most
// one per 100ms — updates that come sooner fold into the next — and the
// last update always shows before tool.finished; one reported after the
// call ended is dropped.
func TestToolProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := &chunkSink{}
		runner := &loop.Runner{NewID: func(p string) string { return p + "1" }}
		var last toolhost.Call
		turn := progressTurn(t, config.DisplayEvents)
		turn.Executor = stepper{last: &last}
		if _, err := runner.Run(context.Background(), turn, out); err != nil {
			t.Fatal(err)
		}
		// A notification that arrives after the call ended is dropped.
		toolhost.ReportProgress(last, toolhost.ProgressUpdate{Progress: 99})
		time.Sleep(time.Second)
		var got []string
		for _, e := range out.events {
			var ev struct {
				Event    string   `json:"event"`
				Progress *float64 `json:"progress"`
			}
			json.Unmarshal([]byte(e), &ev)
			if ev.Progress != nil {
				got = append(got, ev.Event+" "+jsonNum(*ev.Progress))
			} else {
				got = append(got, ev.Event)
			}
		}
		// 1 at 0ms; 2, 3, 4 at 30..90ms fold into the event at 100ms;
		// 5 at 120ms shows before tool.finished.
		want := []string{"tool.started", "tool.progress 1", "tool.progress 4", "tool.progress 5", "tool.finished", "round.started"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("events (-want +got):\n%s\nall: %s", diff, strings.Join(out.events, "\n"))
		}
		const first = `{"event":"tool.progress","call_id":"call_1","name":"build","round":1,"progress":1,"total":5,"message":"step"}`
		if len(out.events) < 2 || out.events[1] != first {
			t.Errorf("first progress event = %s, want %s", out.events[1], first)
		}
	})
}

func jsonNum(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// TestToolProgressHidden: with display markdown or none, progress shows
// nothing.
func TestToolProgressHidden(t *testing.T) {
	for _, display := range []string{config.DisplayMarkdown, config.DisplayNone} {
		t.Run(display, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				out := &chunkSink{}
				if _, err := (&loop.Runner{}).Run(context.Background(), progressTurn(t, display), out); err != nil {
					t.Fatal(err)
				}
				if len(out.events) > 0 || strings.Contains(out.content.String(), "progress") {
					t.Errorf("events %v, content %q", out.events, out.content.String())
				}
			})
		})
	}
}

// slowStepper reports progress every 200ms for 3s.
type slowStepper struct{}

func (slowStepper) Execute(_ context.Context, c toolhost.Call) (toolhost.Result, error) {
	for i := 1; i <= 15; i++ {
		time.Sleep(200 * time.Millisecond)
		toolhost.ReportProgress(c, toolhost.ProgressUpdate{Progress: float64(i)})
	}
	return toolhost.Result{CallID: c.ID, Name: c.Name, Content: "done", Status: toolhost.StatusOK}, nil
}

// TestToolProgressKeepsAlive: progress keeps the stream alive as a
// keepalive does, so a call that reports progress more often than
// loop.keepalive gets no keepalive comments; one that reports nothing
// does.
func TestToolProgressKeepsAlive(t *testing.T) {
	for _, tt := range []struct {
		name       string
		exec       loop.Executor
		keepalives bool
	}{{"progress", slowStepper{}, false}, {"silent", sleeper{3 * time.Second}, true}} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				turn := progressTurn(t, config.DisplayEvents)
				turn.Loop.Keepalive = time.Second
				turn.Executor = tt.exec
				out := &chunkSink{}
				if _, err := (&loop.Runner{}).Run(context.Background(), turn, out); err != nil {
					t.Fatal(err)
				}
				if got := out.keepalives > 0; got != tt.keepalives {
					t.Errorf("%d keepalives, want some: %v", out.keepalives, tt.keepalives)
				}
			})
		})
	}
}

// sleeper answers after d, reporting nothing.
type sleeper struct{ d time.Duration }

func (s sleeper) Execute(_ context.Context, c toolhost.Call) (toolhost.Result, error) {
	time.Sleep(s.d)
	return toolhost.Result{CallID: c.ID, Name: c.Name, Content: "done", Status: toolhost.StatusOK}, nil
}

// TestToolProgressPerCall: parallel calls are throttled each on its own:
// both show their first, folded and last updates.
func TestToolProgressPerCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		turn := progressTurn(t, config.DisplayEvents)
		turn.Loop.ParallelTools = true
		turn.Upstream = &scripted{mark: -1, rounds: [][]string{
			{chunk(`{"role":"assistant","content":"Working. "}`, ""), hermesCall("build"), hermesCall("build"), chunk(`{}`, "stop"), "[DONE]"},
			{chunk(`{"role":"assistant","content":"Built."}`, ""), chunk(`{}`, "stop"), "[DONE]"}}}
		n := 0
		runner := &loop.Runner{NewID: func(p string) string { n++; return p + strconv.Itoa(n) }}
		out := &chunkSink{}
		if _, err := runner.Run(context.Background(), turn, out); err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		for _, e := range out.events {
			var ev struct {
				Event    string   `json:"event"`
				CallID   string   `json:"call_id"`
				Progress *float64 `json:"progress"`
			}
			json.Unmarshal([]byte(e), &ev)
			if ev.CallID == "" {
				continue
			}
			s := ev.Event
			if ev.Progress != nil {
				s += " " + jsonNum(*ev.Progress)
			}
			got[ev.CallID] = append(got[ev.CallID], s)
		}
		if len(got) != 2 {
			t.Fatalf("events of %d calls, want 2:\n%s", len(got), strings.Join(out.events, "\n"))
		}
		want := []string{"tool.started", "tool.progress 1", "tool.progress 4", "tool.progress 5", "tool.finished"}
		for id, evs := range got {
			if diff := cmp.Diff(want, evs); diff != "" {
				t.Errorf("call %s events (-want +got):\n%s", id, diff)
			}
		}
	})
}
