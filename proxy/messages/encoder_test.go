package messages_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/messages"
	"github.com/toolstream/toolstream/toolhost"
)

// events records what an Encoder writes, one "name data" line per event.
type events struct{ lines []string }

func (w *events) WriteEvent(name string, data []byte) error {
	if !json.Valid(data) {
		return fmt.Errorf("event %s: data is not JSON: %s", name, data)
	}
	var t struct{ Type string }
	json.Unmarshal(data, &t)
	if t.Type != name {
		return fmt.Errorf("event %s carries type %q", name, t.Type)
	}
	w.lines = append(w.lines, name+" "+string(data))
	return nil
}

// step is one call on an Out.
type step func(loop.Out) error

func text(s string) step      { return func(e loop.Out) error { return e.Text(s) } }
func reasoning(s string) step { return func(e loop.Out) error { return e.Reasoning(s) } }
func call(i int, id, name, args string) step {
	return func(e loop.Out) error {
		return e.ToolCall(loop.ToolCallDelta{Index: i, ID: id, Name: name, Arguments: args})
	}
}
func ev(x loop.Event) step { return func(e loop.Out) error { return e.Event(&x) } }
func finish(r string) step { return func(e loop.Out) error { return e.Finish(r) } }
func usage(u string) step  { return func(e loop.Out) error { return e.Usage(json.RawMessage(u)) } }
func ping() step           { return func(e loop.Out) error { return e.Keepalive() } }
func done() step           { return func(e loop.Out) error { return e.Done() } }
func started(id, name, args string) step {
	return ev(loop.Event{Event: "tool.started", CallID: id, Name: name, Arguments: json.RawMessage(args), Round: 1})
}
func finished(id, name, status, content string, terr *toolhost.ToolError) step {
	r := toolhost.Result{CallID: id, Name: name, Content: content, Status: status, Err: terr}
	return ev(loop.Event{Event: "tool.finished", CallID: id, Name: name, Status: status, Round: 1, Full: &r})
}

var opts = messages.Options{ID: "msg_1", Model: "claude-x", Tools: []toolhost.Tool{
	{Name: "create_task", Source: toolhost.SourceConfig},
	{Name: "notes_search", Source: toolhost.SourceMCPPrefix + "notes"},
}}

