package responses_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/responses"
	"github.com/toolstream/toolstream/toolhost"
)

// newEncoder is an encoder that collects (no Writer), with ids that
// count up, for a request body.
func newEncoder(t *testing.T, body string, tools []toolhost.Tool, keep *responses.Finished) *responses.Encoder {
	t.Helper()
	r, err := responses.ToChat([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	return responses.NewEncoder(r, responses.Options{ID: "resp_1", Created: 1, Tools: tools,
		NewID: func(p string) string { n++; return p + strings.Repeat("x", n) },
		Keep:  func(f responses.Finished) { *keep = f }})
}

// TestEncoderTakes: a response answered whole asks for its transcript and
// no progress.
func TestEncoderTakes(t *testing.T) {
	var keep responses.Finished
	if got := newEncoder(t, `{"model":"m","input":"hi"}`, nil, &keep).Takes(); !got.Transcript || !got.NoProgress {
		t.Errorf("Takes() = %+v", got)
	}
}

// output decodes a response object's output items.
func output(t *testing.T, e *responses.Encoder) []map[string]any {
	t.Helper()
	b, err := e.Response()
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Output []map[string]any }
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r.Output
}

func strs(ms []json.RawMessage) []string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m))
	}
	return out
}

// TestEncoderToolTurn: a turn with a server call keeps its transcript as
// the conversation, and what restores its mcp_call item: the call and
// the result as the model read it. Text around the call is trimmed of the
// blank space that separated it from the call, and the message after the
// call opens with a paragraph break, so output_text (the SDKs join the
// messages' texts with nothing) does not run the two together; what
// restores that message is the model's text, without the break.
func TestEncoderToolTurn(t *testing.T) {
	var kept responses.Finished
	tools := []toolhost.Tool{{Name: "notes_add", Source: toolhost.SourceMCPPrefix + "notes"}}
	e := newEncoder(t, `{"model":"m","input":"hi"}`, tools, &kept)
	res := toolhost.Result{CallID: "call_1", Name: "notes_add", Content: `{"ok":true}`, IsJSON: true, Status: toolhost.StatusOK}
	for _, step := range []func() error{
		func() error { return e.Text("\n\n") },
		func() error { return e.Text("Noting ") },
		func() error { return e.Text("it.\n\n") },
		func() error {
			return e.Event(&loop.Event{Event: "tool.started", CallID: "call_1", Name: "notes_add", Arguments: json.RawMessage(`{"text":"x"}`), Round: 1})
		},
		func() error {
			return e.Event(&loop.Event{Event: "tool.finished", CallID: "call_1", Name: "notes_add", Round: 1, Status: "ok", Full: &res})
		},
		func() error { return e.Text("\n\n") },
		func() error { return e.Text("Done.") },
		func() error {
			e.Transcript([]json.RawMessage{json.RawMessage(`{"role":"assistant","content":"Noting it. <call/>"}`), json.RawMessage(`{"role":"user","content":"results"}`), json.RawMessage(`{"role":"assistant","content":"Done."}`)})
			return nil
		},
		func() error { return e.Finish("stop") },
		func() error {
			return e.Usage(json.RawMessage(`{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}`))
		},
		e.Done,
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	out := output(t, e)
	var got []string
	for _, it := range out {
		switch it["type"] {
		case "message":
			got = append(got, "message "+it["content"].([]any)[0].(map[string]any)["text"].(string))
		case "mcp_call":
			got = append(got, "mcp_call "+it["server_label"].(string)+" "+it["name"].(string)+" "+it["output"].(string))
		}
	}
	if diff := cmp.Diff([]string{"message Noting it.", `mcp_call notes notes_add {"ok":true}`, "message \n\nDone."}, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if len(kept.Messages) != 3 || !strings.Contains(string(kept.Messages[0]), "<call/>") {
		t.Errorf("kept messages %s, want the transcript", strs(kept.Messages))
	}
	id := out[1]["id"].(string)
	want := []string{
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"notes_add","arguments":"{\"text\":\"x\"}"}}]}`,
		`{"role":"tool","content":"{\"ok\":true}","tool_call_id":"call_1"}`,
	}
	if diff := cmp.Diff(want, strs(kept.Items[id])); diff != "" {
		t.Errorf("restore of %s (-want +got):\n%s", id, diff)
	}
	last := out[2]["id"].(string)
	if diff := cmp.Diff([]string{`{"role":"assistant","content":"Done."}`}, strs(kept.Items[last])); diff != "" {
		t.Errorf("restore of %s (-want +got):\n%s", last, diff)
	}
	var resp struct{ Usage responses.Usage }
	json.Unmarshal(kept.Response, &resp)
	if resp.Usage.TotalTokens != 7 || resp.Usage.InputTokens != 3 {
		t.Errorf("kept usage %+v", resp.Usage)
	}
}

// TestEncoderPlainTurn: a turn without tools sends no transcript; the
// conversation keeps what the model wrote: its text and the client's
// calls, in one assistant message.
func TestEncoderPlainTurn(t *testing.T) {
	var kept responses.Finished
	e := newEncoder(t, `{"model":"m","input":"hi","tools":[{"type":"function","name":"f"}]}`, nil, &kept)
	for _, step := range []func() error{
		func() error { return e.Text("Let me check.") },
		func() error { return e.ToolCall(loop.ToolCallDelta{Index: 0, ID: "call_9", Name: "f"}) },
		func() error { return e.ToolCall(loop.ToolCallDelta{Index: 0, Arguments: `{"a":`}) },
		func() error { return e.ToolCall(loop.ToolCallDelta{Index: 0, Arguments: `1}`}) },
		func() error { return e.Finish("tool_calls") },
		e.Done,
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{`{"role":"assistant","content":"Let me check.","tool_calls":[{"id":"call_9","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}`}
	if diff := cmp.Diff(want, strs(kept.Messages)); diff != "" {
		t.Errorf("kept messages (-want +got):\n%s", diff)
	}
	out := output(t, e)
	if len(out) != 2 || out[1]["type"] != "function_call" || out[1]["arguments"] != `{"a":1}` || out[1]["call_id"] != "call_9" {
		t.Errorf("output %v", out)
	}
}

// TestEncoderBlankOnly: a stretch of blank space alone makes no item.
func TestEncoderBlankOnly(t *testing.T) {
	var kept responses.Finished
	e := newEncoder(t, `{"model":"m","input":"hi"}`, nil, &kept)
	for _, s := range []string{"\n", " \n\t"} {
		if err := e.Text(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Done(); err != nil {
		t.Fatal(err)
	}
	if out := output(t, e); len(out) != 0 {
		t.Errorf("output %v, want none", out)
	}
}
