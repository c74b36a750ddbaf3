// Package looptest holds test doubles of loop's interfaces for the tests
// of loop and of the packages that build on it: an Out that rebuilds what
// a client reads from typed events, and an executor that answers every
// call the same.
package looptest

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
)

// Recorder is an Out of typed events that rebuilds what a client reads:
// the text, the reasoning, the client's tool calls joined by index,
// toolstream's events as JSON, the finish, the usage and the end.
type Recorder struct {
	loop.Ignore
	Visible, Thinking strings.Builder
	Calls             map[int]*loop.ToolCallDelta
	Events            []string
	FinishReason      string
	Finishes          int
	UsageJSON         json.RawMessage
	Ended             bool
}

// Text adds s to Visible.
func (r *Recorder) Text(s string) error { r.Visible.WriteString(s); return nil }

// Reasoning adds s to Thinking.
func (r *Recorder) Reasoning(s string) error { r.Thinking.WriteString(s); return nil }

// ToolCall joins f into the call of its index.
func (r *Recorder) ToolCall(f loop.ToolCallDelta) error {
	if r.Calls == nil {
		r.Calls = map[int]*loop.ToolCallDelta{}
	}
	c := r.Calls[f.Index]
	if c == nil {
		c = &loop.ToolCallDelta{Index: f.Index}
		r.Calls[f.Index] = c
	}
	c.ID += f.ID
	c.Name += f.Name
	c.Arguments += f.Arguments
	return nil
}

// Event keeps ev as JSON. A tool.finished event without its full record
// (Event.Full) is left out, so that a comparison with what chunks carry
// fails.
func (r *Recorder) Event(ev *loop.Event) error {
	if ev.Event == "tool.finished" && (ev.Full == nil || ev.Full.CallID != ev.CallID) {
		return nil
	}
	b, _ := json.Marshal(ev)
	r.Events = append(r.Events, string(b))
	return nil
}

// Finish keeps the reason and counts the finishes.
func (r *Recorder) Finish(reason string) error { r.FinishReason = reason; r.Finishes++; return nil }

// Usage keeps u.
func (r *Recorder) Usage(u json.RawMessage) error { r.UsageJSON = u; return nil }

// Done marks the stream ended.
func (r *Recorder) Done() error { r.Ended = true; return nil }

// FixedExec answers every call with the JSON result {"ok":true}.
type FixedExec struct{}

// Execute answers c with {"ok":true}.
func (FixedExec) Execute(_ context.Context, c toolhost.Call) (toolhost.Result, error) {
	return toolhost.Result{CallID: c.ID, Name: c.Name, Content: `{"ok":true}`, IsJSON: true, Status: toolhost.StatusOK}, nil
}
