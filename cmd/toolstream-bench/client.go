package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// streamResult is what one client read from one stream.
type streamResult struct {
	ttft     time.Duration // request sent → first byte of content
	duration time.Duration // request sent → the stream's end event
	maxGap   time.Duration // longest wait between two events
	chunks   int           // events with non-empty content
	bytes    int64         // bytes of the answer's body read
	err      error
}

// protocol is one of the routes a client sends the same turn through: the
// request it sends, and how it reads the answer's events. Every event's
// "data:" line is looked at; the others ("event:", comments, blank lines)
// only count as bytes.
type protocol struct {
	name string // how errors name the stream's end
	path string
	body func(model string) string
	// content says a data line carries a piece of visible text.
	content func(line []byte) bool
	// end says a data line is the stream's last event, the one that
	// makes it complete.
	end func(line []byte) bool
	// failed says a data line ends the stream as failed.
	failed func(line []byte) bool
}

var (
	contentKey   = []byte(`"content":"`)
	emptyContent = []byte(`"content":""`)
	doneLine     = []byte("data: [DONE]")

	respTextDelta = []byte(`data: {"type":"response.output_text.delta",`)
	respCompleted = []byte(`data: {"type":"response.completed",`)
	respFailed    = [][]byte{[]byte(`data: {"type":"response.failed",`), []byte(`data: {"type":"response.incomplete",`), []byte(`data: {"type":"error",`)}
	msgDelta      = []byte(`data: {"type":"content_block_delta",`)
	msgTextDelta  = []byte(`"delta":{"type":"text_delta","text":"`)
	msgStop       = []byte(`data: {"type":"message_stop"`)
	msgError      = []byte(`data: {"type":"error",`)
)

// The routes: chat completions, OpenAI's Responses API and Anthropic's
// Messages API, each asked for the same streamed turn.
var (
	chatProto = &protocol{
		name: "[DONE]",
		path: "/v1/chat/completions",
		body: func(model string) string {
			return `{"model":"` + model + `","stream":true,"messages":[{"role":"user","content":"add a task"}]}`
		},
		content: func(line []byte) bool {
			return bytes.Contains(line, contentKey) && !bytes.Contains(line, emptyContent)
		},
		end:    func(line []byte) bool { return bytes.HasPrefix(line, doneLine) },
		failed: func([]byte) bool { return false }, // an error chunk is followed by no [DONE]
	}
	// responsesProto sends what the openai SDK's responses.stream sends
	// for a string input; store is left to its default (true), as SDKs
	// leave it.
	responsesProto = &protocol{
		name: "response.completed",
		path: "/v1/responses",
		body: func(model string) string {
			return `{"model":"` + model + `","stream":true,"input":"add a task"}`
		},
		content: func(line []byte) bool { return bytes.HasPrefix(line, respTextDelta) },
		end:     func(line []byte) bool { return bytes.HasPrefix(line, respCompleted) },
		failed: func(line []byte) bool {
			for _, p := range respFailed {
				if bytes.HasPrefix(line, p) {
					return true
				}
			}
			return false
		},
	}
	messagesProto = &protocol{
		name: "message_stop",
		path: "/v1/messages",
		body: func(model string) string {
			return `{"model":"` + model + `","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"add a task"}]}`
		},
		content: func(line []byte) bool {
			return bytes.HasPrefix(line, msgDelta) && bytes.Contains(line, msgTextDelta)
		},
		end:    func(line []byte) bool { return bytes.HasPrefix(line, msgStop) },
		failed: func(line []byte) bool { return bytes.HasPrefix(line, msgError) },
	}
)

// newClient is the load generator's HTTP client: keep-alive connections,
// enough for every concurrent stream, no compression.
func newClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		DisableCompression:  true,
		IdleConnTimeout:     time.Minute,
	}}
}

// stream sends one streaming request to t in t's protocol and reads the
// answer line by line, to its end event: a stream counts as complete only
// once that is read. firstContent, when not nil, is called once the first
// content arrived; the stream is then read to its end as usual.
func stream(ctx context.Context, c *http.Client, t *target, firstContent func()) streamResult {
	p := t.proto
	if p == nil {
		p = chatProto
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url+p.path, strings.NewReader(p.body(t.model)))
	if err != nil {
		return streamResult{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	// toolstream's targets check it as a plain client key, so a run
	// measures the key lookup every real deployment does; the others
	// ignore it.
	req.Header.Set("Authorization", "Bearer "+benchKey)
	sent := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return streamResult{err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return streamResult{err: fmt.Errorf("status %d", resp.StatusCode)}
	}
	var r streamResult
	br := bufio.NewReaderSize(resp.Body, 16<<10)
	var last time.Time // the previous event's arrival; gaps are between events
	for {
		line, err := br.ReadSlice('\n')
		r.bytes += int64(len(line))
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				continue // a line longer than the buffer: keep reading it
			}
			r.err = fmt.Errorf("stream ended without %s: %w", p.name, err)
			return r
		}
		if !bytes.HasPrefix(line, []byte("data: ")) {
			continue
		}
		now := time.Now()
		if !last.IsZero() {
			r.maxGap = max(r.maxGap, now.Sub(last))
		}
		last = now
		switch {
		case p.end(line):
			r.duration = now.Sub(sent)
			return r
		case p.failed(line):
			r.err = fmt.Errorf("stream failed: %.200s", bytes.TrimSpace(line))
			return r
		case p.content(line):
			if r.chunks == 0 {
				r.ttft = now.Sub(sent)
				if firstContent != nil {
					firstContent()
				}
			}
			r.chunks++
		}
	}
}

// runLoad is one scenario's load: clients streams at once, each sending
// perClient streams one after another. Client i starts i×stagger after
// the first, so that a paced load reaches its steady state without every
// connection opening in the same instant.
func runLoad(ctx context.Context, c *http.Client, t *target, clients, perClient int, stagger time.Duration) []streamResult {
	results := make([]streamResult, clients*perClient)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			if stagger > 0 {
				select {
				case <-time.After(time.Duration(i) * stagger):
				case <-ctx.Done():
				}
			}
			for j := range perClient {
				results[i*perClient+j] = stream(ctx, c, t, nil)
			}
		})
	}
	wg.Wait()
	return results
}
