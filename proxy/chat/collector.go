package chat

import (
	"encoding/json"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop"
)

// Collector is the [loop.Out] of a chat client that did not ask to stream:
// it joins the turn's chunks into one chat.completion (docs/stream.md): the
// joined content
// and reasoning, the client's tool calls, the final finish_reason, the usage
// summed over rounds, and toolstream's events as a list.
type Collector struct {
	// Events makes the answer carry "toolstream": {"events": [...]}
	// (display: events), even when the list is empty.
	Events bool

	loop.Ignore // the typed events: a Collector reads the chunks
	p           fastjson.Parser
	id, model   string
	created     int64
	fingerprint string
	content     strings.Builder
	hasContent  bool
	reasoning   map[string]*strings.Builder // reasoning_content, reasoning
	finish      string
	usage       json.RawMessage
	events      []json.RawMessage
	toolCalls   []*collectedCall
}

type collectedCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Takes says the Collector reads chat chunks, and no progress: a
// non-streaming client would read a list of progress it never watched.
func (c *Collector) Takes() loop.Takes { return loop.Takes{Chunks: true, NoProgress: true} }

// Raw takes one chunk.
func (c *Collector) Raw(b []byte) error {
	v, err := c.p.ParseBytes(b)
	if err != nil {
		return err
	}
	if c.id == "" {
		c.id = string(v.GetStringBytes("id"))
		c.model = string(v.GetStringBytes("model"))
		c.created = v.GetInt64("created")
	}
	if fp := v.GetStringBytes("system_fingerprint"); len(fp) > 0 && c.fingerprint == "" {
		c.fingerprint = string(fp)
	}
	if u := v.Get("usage"); u != nil && u.Type() == fastjson.TypeObject {
		c.usage = json.RawMessage(u.MarshalTo(nil))
	}
	if ev := v.Get("toolstream"); ev != nil && ev.Type() == fastjson.TypeObject {
		c.events = append(c.events, json.RawMessage(ev.MarshalTo(nil)))
	}
	choices := v.GetArray("choices")
	if len(choices) == 0 {
		return nil
	}
	c0 := choices[0]
	if f := c0.GetStringBytes("finish_reason"); len(f) > 0 {
		c.finish = string(f)
	}
	delta := c0.Get("delta")
	if delta == nil {
		return nil
	}
	if s := (delta.Get("content")); s != nil && s.Type() == fastjson.TypeString {
		c.content.Write(s.GetStringBytes())
		c.hasContent = true
	}
	for _, k := range []string{"reasoning_content", "reasoning"} {
		if s := (delta.Get(k)); s != nil && s.Type() == fastjson.TypeString {
			if c.reasoning == nil {
				c.reasoning = map[string]*strings.Builder{}
			}
			if c.reasoning[k] == nil {
				c.reasoning[k] = &strings.Builder{}
			}
			c.reasoning[k].Write(s.GetStringBytes())
		}
	}
	tcs := (delta.Get("tool_calls"))
	if tcs == nil || tcs.Type() != fastjson.TypeArray {
		return nil
	}
	for _, tc := range tcs.GetArray() {
		i := tc.GetInt("index")
		if i < 0 || i > 1024 {
			continue
		}
		for len(c.toolCalls) <= i {
			c.toolCalls = append(c.toolCalls, &collectedCall{Type: "function"})
		}
		k := c.toolCalls[i]
		if id := tc.GetStringBytes("id"); len(id) > 0 {
			k.ID = string(id)
		}
		k.Function.Name += string(tc.GetStringBytes("function", "name"))
		k.Function.Arguments += string(tc.GetStringBytes("function", "arguments"))
	}
	return nil
}

// Done marks the end of the turn.
func (c *Collector) Done() error { return nil }

// Completion returns the chat.completion JSON.
func (c *Collector) Completion() []byte {
	msg := map[string]any{"role": "assistant", "content": nil}
	if c.hasContent || len(c.toolCalls) == 0 {
		msg["content"] = c.content.String()
	}
	for k, b := range c.reasoning {
		msg[k] = b.String()
	}
	if len(c.toolCalls) > 0 {
		msg["tool_calls"] = c.toolCalls
	}
	out := struct {
		ID          string          `json:"id"`
		Object      string          `json:"object"`
		Created     int64           `json:"created"`
		Model       string          `json:"model"`
		Choices     []any           `json:"choices"`
		Usage       json.RawMessage `json:"usage,omitempty"`
		Fingerprint string          `json:"system_fingerprint,omitempty"`
		Toolstream  *struct {
			Events []json.RawMessage `json:"events"`
		} `json:"toolstream,omitempty"`
	}{
		ID: c.id, Object: "chat.completion", Created: c.created, Model: c.model,
		Choices: []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": c.finish}},
		Usage:   c.usage, Fingerprint: c.fingerprint,
	}
	if c.Events {
		out.Toolstream = &struct {
			Events []json.RawMessage `json:"events"`
		}{Events: append([]json.RawMessage{}, c.events...)}
	}
	b, _ := json.Marshal(out)
	return b
}

var _ loop.Out = (*Collector)(nil)
