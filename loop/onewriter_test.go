package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// goid is the calling goroutine's id, read from its stack's first line.
func goid() string {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	return string(b[:bytes.IndexByte(b, ' ')])
}

// ownerSink passes every write on to a chunkSink and counts those made
// outside the goroutine that runs the turn (owner), and those made after
// the turn returned.
type ownerSink struct {
	*chunkSink
	mu            sync.Mutex
	owner         string
	stray, writes int
	returned      bool
	late          int
}

func (s *ownerSink) note() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	if goid() != s.owner {
		s.stray++
	}
	if s.returned {
		s.late++
	}
}

// Every method of loop.Out that can write to the client notes its
// goroutine.
func (s *ownerSink) Raw(b []byte) error                  { s.note(); return s.chunkSink.Raw(b) }
func (s *ownerSink) Text(t string) error                 { s.note(); return s.chunkSink.Text(t) }
func (s *ownerSink) Reasoning(t string) error            { s.note(); return s.chunkSink.Reasoning(t) }
func (s *ownerSink) ToolCall(f loop.ToolCallDelta) error { s.note(); return s.chunkSink.ToolCall(f) }
func (s *ownerSink) Event(ev *loop.Event) error          { s.note(); return s.chunkSink.Event(ev) }
func (s *ownerSink) StopSequence(x string) error         { s.note(); return s.chunkSink.StopSequence(x) }
func (s *ownerSink) Finish(r string) error               { s.note(); return s.chunkSink.Finish(r) }
func (s *ownerSink) Usage(u json.RawMessage) error       { s.note(); return s.chunkSink.Usage(u) }
func (s *ownerSink) Keepalive() error                    { s.note(); return s.chunkSink.Keepalive() }
func (s *ownerSink) Hold(on bool) error                  { s.note(); return s.chunkSink.Hold(on) }
func (s *ownerSink) Flush() error                        { s.note(); return s.chunkSink.Flush() }
func (s *ownerSink) Done() error                         { s.note(); return s.chunkSink.Done() }

// run runs turn on a goroutine of its own, which owns out; done gets
// Run's error.
func (s *ownerSink) run(turn *loop.Turn) <-chan error {
	done := make(chan error, 1)
	go func() {
		s.mu.Lock()
		s.owner = goid()
		s.mu.Unlock()
		_, err := (&loop.Runner{NewID: func(p string) string { return p + "1" }}).Run(context.Background(), turn, s)
		s.mu.Lock()
		s.returned = true
		s.mu.Unlock()
		done <- err
	}()
	return done
}

func (s *ownerSink) counts() (stray, late, keepalives int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chunkSink.mu.Lock()
	defer s.chunkSink.mu.Unlock()
	return s.stray, s.late, s.chunkSink.keepalives
}

// gatedUpstream answers each round with the next of its streams, the
// rounds after the first after openDelay.
type gatedUpstream struct {
	streams   []*gatedStream
	n         int
	openDelay time.Duration
}

func (u *gatedUpstream) Open(context.Context, []byte) (loop.Stream, error) {
	if u.n > 0 {
		time.Sleep(u.openDelay)
	}
	s := u.streams[u.n]
	u.n++
	return s, nil
}

// gatedStream sends head, then waits as proxy/upstream's stream does —
// wait runs before each wait, and again after an interruption — until
// gate is closed (nil: no wait), then sends tail.
type gatedStream struct {
	head, tail []string
	gate       chan struct{}
	interrupt  chan struct{}
	wait       func()
}

func newGated(gate chan struct{}, head, tail []string) *gatedStream {
	return &gatedStream{head: head, tail: tail, gate: gate, interrupt: make(chan struct{}, 1)}
}

func (s *gatedStream) Events() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for _, ev := range s.head {
			if !yield(ev, nil) {
				return
			}
		}
	wait:
		for s.gate != nil {
			if s.wait != nil {
				s.wait()
			}
			select {
			case <-s.gate:
				break wait
			case <-s.interrupt:
			}
		}
		for _, ev := range s.tail {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func (s *gatedStream) Close() error       { return nil }
func (s *gatedStream) OnWait(wait func()) { s.wait = wait }
func (s *gatedStream) Interrupt() {
	select {
	case s.interrupt <- struct{}{}:
	default:
	}
}

// gatedTurn is a text-mode turn with one tool, build, against streams,
// with keepalives every k.
func gatedTurn(t *testing.T, k time.Duration, exec loop.Executor, streams ...*gatedStream) *loop.Turn {
	t.Helper()
	req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	lc := config.Default().Loop
	lc.Keepalive = k
	lc.Display = config.DisplayEvents
	return &loop.Turn{Request: req, UpstreamName: "mem", Format: "hermes", Upstream: &gatedUpstream{streams: streams},
		Tools: []toolhost.Tool{{Name: "build"}}, Executor: exec, Loop: lc, Mode: config.ToolModeText}
}

var stop = []string{chunk(`{}`, "stop"), "[DONE]"}

// TestKeepaliveDuringBlockedRead: while the round's read waits on a
// silent upstream, the keepalive timer interrupts it and the turn's own
// goroutine writes ": keepalive" — every loop.keepalive in which nothing
// was written, none in the first, which carried text — and reads on.
func TestKeepaliveDuringBlockedRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		out := &ownerSink{chunkSink: &chunkSink{}}
		done := out.run(gatedTurn(t, 15*time.Second, nil, newGated(gate, []string{chunk(`{"role":"assistant","content":"Hi"}`, "")}, stop)))
		time.Sleep(46 * time.Second)
		synctest.Wait()
		if _, _, n := out.counts(); n != 2 {
			t.Errorf("%d keepalives at 46s, want 2 (at 30s and 45s)", n)
		}
		close(gate)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if stray, _, _ := out.counts(); stray > 0 {
			t.Errorf("%d writes outside the turn's goroutine", stray)
		}
		if got := out.content.String(); got != "Hi" {
			t.Errorf("content %q", got)
		}
	})
}

