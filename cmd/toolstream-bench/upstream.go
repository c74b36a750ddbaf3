package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Models the compare upstream answers as: the model names the scenario,
// since a proxy forwards the body and not the client's headers.
const (
	modelProse = "bench-prose" // N content chunks of prose
	modelCall  = "bench-call"  // prose and one hermes call, then prose
	modelIdle  = "bench-idle"  // one content chunk, then held until released
)

// benchUpstream is the scripted model server of compare. Every answer is
// rendered once, up front, so the upstream is never what a run measures:
// per request it only paces pre-built events out, one write and one flush
// each.
type benchUpstream struct {
	prose, call1, call2, idleHead, idleTail [][]byte
	// withUsage are prose, call1 and call2 with a usage-only chunk before
	// [DONE], sent to a request that asks for usage as OpenAI's server
	// and vLLM do: a run measures what reading it costs.
	withUsage map[*[][]byte][][]byte
	// chunks is the number of content chunks of a prose answer.
	chunks int

	pace  atomic.Int64 // time.Duration between events
	calls atomic.Int64 // webhook calls
	// closeCall is the event of call1 that closes its block; each answer
	// sends it with a call number of its own, for rt.
	closeCall closeEvent
	rt        roundTrips

	mu      sync.Mutex
	release chan struct{} // closed to let held idle streams finish
}

func newBenchUpstream(chunks, chunkBytes int) *benchUpstream {
	u := &benchUpstream{chunks: chunks, release: make(chan struct{})}
	words := func(tag string, n int) []string {
		out := make([]string, n)
		for i := range out {
			w := fmt.Sprintf("%s%d ", tag, i)
			out[i] = w + strings.Repeat("x", max(0, chunkBytes-len(w)))
		}
		return out
	}
	u.prose = sse("cmpl-prose", words("w", chunks))
	call := "<tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\": \"bench\"}}\n</tool_call>"
	u.call1 = sse("cmpl-call", append(words("a", chunks/2), call[:20], call[20:]))
	u.call2 = sse("cmpl-call2", words("b", chunks/2))
	u.closeCall, _ = splitClose(u.call1[len(u.call1)-3])
	idle := sse("cmpl-idle", words("i", 2))
	u.idleHead, u.idleTail = idle[:2], idle[2:]
	u.withUsage = map[*[][]byte][][]byte{}
	for _, evs := range []*[][]byte{&u.prose, &u.call1, &u.call2} {
		e := *evs
		usage := []byte(`data: {"id":"cmpl-usage","object":"chat.completion.chunk","created":1,"model":"bench","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":64,"total_tokens":76}}` + "\n\n")
		u.withUsage[evs] = append(append(e[:len(e)-1:len(e)-1], usage), e[len(e)-1])
	}
	return u
}

// sse renders a role chunk, a content chunk per part, a finish chunk and
// [DONE], as OpenAI-compatible servers stream them.
func sse(id string, parts []string) [][]byte {
	chunk := func(delta, finish string) []byte {
		return fmt.Appendf(nil, "data: {\"id\":%q,\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n",
			id, delta, finish)
	}
	out := [][]byte{chunk(`{"role":"assistant","content":""}`, "null")}
	for _, p := range parts {
		out = append(out, chunk(fmt.Sprintf(`{"content":%q}`, p), "null"))
	}
	return append(out, chunk(`{}`, `"stop"`), []byte("data: [DONE]\n\n"))
}

// releaseIdle lets every held idle stream finish, and arms the next set.
func (u *benchUpstream) releaseIdle() {
	u.mu.Lock()
	defer u.mu.Unlock()
	close(u.release)
	u.release = make(chan struct{})
}

func (u *benchUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/create_task":
		u.calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		u.rt.arrived(body, arrivedAt(r)) // once read whole: its body's stamps are not the next request's
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
		return
	case "/v1/chat/completions":
	default:
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var evs [][]byte
	var hold chan struct{}
	switch {
	case bytes.Contains(body, []byte(modelIdle)):
		u.mu.Lock()
		hold = u.release
		u.mu.Unlock()
		evs = u.idleHead
	default:
		pick := &u.prose
		if bytes.Contains(body, []byte(modelCall)) {
			pick = &u.call1
			if bytes.Contains(body, []byte(`"role":"assistant"`)) {
				pick = &u.call2
			}
		}
		evs = *pick
		if bytes.Contains(body, []byte(`"include_usage":true`)) {
			evs = u.withUsage[pick]
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	f := w.(http.Flusher)
	pace := time.Duration(u.pace.Load())
	var timer *time.Timer
	if pace > 0 {
		timer = time.NewTimer(pace)
		defer timer.Stop()
	}
	write := func(evs [][]byte) bool {
		for i, ev := range evs {
			if pace > 0 && i > 0 {
				timer.Reset(pace)
				select {
				case <-timer.C:
				case <-r.Context().Done():
					return false
				}
			}
			if u.closeCall.head != nil && len(ev) > 0 && &ev[0] == &u.closeCall.head[0] {
				ev = u.rt.next(u.closeCall)
			}
			if _, err := w.Write(ev); err != nil {
				return false
			}
			f.Flush()
		}
		return true
	}
	if !write(evs) || hold == nil {
		return
	}
	select {
	case <-hold:
		write(u.idleTail)
	case <-r.Context().Done():
	}
}