// TestEncoderStream pins the events of each kind of answer.
func TestEncoderStream(t *testing.T) {
	t.Parallel()
	const start = `message_start {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"text", []step{text("Hel"), text("lo <b>&</b>\n"), finish("stop"), usage(`{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}`), done()}, []string{
			start,
			`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`,
			`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo <b>&</b>\n"}}`,
			`content_block_stop {"type":"content_block_stop","index":0}`,
			`message_delta {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":10,"output_tokens":3}}`,
			`message_stop {"type":"message_stop"}`,
		}},
		{"thinking then text, cached tokens, length", []step{reasoning("Hm."), text("A"), finish("length"),
			usage(`{"prompt_tokens":10,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":4}}`), done()}, []string{
			start,
			`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
			`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hm."}}`,
			`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"` + messages.Signature("claude-x", "Hm.") + `"}}`,
			`content_block_stop {"type":"content_block_stop","index":0}`,
			`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
			`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"A"}}`,
			`content_block_stop {"type":"content_block_stop","index":1}`,
			`message_delta {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"input_tokens":6,"output_tokens":3,"cache_read_input_tokens":4}}`,
			`message_stop {"type":"message_stop"}`,
		}},
		{"server calls", []step{text("On it."), started("call_1", "create_task", `{"title":"Gym"}`), ping(), text("\n"),
			started("call_2", "notes_search", `{"q":"x"}`), text("\n\n"),
			finished("call_2", "notes_search", toolhost.StatusOK, `{"hits":0}`, nil),
			finished("call_1", "create_task", toolhost.StatusDenied, "", &toolhost.ToolError{Code: "DENIED", Message: "the user said no"}),
			ev(loop.Event{Event: "round.started", Round: 2}), text(" "), text("Done."), text("\n"), finish("stop"), done()}, []string{
			start,
			`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"On it."}}`,
			`content_block_stop {"type":"content_block_stop","index":0}`,
			`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"mcp_tool_use","id":"mcptoolu_call_1","name":"create_task","server_name":"toolstream","input":{"title":"Gym"}}}`,
			`content_block_stop {"type":"content_block_stop","index":1}`,
			`ping {"type":"ping"}`,
			`content_block_start {"type":"content_block_start","index":2,"content_block":{"type":"mcp_tool_use","id":"mcptoolu_call_2","name":"notes_search","server_name":"notes","input":{"q":"x"}}}`,
			`content_block_stop {"type":"content_block_stop","index":2}`,
			`content_block_start {"type":"content_block_start","index":3,"content_block":{"type":"mcp_tool_result","tool_use_id":"mcptoolu_call_2","is_error":false,"content":[{"type":"text","text":"{\"hits\":0}"}]}}`,
			`content_block_stop {"type":"content_block_stop","index":3}`,
			`content_block_start {"type":"content_block_start","index":4,"content_block":{"type":"mcp_tool_result","tool_use_id":"mcptoolu_call_1","is_error":true,"content":[{"type":"text","text":"DENIED: the user said no"}]}}`,
			`content_block_stop {"type":"content_block_stop","index":4}`,
			`content_block_start {"type":"content_block_start","index":5,"content_block":{"type":"text","text":""}}`,
			`content_block_delta {"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"\n\n\n Done."}}`,
			`content_block_delta {"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"\n"}}`,
			`content_block_stop {"type":"content_block_stop","index":5}`,
			`message_delta {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":0,"output_tokens":0}}`,
			`message_stop {"type":"message_stop"}`,
		}},
		{"client calls, the second interleaved", []step{text("Where?"), call(0, "call_a", "get_location", ""), call(0, "", "", `{"pre`),
			call(1, "call_b", "get_time", `{}`), call(0, "", "", `cise":true}`), finish("tool_calls"), done()}, []string{
			start,
			`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Where?"}}`,
			`content_block_stop {"type":"content_block_stop","index":0}`,
			`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_call_a","name":"get_location","input":{}}}`,
			`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pre"}}`,
			`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"cise\":true}"}}`,
			`content_block_stop {"type":"content_block_stop","index":1}`,
			`content_block_start {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_call_b","name":"get_time","input":{}}}`,
			`content_block_delta {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
			`content_block_stop {"type":"content_block_stop","index":2}`,
			`message_delta {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":0,"output_tokens":0}}`,
			`message_stop {"type":"message_stop"}`,
		}},
		{"stop sequence", []step{text("1, 2"), finish("stop"), func(e loop.Out) error {
			return e.(interface{ StopSequence(string) error }).StopSequence("3")
		}, done()}, []string{
			start,
			`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"1, 2"}}`,
			`content_block_stop {"type":"content_block_stop","index":0}`,
			`message_delta {"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"3"},"usage":{"input_tokens":0,"output_tokens":0}}`,
			`message_stop {"type":"message_stop"}`,
		}},
		{"empty", []step{finish("stop"), done()}, []string{
			start,
			`message_delta {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":0,"output_tokens":0}}`,
			`message_stop {"type":"message_stop"}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := &events{}
			enc := messages.NewStream(w, opts)
			for _, s := range tt.steps {
				if err := s(enc); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.want, w.lines); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			// The message a client accumulates from the stream is the
			// one a client that did not stream reads.
			col := messages.NewMessage(opts)
			for _, s := range tt.steps {
				if err := s(col); err != nil {
					t.Fatal(err)
				}
			}
			msg, err := col.Message()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(accumulate(t, w.lines), decode(t, msg)); diff != "" {
				t.Errorf("message differs from the stream (-stream +message):\n%s", diff)
			}
		})
	}
}

// TestEncoderQuiet writes nothing before the turn's first event: until
// then an error can still be an HTTP status.
func TestEncoderQuiet(t *testing.T) {
	t.Parallel()
	w := &events{}
	enc := messages.NewStream(w, opts)
	if err := enc.Usage(json.RawMessage(`{"prompt_tokens":1}`)); err != nil {
		t.Fatal(err)
	}
	if enc.Started() || len(w.lines) > 0 {
		t.Errorf("wrote %q before any event", w.lines)
	}
	enc.Keepalive()
	if !enc.Started() || len(w.lines) != 2 || !strings.HasPrefix(w.lines[0], "message_start ") {
		t.Errorf("a ping first: %q, want message_start then ping", w.lines)
	}
}

// TestEncoderTakes: a stream takes tool progress (its pings), a message
// answered whole does not.
func TestEncoderTakes(t *testing.T) {
	t.Parallel()
	if messages.NewStream(&events{}, opts).Takes().NoProgress {
		t.Error("a stream asks for no progress")
	}
	if !messages.NewMessage(opts).Takes().NoProgress {
		t.Error("a message answered whole asks for progress")
	}
}

// TestEncoderApprovalWait sends the mcp_tool_use block of a call that
// waits for approval at once, pings while it waits, and nothing of the
// approval events themselves.
func TestEncoderApprovalWait(t *testing.T) {
	t.Parallel()
	w := &events{}
	enc := messages.NewStream(w, opts)
	at := time.Unix(1800000000, 0)
	for _, s := range []step{started("call_1", "create_task", `{"title":"x"}`),
		ev(loop.Event{Event: "approval.requested", CallID: "call_1", Name: "create_task", ActionID: "act_1", ExpiresAt: &at}),
		ping(), ping(),
		ev(loop.Event{Event: "approval.resolved", CallID: "call_1", Name: "create_task", ActionID: "act_1", Decision: "approved"}),
	} {
		if err := s(enc); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, l := range w.lines {
		names = append(names, strings.Fields(l)[0])
	}
	want := []string{"message_start", "content_block_start", "content_block_stop", "ping", "ping"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// accumulate rebuilds the message from a stream as @anthropic-ai/sdk's
// MessageStream does: blocks as they start, deltas appended by index,
// message_delta's stop and usage over message_start's.
func accumulate(t *testing.T, lines []string) map[string]any {
	t.Helper()
	var msg map[string]any
	var content []map[string]any
	inputs := map[int]string{}
	for _, l := range lines {
		_, data, _ := strings.Cut(l, " ")
		var e map[string]any
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatal(err)
		}
		switch e["type"] {
		case "message_start":
			msg = e["message"].(map[string]any)
		case "content_block_start":
			content = append(content, e["content_block"].(map[string]any))
		case "content_block_delta":
			i := int(e["index"].(float64))
			d := e["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				content[i]["text"] = content[i]["text"].(string) + d["text"].(string)
			case "thinking_delta":
				content[i]["thinking"] = content[i]["thinking"].(string) + d["thinking"].(string)
			case "input_json_delta":
				inputs[i] += d["partial_json"].(string)
			case "signature_delta":
				content[i]["signature"] = d["signature"].(string)
			}
		case "content_block_stop":
			i := int(e["index"].(float64))
			if s, ok := inputs[i]; ok {
				var in any
				if err := json.Unmarshal([]byte(s), &in); err != nil {
					t.Fatalf("block %d: input %q is not JSON", i, s)
				}
				content[i]["input"] = in
			}
		case "message_delta":
			d := e["delta"].(map[string]any)
			msg["stop_reason"], msg["stop_sequence"] = d["stop_reason"], d["stop_sequence"]
			msg["usage"] = e["usage"]
		}
	}
	if content == nil {
		content = []map[string]any{}
	}
	anyContent := make([]any, len(content))
	for i, c := range content {
		anyContent[i] = c
	}
	msg["content"] = anyContent
	return msg
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return m
}

// FuzzTextDelta holds the hand-written delta to encoding/json: any text,
// valid UTF-8 or not, decodes back as encoding/json would have written it
// (each invalid byte as U+FFFD).
func FuzzTextDelta(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\s\n\r\t\x00\x1f\x7f", "<>&\u2028", "\xff\xfe", "日本\xe6\x97"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w := &events{}
		enc := messages.NewStream(w, opts)
		if err := enc.Text(s); err != nil {
			t.Fatal(err)
		}
		if s == "" {
			return
		}
		var d struct {
			Delta struct{ Text string }
		}
		_, data, _ := strings.Cut(w.lines[len(w.lines)-1], " ")
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			t.Fatal(err)
		}
		ref, _ := json.Marshal(s)
		var want string
		json.Unmarshal(ref, &want)
		if d.Delta.Text != want || utf8.ValidString(s) && want != s {
			t.Errorf("text %q came back %q, encoding/json gives %q", s, d.Delta.Text, want)
		}
	})
}
