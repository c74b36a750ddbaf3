package upstreamtest

import (
	"encoding/json"
	"fmt"
)

// Created is the "created" of every chunk the builders make.
const Created = 1700000000

// Chunk returns a chat.completion.chunk with one choice whose delta is the
// JSON object delta; finish, when set, is its finish_reason.
func Chunk(id, model, delta, finish string) string {
	f := "null"
	if finish != "" {
		f = quote(finish)
	}
	return fmt.Sprintf(`{"id":%s,"object":"chat.completion.chunk","created":%d,"model":%s,"choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`,
		quote(id), Created, quote(model), delta, f)
}

// Text returns the events of a plain answer: a role chunk, one content
// chunk per part, and a chunk with finish_reason "stop".
func Text(id, model string, parts ...string) []string {
	ev := []string{Chunk(id, model, `{"role":"assistant","content":""}`, "")}
	for _, p := range parts {
		ev = append(ev, Chunk(id, model, `{"content":`+quote(p)+`}`, ""))
	}
	return append(ev, Chunk(id, model, `{}`, "stop"))
}

// Usage returns the usage-only chunk OpenAI sends last when
// stream_options.include_usage is set.
func Usage(id, model string, prompt, completion int) string {
	return fmt.Sprintf(`{"id":%s,"object":"chat.completion.chunk","created":%d,"model":%s,"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		quote(id), Created, quote(model), prompt, completion, prompt+completion)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Completion joins streamed chunks into the chat.completion a server sends
// for the same answer without streaming: content and reasoning_content
// concatenated, tool calls assembled by index, the last finish_reason and
// usage.
func Completion(events []string) string {
	var j joined
	for _, ev := range events {
		j.add(ev)
	}
	msg := map[string]any{"role": "assistant", "content": j.content}
	if j.hasReasoning {
		msg["reasoning_content"] = j.reasoning
	}
	if len(j.calls) > 0 {
		msg["tool_calls"] = j.calls
	}
	out := map[string]any{
		"id": j.id, "object": "chat.completion", "created": Created, "model": j.model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": j.finish}},
	}
	if j.usage != nil {
		out["usage"] = j.usage
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// joinedCall is one tool call of a [Completion], assembled by index.
type joinedCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// joined is what [Completion] gathers from the chunks so far.
type joined struct {
	id, model, content, reasoning, finish string
	calls                                 []*joinedCall
	usage                                 json.RawMessage
	hasReasoning                          bool
}

// add joins one chunk; one that is not JSON is skipped.
func (j *joined) add(ev string) {
	var c struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Usage   json.RawMessage `json:"usage"`
		Choices []struct {
			Delta struct {
				Content          *string `json:"content"`
				ReasoningContent *string `json:"reasoning_content"`
				ToolCalls        []struct {
					Index    int    `json:"index"`
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
	}
	if json.Unmarshal([]byte(ev), &c) != nil {
		return
	}
	if c.ID != "" {
		j.id = c.ID
	}
	if c.Model != "" {
		j.model = c.Model
	}
	if len(c.Usage) > 0 && string(c.Usage) != "null" {
		j.usage = c.Usage
	}
	for _, ch := range c.Choices {
		if ch.Delta.Content != nil {
			j.content += *ch.Delta.Content
		}
		if ch.Delta.ReasoningContent != nil {
			j.reasoning += *ch.Delta.ReasoningContent
			j.hasReasoning = true
		}
		for _, tc := range ch.Delta.ToolCalls {
			for len(j.calls) <= tc.Index {
				j.calls = append(j.calls, &joinedCall{Type: "function"})
			}
			k := j.calls[tc.Index]
			if tc.ID != "" {
				k.ID = tc.ID
			}
			k.Function.Name += tc.Function.Name
			k.Function.Arguments += tc.Function.Arguments
		}
		if ch.FinishReason != nil {
			j.finish = *ch.FinishReason
		}
	}
}
