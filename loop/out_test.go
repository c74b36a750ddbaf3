package loop_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/looptest"
	"github.com/toolstream/toolstream/toolhost"
)

// recorder rebuilds what a client reads (looptest.Recorder).
type recorder = looptest.Recorder

// fixedExec answers every call {"ok":true}.
type fixedExec = looptest.FixedExec

// transcriber is a recorder that also takes the turn's transcript.
type transcriber struct {
	looptest.Recorder
	msgs  []json.RawMessage
	calls int
	done  bool // Done had been called when the transcript came
}

func (r *transcriber) Takes() loop.Takes { return loop.Takes{Transcript: true} }

func (r *transcriber) Transcript(msgs []json.RawMessage) {
	r.msgs, r.done = msgs, r.Recorder.Ended
	r.calls++
}

// TestEventsTranscript: a turn with tools hands an Out that keeps
// conversations its rounds as the model wrote them — the tool markup and
// the results frame included, which the client never read — once, before
// Done; a plain turn hands none.
func TestEventsTranscript(t *testing.T) {
	tools := []toolhost.Tool{{Name: "create_task", Parameters: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`)}}
	run := func(t *testing.T, tools []toolhost.Tool, rounds [][]string) *transcriber {
		t.Helper()
		req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		lc := config.Default().Loop
		lc.Keepalive = 0
		turn := &loop.Turn{Request: req, Upstream: &scripted{rounds: rounds, mark: -1}, UpstreamName: "mem", Format: "hermes",
			Tools: tools, Loop: lc, Mode: config.ToolModeText}
		if len(tools) > 0 {
			turn.Executor = fixedExec{}
		}
		rec := &transcriber{}
		if _, err := (&loop.Runner{NewID: func(p string) string { return p + "1" }}).Run(context.Background(), turn, rec); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	t.Run("tool round", func(t *testing.T) {
		rec := run(t, tools, [][]string{
			{chunk(`{"role":"assistant","content":"Adding it. <tool_call>{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym\"}}</tool_call>"}`, ""), chunk(`{}`, "stop"), "[DONE]"},
			{chunk(`{"role":"assistant","content":"Done."}`, ""), chunk(`{}`, "stop"), "[DONE]"}})
		if rec.calls != 1 || rec.done {
			t.Fatalf("Transcript called %d times (after Done: %v), want once before Done", rec.calls, rec.done)
		}
		var got []string
		for _, m := range rec.msgs {
			got = append(got, string(m))
		}
		want := []string{
			`{"role":"assistant","content":"Adding it. \u003ctool_call\u003e{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym\"}}\u003c/tool_call\u003e"}`,
			"<results>",
			`{"role":"assistant","content":"Done."}`,
		}
		if len(got) != 3 || got[0] != want[0] || got[2] != want[2] || !strings.Contains(got[1], `{\"ok\":true}`) {
			t.Errorf("transcript\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if rec.Visible.String() != "Adding it. Done." {
			t.Errorf("client read %q", rec.Visible.String())
		}
	})
	t.Run("plain", func(t *testing.T) {
		rec := run(t, nil, [][]string{{chunk(`{"role":"assistant","content":"Hi."}`, "stop"), "[DONE]"}})
		if rec.calls != 0 {
			t.Errorf("a plain turn sent a transcript: %s", rec.msgs)
		}
	})
}