// TestTurnEndsWithTimerDue: a turn whose upstream ends just as a
// keepalive is due writes nothing once Run returned, and leaves no
// goroutine behind (synctest.Test fails on one still blocked).
func TestTurnEndsWithTimerDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		time.AfterFunc(15*time.Second, func() { close(gate) })
		out := &ownerSink{chunkSink: &chunkSink{}}
		done := out.run(gatedTurn(t, 15*time.Second, nil, newGated(gate, []string{chunk(`{"role":"assistant","content":"Hi"}`, "")}, stop)))
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if stray, late, _ := out.counts(); stray > 0 || late > 0 {
			t.Errorf("%d writes outside the turn's goroutine, %d after Run returned", stray, late)
		}
	})
}

// asker asks for approval, waits 35s for the person, and answers.
type asker struct{}

func (asker) Execute(_ context.Context, c toolhost.Call) (toolhost.Result, error) {
	a := store.Action{ID: "act_1", Status: store.ActionPending, ExpiresAt: time.Unix(0, 0).UTC()}
	c.Progress.ApprovalRequested(c, a)
	time.Sleep(35 * time.Second)
	a.Status = store.ActionApproved
	c.Progress.ApprovalResolved(c, a)
	return toolhost.Result{CallID: c.ID, Name: c.Name, Content: "done", Status: toolhost.StatusOK}, nil
}

// TestApprovalWait: a call's approval events, posted from its goroutine,
// are written by the turn's, in order and before the call's
// tool.finished; the turn keeps the stream alive while the person
// decides.
func TestApprovalWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := &ownerSink{chunkSink: &chunkSink{}}
		turn := gatedTurn(t, 10*time.Second, asker{},
			newGated(nil, []string{chunk(`{"role":"assistant","content":"Building. "}`, ""), hermesCall("build")}, stop),
			newGated(nil, []string{chunk(`{"role":"assistant","content":"Built."}`, "")}, stop))
		if err := <-out.run(turn); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range out.events {
			var ev struct {
				Event string `json:"event"`
			}
			json.Unmarshal([]byte(e), &ev)
			got = append(got, ev.Event)
		}
		want := []string{"tool.started", "approval.requested", "approval.resolved", "tool.finished", "round.started"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		if stray, _, n := out.counts(); stray > 0 || n != 2 {
			t.Errorf("%d writes outside the turn's goroutine; %d keepalives in a 35s wait, want 2 (at 20s and 30s)", stray, n)
		}
	})
}

// TestProgressOneWriter: progress reported from a call's goroutine is
// written by the turn's.
func TestProgressOneWriter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := &ownerSink{chunkSink: &chunkSink{}}
		turn := progressTurn(t, config.DisplayEvents)
		turn.Loop.Keepalive = 50 * time.Millisecond
		if err := <-out.run(turn); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range out.events {
			if bytes.Contains([]byte(e), []byte("tool.progress")) {
				n++
			}
		}
		if stray, _, _ := out.counts(); stray > 0 || n != 3 {
			t.Errorf("%d writes outside the turn's goroutine, %d progress events (want 3)", stray, n)
		}
	})
}

// TestKeepaliveWhileOpening: while a round waits for the upstream's
// answer to start, the turn's goroutine writes the keepalives.
func TestKeepaliveWhileOpening(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := &ownerSink{chunkSink: &chunkSink{}}
		turn := gatedTurn(t, 15*time.Second, verdicts{},
			newGated(nil, []string{chunk(`{"role":"assistant","content":"Building. "}`, ""), hermesCall("build")}, stop),
			newGated(nil, []string{chunk(`{"role":"assistant","content":"Built."}`, "")}, stop))
		turn.Upstream.(*gatedUpstream).openDelay = 40 * time.Second
		if err := <-out.run(turn); err != nil {
			t.Fatal(err)
		}
		if stray, _, n := out.counts(); stray > 0 || n != 1 {
			t.Errorf("%d writes outside the turn's goroutine; %d keepalives in a 40s wait for the answer, want 1 (at 30s)", stray, n)
		}
	})
}
