package loop_test

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
)

// scripted is an in-memory upstream: round i yields rounds[i]; before
// yielding the event at index mark of round 0 it calls onMark.
type scripted struct {
	rounds [][]string
	mark   int
	onMark func()
	n      int
}

func (s *scripted) Open(ctx context.Context, body []byte) (loop.Stream, error) {
	r := s.rounds[s.n%len(s.rounds)]
	first := s.n%len(s.rounds) == 0
	s.n++
	return &scriptedStream{events: r, mark: s.mark, onMark: s.onMark, first: first}, nil
}

type scriptedStream struct {
	events []string
	mark   int
	onMark func()
	first  bool
}

func (s *scriptedStream) Events() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for i, ev := range s.events {
			if s.first && i == s.mark {
				s.onMark()
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func (s *scriptedStream) Close() error { return nil }

type discard struct{ loop.Ignore }

func (discard) Takes() loop.Takes { return loop.Takes{Chunks: true} }

func (discard) Raw([]byte) error { return nil }
func (discard) Done() error      { return nil }

func chunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
}

// BenchmarkBlockToWebhook measures the time from the upstream chunk that
// closes a tool block to the webhook receiving the call: detection, id,
// argument coercion and validation, signing, and the HTTP request on
// loopback. One op is one two-round turn; the metric is per call.
func BenchmarkBlockToWebhook(b *testing.B) {
	var closedAt atomic.Int64
	var lat latencies
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lat.add(time.Now().UnixNano() - closedAt.Load())
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":1}`))
	}))
	defer hook.Close()
	tool := config.DefaultToolEntry()
	tool.Name = "create_task"
	tool.Parameters = json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"},"priority":{"type":"integer"}},"required":["title"]}`)
	tool.Webhook = &config.Webhook{URL: hook.URL, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}
	host, err := toolhost.New([]config.Tool{tool}, toolhost.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer host.Close()

	up := &scripted{
		rounds: [][]string{
			{chunk(`{"role":"assistant","content":"Adding it. <tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym\", \"priority\": \"2\"}}"}`, ""),
				chunk(`{"content":"\n</tool_call>"}`, ""), chunk(`{}`, "stop"), "[DONE]"},
			{chunk(`{"role":"assistant","content":"Done."}`, ""), chunk(`{}`, "stop"), "[DONE]"},
		},
		mark:   1,
		onMark: func() { closedAt.Store(time.Now().UnixNano()) },
	}
	lc := config.Default().Loop
	lc.Keepalive = 0
	req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"add gym"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	var r loop.Runner
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		turn := &loop.Turn{Request: req, Upstream: up, UpstreamName: "mem", Format: "hermes", Tools: host.Tools(), Executor: host, Loop: lc}
		if _, err := r.Run(context.Background(), turn, discard{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	lat.report(b, "block-to-webhook")
}

// latencies collects one duration per op, for a mean and a p99.
type latencies struct {
	mu sync.Mutex
	ns []int64
}

func (l *latencies) add(ns int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ns = append(l.ns, ns)
}

func (l *latencies) report(b *testing.B, name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ns) == 0 {
		return
	}
	slices.Sort(l.ns)
	var sum int64
	for _, v := range l.ns {
		sum += v
	}
	b.ReportMetric(float64(sum)/float64(len(l.ns)), "ns/"+name)
	b.ReportMetric(float64(l.ns[len(l.ns)*99/100]), "p99-ns/"+name)
}

// repeat is an upstream of one round: the same chunk n times, then a
// finish.
type repeat struct {
	chunk string
	n     int
}

func (u *repeat) Open(ctx context.Context, body []byte) (loop.Stream, error) { return u, nil }
func (u *repeat) Close() error                                               { return nil }
func (u *repeat) Events() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for range u.n {
			if !yield(u.chunk, nil) {
				return
			}
		}
		if yield(chunk(`{}`, "stop"), nil) {
			yield("[DONE]", nil)
		}
	}
}

// BenchmarkToolTurnChunk is the per-chunk path of a turn with server tools
// (text mode) when the model writes prose: the upstream read on its own
// goroutine, the content through the detector, the chunk forwarded as it
// came. One op is one chunk.
func BenchmarkToolTurnChunk(b *testing.B) {
	tool := config.DefaultToolEntry()
	tool.Name = "create_task"
	tool.Webhook = &config.Webhook{URL: "http://127.0.0.1:1/unused"}
	host, err := toolhost.New([]config.Tool{tool}, toolhost.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer host.Close()
	req, _ := loop.ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	lc := config.Default().Loop
	lc.Keepalive = 0
	c := chunk(`{"content":" a token, or <b>two</b>"}`, "")
	up := &repeat{chunk: c, n: b.N}
	var r loop.Runner
	b.SetBytes(int64(len(c)))
	b.ReportAllocs()
	b.ResetTimer()
	turn := &loop.Turn{Request: req, Upstream: up, UpstreamName: "mem", Format: "hermes", Tools: host.Tools(), Executor: host, Loop: lc, Mode: config.ToolModeText}
	if _, err := r.Run(context.Background(), turn, discard{}); err != nil {
		b.Fatal(err)
	}
}

// openHook is an upstream that calls onOpen before each round it opens.
type openHook struct {
	loop.Upstream
	onOpen func()
}

func (o openHook) Open(ctx context.Context, body []byte) (loop.Stream, error) {
	o.onOpen()
	return o.Upstream.Open(ctx, body)
}

// BenchmarkResultToNextRound measures the time from the webhook answering
// to the next round's request being opened: reading the response, the
// result into the audit-free host's result, the tool.finished event, the
// feedback message and the next round's body. One op is one two-round
// turn; the metric is per call.
func BenchmarkResultToNextRound(b *testing.B) {
	var answeredAt atomic.Int64
	var lat latencies
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		answeredAt.Store(time.Now().UnixNano())
		w.Write([]byte(`{"id":1,"title":"Gym"}`))
	}))
	defer hook.Close()
	tool := config.DefaultToolEntry()
	tool.Name = "create_task"
	tool.Parameters = json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`)
	tool.Webhook = &config.Webhook{URL: hook.URL, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}
	host, err := toolhost.New([]config.Tool{tool}, toolhost.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer host.Close()
	rounds := &scripted{
		rounds: [][]string{
			{chunk(`{"role":"assistant","content":"<tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym\"}}\n</tool_call>"}`, ""), chunk(`{}`, "stop"), "[DONE]"},
			{chunk(`{"role":"assistant","content":"Done."}`, ""), chunk(`{}`, "stop"), "[DONE]"},
		},
		mark: -1,
	}
	opened := 0
	up := openHook{Upstream: rounds, onOpen: func() {
		if opened%2 == 1 { // the second round of a turn
			lat.add(time.Now().UnixNano() - answeredAt.Load())
		}
		opened++
	}}
	lc := config.Default().Loop
	lc.Keepalive = 0
	req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"add gym"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	var r loop.Runner
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		turn := &loop.Turn{Request: req, Upstream: up, UpstreamName: "mem", Format: "hermes", Tools: host.Tools(), Executor: host, Loop: lc}
		if _, err := r.Run(context.Background(), turn, discard{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	lat.report(b, "result-to-next-round")
}
