package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The prefix scenario: what toolstream's rounds cost a model server with
// a prompt cache. vLLM's prefix caching, llama.cpp's slot cache, SGLang's
// radix cache and hosted providers' prompt caching all skip the prefill of
// a prompt's start that an earlier request had byte for byte; everything
// after the first byte that differs is computed again. A tool turn is
// several requests, each the last one and a little more: when each
// round's bytes extend the last, round N pays only for what is new.

// Models the prefix upstream answers as: one tool turn of three rounds
// (find_tools, the tool found, the answer), in text mode or native.
const (
	modelPrefixText   = "prefix-text"
	modelPrefixNative = "prefix-native"
)

// prefixSlots is how many earlier prompts the cache keeps: a server's
// cache holds far more, but a run's turns are few and one after another.
const prefixSlots = 256

// prefixUpstream is a model server with a prefix cache. Its prompt is
// what a chat template renders, in the order it renders it: the tools
// (native mode's "tools", which templates write into the system prompt),
// then the messages, as the raw JSON of the request. A request waits
// nsPerByte for each byte of its prompt after the longest prefix an
// earlier prompt shares with it — the prefill — before its first token.
type prefixUpstream struct {
	nsPerByte int64

	mu   sync.Mutex
	seen [][]byte // earlier prompts, oldest first
	// prefilled and total count the prompt bytes computed and sent,
	// by round (index 0: round 1).
	prefilled, total [3]int64
}

// prefill is what prompt costs: the bytes after its longest cached
// prefix, and the time they take. The prompt is cached from then on.
func (u *prefixUpstream) prefill(prompt []byte) (uncached int, d time.Duration) {
	u.mu.Lock()
	defer u.mu.Unlock()
	best := 0
	for _, s := range u.seen {
		best = max(best, commonPrefix(s, prompt))
	}
	if len(u.seen) == prefixSlots {
		u.seen = u.seen[1:]
	}
	u.seen = append(u.seen, prompt)
	uncached = len(prompt) - best
	return uncached, time.Duration(int64(uncached) * u.nsPerByte)
}

// commonPrefix is the length of the longest prefix a and b share.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// promptOf is the prompt a chat template would render from a request
// body, as bytes: its tools, then its messages.
func promptOf(body []byte) ([]byte, error) {
	var req struct {
		Tools    json.RawMessage `json:"tools"`
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	return append(append([]byte{}, req.Tools...), req.Messages...), nil
}

func (u *prefixUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/hook/") {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	prompt, err := promptOf(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	round := turnRound(body)
	uncached, d := u.prefill(prompt)
	u.mu.Lock()
	u.prefilled[round] += int64(uncached)
	u.total[round] += int64(len(prompt))
	u.mu.Unlock()
	select {
	case <-time.After(d):
	case <-r.Context().Done():
		return
	}
	native := bytes.Contains(body, []byte(modelPrefixNative))
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	// Prompt tokens counted at four bytes each; those of the cached
	// prefix reported as cached, as OpenAI's server and vLLM report them.
	usage := fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":16,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}}`,
		len(prompt)/4, len(prompt)/4+16, (len(prompt)-uncached)/4)
	for _, ev := range prefixRound(round, native, usage) {
		if _, err := w.Write(ev); err != nil {
			return
		}
		f.Flush()
	}
}

// prefixQuestion starts each question of the prefix scenario's client.
const prefixQuestion = "Invoice ACME for"

// turnRound is the round (from 0) a request is of its turn: the
// assistant messages after the turn's question, one per earlier round.
func turnRound(body []byte) int {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return 0
	}
	n := 0
	for _, m := range req.Messages {
		switch s, _ := m.Content.(string); {
		case m.Role == "user" && strings.HasPrefix(s, prefixQuestion):
			n = 0
		case m.Role == "assistant":
			n++
		}
	}
	return min(n, 2)
}

// prefixRound is round (from 0) of the scripted turn: a search, a call
// of the tool found, an answer; each with a few words before.
func prefixRound(round int, native bool, usage string) [][]byte {
	type call struct{ name, args string }
	say, calls := []string{"Done: the invoice is on its way."}, []call(nil)
	switch round {
	case 0:
		say, calls = []string{"Let me find ", "the right tool."}, []call{{"find_tools", `{"query": "send an invoice", "limit": 1}`}}
	case 1:
		say, calls = []string{"Sending ", "it now."}, []call{{"send_invoice", `{"customer": "ACME", "amount": 120}`}}
	}
	chunk := func(delta, finish string) []byte {
		return fmt.Appendf(nil, "data: {\"id\":\"cmpl-prefix-%d\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n",
			round, delta, finish)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	out := [][]byte{chunk(`{"role":"assistant","content":""}`, "null")}
	for _, s := range say {
		out = append(out, chunk(`{"content":`+q(s)+`}`, "null"))
	}
	finish := `"stop"`
	for i, c := range calls {
		if native {
			out = append(out, chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%d_%d","type":"function","function":{"name":%q,"arguments":%s}}]}`,
				i, round, i, c.name, q(c.args)), "null"))
			finish = `"tool_calls"`
			continue
		}
		out = append(out, chunk(`{"content":`+q("\n<tool_call>\n{\"name\": \""+c.name+"\", \"arguments\": "+c.args+"}\n</tool_call>")+`}`, "null"))
	}
	out = append(out, chunk(`{}`, finish))
	out = append(out, fmt.Appendf(nil, "data: {\"id\":\"cmpl-prefix-%d\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\"choices\":[],\"usage\":%s}\n\n", round, usage))
	return append(out, []byte("data: [DONE]\n\n"))
}
