package loop_test

import (
	"context"
	"encoding/json"
	"iter"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
)

// rounds is an upstream answering request i with events[i].
type rounds struct {
	events [][]string
	n      int
}

func (u *rounds) Open(ctx context.Context, body []byte) (loop.Stream, error) {
	s := eventList(u.events[u.n])
	u.n++
	return s, nil
}

type eventList []string

func (l eventList) Close() error { return nil }
func (l eventList) Events() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for _, ev := range l {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// verdicts answers "good" with ok and "bad" with an error, each run for a
// millisecond after a millisecond's approval wait, and denies "denied"
// after a wait of 28s without running it.
type verdicts struct{}

func (verdicts) Execute(ctx context.Context, c toolhost.Call) (toolhost.Result, error) {
	r := toolhost.Result{CallID: c.ID, Name: c.Name, Content: "{}", IsJSON: true, Status: toolhost.StatusOK}
	switch c.Name {
	case "bad":
		r = toolhost.ErrorResult(c, toolhost.CodeAPIError, "webhook answered 500")
	case "denied":
		r = toolhost.ErrorResult(c, toolhost.CodeDenied, "the user denied this call")
		r.Duration = 28 * time.Second
		return r, nil
	}
	r.Duration, r.Executed, r.RunTime = 2*time.Millisecond, true, time.Millisecond
	return r, nil
}

func hermesCall(name string) string {
	b, _ := json.Marshal(`<tool_call>{"name": "` + name + `", "arguments": {}}</tool_call>`)
	return chunk(`{"content":`+string(b)+`}`, "")
}

// TestReportCalls checks that Report.Calls lists every call of a turn with
// its outcome: executed, failed, never run (unknown tool, denied), and
// handed to the client; only calls that ran have a Duration, the
// executor's time without the approval wait.
func TestReportCalls(t *testing.T) {
	lc := config.Default().Loop
	lc.Keepalive = 0
	tools := []toolhost.Tool{{Name: "good"}, {Name: "bad"}, {Name: "denied"}}

	t.Run("text", func(t *testing.T) {
		up := &rounds{events: [][]string{
			{chunk(`{"role":"assistant","content":""}`, ""), hermesCall("good"), hermesCall("bad"), hermesCall("nope"), hermesCall("denied"), chunk(`{}`, "stop"), "[DONE]"},
			{chunk(`{"role":"assistant","content":"Done."}`, ""), chunk(`{}`, "stop"), "[DONE]"},
		}}
		req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		turn := &loop.Turn{Request: req, Upstream: up, UpstreamName: "mem", Format: "hermes", Tools: tools, Executor: verdicts{}, Loop: lc, Mode: config.ToolModeText}
		rep, err := (&loop.Runner{}).Run(context.Background(), turn, discard{})
		if err != nil {
			t.Fatal(err)
		}
		want := []loop.CallSummary{
			{Name: "good", Status: toolhost.StatusOK, Duration: time.Millisecond, Executed: true},
			{Name: "bad", Status: toolhost.StatusError, Duration: time.Millisecond, Executed: true},
			{Name: "nope", Status: toolhost.StatusError},
			{Name: "denied", Status: toolhost.StatusDenied},
		}
		if diff := cmp.Diff(want, rep.Calls); diff != "" {
			t.Errorf("Report.Calls (-want +got):\n%s", diff)
		}
	})

	t.Run("native with a client call", func(t *testing.T) {
		call := func(i int, id, name string) string {
			return `{"index":` + strconv.Itoa(i) + `,"id":"` + id + `","type":"function","function":{"name":"` + name + `","arguments":"{}"}}`
		}
		up := &rounds{events: [][]string{
			{chunk(`{"role":"assistant","content":null,"tool_calls":[`+call(0, "c1", "good")+`,`+call(1, "c2", "mine")+`]}`, ""), chunk(`{}`, "tool_calls"), "[DONE]"},
		}}
		req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}],"tools":[{"type":"function","function":{"name":"mine","parameters":{"type":"object"}}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		turn := &loop.Turn{Request: req, Upstream: up, UpstreamName: "mem", Tools: tools, Executor: verdicts{}, Loop: lc, Mode: config.ToolModeNative}
		rep, err := (&loop.Runner{}).Run(context.Background(), turn, discard{})
		if err != nil {
			t.Fatal(err)
		}
		want := []loop.CallSummary{
			{Name: "good", Status: toolhost.StatusOK, Duration: time.Millisecond, Executed: true},
			{Name: "mine", Status: loop.StatusClient, Client: true},
		}
		if diff := cmp.Diff(want, rep.Calls); diff != "" {
			t.Errorf("Report.Calls (-want +got):\n%s", diff)
		}
	})
}
