package history

import (
	"encoding/json"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/chunk"
	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/loop/textmode"
	"github.com/toolstream/toolstream/toolhost"
)

// TextFrames rewrites the tool traffic in a text-mode turn's history
// (docs/tool-calls.md, client tools in text mode): an assistant message
// with tool_calls becomes the model's text followed by its calls in format
// f's syntax, and each run of role "tool" messages becomes one resultRole
// message holding their results in f's frame, in order. A model without
// native tool calling has never seen tool_calls or a "tool" role; it reads
// its calls and their results the way it was taught them.
//
// base is the body after stitching; a stitched turn's stored messages
// already hold the model's text as written, and the results of the server
// calls that ran beside the client's (loop's lastMessages) as "tool"
// messages with a name, which frame together with the client's. original
// is the client's body, whose tool_calls name the calls that stitching
// replaced: a result's frame names its tool. base is returned as it is
// when it holds no tool traffic.
func TextFrames(base, original []byte, f detect.Format, resultRole string) ([]byte, error) {
	if !strings.Contains(string(base), `"tool`) {
		return base, nil // neither "tool" nor "tool_calls" appears
	}
	var p, op fastjson.Parser
	v, err := p.ParseBytes(base)
	if err != nil {
		return base, nil // ParseRequest read the client's body; a stitched one is ours
	}
	msgs := v.GetArray("messages")
	names := map[string]string{}
	if ov, err := op.ParseBytes(original); err == nil {
		callNames(ov.GetArray("messages"), names)
	}
	callNames(msgs, names)

	var (
		a       fastjson.Arena
		out     = a.NewArray()
		n       int
		changed bool
		results []toolhost.Result
	)
	push := func(m *fastjson.Value) {
		out.SetArrayItem(n, m)
		n++
	}
	flush := func() {
		if len(results) == 0 {
			return
		}
		push(textMessage(&a, resultRole, textmode.Feedback(f, results)))
		results = results[:0]
	}
	for _, m := range msgs {
		role := rawString(m.Get("role"))
		if role == "tool" {
			id := rawString(m.Get("tool_call_id"))
			name := rawString(m.Get("name"))
			if name == "" {
				name = names[id]
			}
			results = append(results, toolResult(id, name, messageText(m.Get("content"))))
			changed = true
			continue
		}
		flush()
		if role == "assistant" && len(m.GetArray("tool_calls")) > 0 {
			push(textMessage(&a, "assistant", assistantText(m, f)))
			changed = true
			continue
		}
		push(m)
	}
	flush()
	if !changed {
		return base, nil
	}
	v.Set("messages", out)
	return v.MarshalTo(nil), nil
}

// toolResult is a "tool" message's content as a result to frame: JSON
// stays JSON, and {"error": {"code": …, "message": …}} — how a failed
// call's result is written back (loop's toolContent) — is framed as the error it
// is.
func toolResult(id, name, content string) toolhost.Result {
	r := toolhost.Result{CallID: id, Name: name, Content: content}
	var p fastjson.Parser
	v, err := p.Parse(content)
	if err != nil || v.Type() != fastjson.TypeObject && v.Type() != fastjson.TypeArray {
		return r
	}
	r.IsJSON = true
	if o := v.GetObject(); o != nil && o.Len() == 1 && v.Exists("error", "code") {
		r.Err = &toolhost.ToolError{Code: string(v.GetStringBytes("error", "code")), Message: string(v.GetStringBytes("error", "message"))}
		r.Content, r.IsJSON = "", false
	}
	return r
}

// callNames maps the ids of the tool calls in msgs to the tools they call.
func callNames(msgs []*fastjson.Value, names map[string]string) {
	for _, m := range msgs {
		for _, tc := range m.GetArray("tool_calls") {
			if id := rawString(tc.Get("id")); id != "" {
				names[id] = rawString(tc.Get("function", "name"))
			}
		}
	}
}

// assistantText is an assistant message with tool_calls as a text-mode
// model writes it: its text, then its calls in f's syntax.
func assistantText(m *fastjson.Value, f detect.Format) string {
	var calls []textmode.Call
	for _, tc := range m.GetArray("tool_calls") {
		calls = append(calls, textmode.Call{Name: rawString(tc.Get("function", "name")), Arguments: []byte(rawString(tc.Get("function", "arguments")))})
	}
	text := strings.TrimRight(messageText(m.Get("content")), "\n")
	if text != "" {
		text += "\n\n"
	}
	return text + textmode.CallsText(f, calls)
}

// textMessage is a message {"role": role, "content": content}, its strings
// encoded by encoding/json (fastjson's own escaping is not JSON for
// control characters).
func textMessage(a *fastjson.Arena, role, content string) *fastjson.Value {
	b, _ := json.Marshal(Message{Role: role, Content: content}) // strings always encode
	return chunk.RawValue(a, string(b))
}
