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
