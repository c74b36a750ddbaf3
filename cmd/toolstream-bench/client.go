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
	duration time.Duration // request sent → [DONE]
	maxGap   time.Duration // longest wait between two events
	chunks   int           // events with non-empty content
	err      error
}

var (
	contentKey   = []byte(`"content":"`)
	emptyContent = []byte(`"content":""`)
	doneLine     = []byte("data: [DONE]")
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

// stream sends one streaming request and reads the answer line by line.
// firstContent, when not nil, is called once the first content arrived;
// the stream is then read to its end as usual.
func stream(ctx context.Context, c *http.Client, url, model string, firstContent func()) streamResult {
	body := `{"model":"` + model + `","stream":true,"messages":[{"role":"user","content":"add a task"}]}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		return streamResult{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
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
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				continue // a line longer than the buffer: keep reading it
			}
			r.err = fmt.Errorf("stream ended without [DONE]: %w", err)
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
		if bytes.HasPrefix(line, doneLine) {
			r.duration = now.Sub(sent)
			return r
		}
		if bytes.Contains(line, contentKey) && !bytes.Contains(line, emptyContent) {
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
				results[i*perClient+j] = stream(ctx, c, t.url, t.model, nil)
			}
		})
	}
	wg.Wait()
	return results
}
