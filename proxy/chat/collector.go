package chat

import (
	"encoding/json"
	"strings"

	"github.com/toolstream/toolstream/loop"
)

// Collector is the [loop.Out] of a chat client that did not ask to stream:
// it joins the turn — the upstream's chunks and the turn's own output — into
// one chat.completion (docs/stream.md): the joined content and reasoning,
// the client's tool calls, the final finish_reason, the usage summed over
// rounds, and toolstream's events as a list.
type Collector struct {
	// Events makes the answer carry "toolstream": {"events": [...]}
	// (display: events), even when the list is empty.
	Events bool

	loop.Ignore // stop sequences have no place in a chat answer
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

// Takes says the Collector reads typed events and the chunks' Meta, and no
// progress: a non-streaming client would read a list of progress it never
// watched.
func (c *Collector) Takes() loop.Takes { return loop.Takes{Meta: true, NoProgress: true} }

// Meta takes what a chunk said that only a chat answer keeps: the first
// system_fingerprint, content that was there though empty, and the
// reasoning fields the upstream named.
func (c *Collector) Meta(m loop.Meta) {
	if c.fingerprint == "" {
		c.fingerprint = m.Fingerprint
	}
	if m.Content {
		c.hasContent = true
	}
	if m.ReasoningContent {
		c.addReasoning("reasoning_content", "")
	}
	if m.Reasoning {
		c.addReasoning("reasoning", m.ReasoningText)
	}
}

// Usage takes the turn's usage.
func (c *Collector) Usage(u json.RawMessage) error {
	c.usage = append(json.RawMessage(nil), u...)
	return nil
}

// Begin takes the turn's identity.
func (c *Collector) Begin(b loop.Begin) {
	c.id, c.model, c.created = b.ID, b.Model, b.Created
}

// Text takes the answer's visible text.
func (c *Collector) Text(text string) error {
	c.content.WriteString(text)
	c.hasContent = true
	return nil
}

// Reasoning takes reasoning_content, and reasoning the turn split off
// itself, which a chat stream carries as reasoning_content too.
func (c *Collector) Reasoning(text string) error {
	c.addReasoning("reasoning_content", text)
	return nil
}

// ToolCall takes a fragment of a client call.
func (c *Collector) ToolCall(f loop.ToolCallDelta) error {
	c.addCall(f.Index, f.ID, f.Name, f.Arguments)
	return nil
}

// Event takes one of toolstream's events.
func (c *Collector) Event(ev *loop.Event) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	c.events = append(c.events, b)
	return nil
}

// Finish takes the finish_reason the turn decided.
func (c *Collector) Finish(reason string) error {
	if reason != "" {
		c.finish = reason
	}
	return nil
}

func (c *Collector) addReasoning(k, text string) {
	if c.reasoning == nil {
		c.reasoning = map[string]*strings.Builder{}
	}
	if c.reasoning[k] == nil {
		c.reasoning[k] = &strings.Builder{}
	}
	c.reasoning[k].WriteString(text)
}

// addCall adds a fragment to the call at index i; an index out of
// bounds is none of the answer's.
func (c *Collector) addCall(i int, id, name, args string) {
	if i < 0 || i > 1024 {
		return
	}
	for len(c.toolCalls) <= i {
		c.toolCalls = append(c.toolCalls, &collectedCall{Type: "function"})
	}
	k := c.toolCalls[i]
	if id != "" {
		k.ID = id
	}
	k.Function.Name += name
	k.Function.Arguments += args
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
