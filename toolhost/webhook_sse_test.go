package toolhost_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// progressLog is a call's listener that keeps the progress it hears.
type progressLog struct {
	mu      sync.Mutex
	updates []toolhost.ProgressUpdate
}

func (p *progressLog) ApprovalRequested(toolhost.Call, store.Action) {}
func (p *progressLog) ApprovalResolved(toolhost.Call, store.Action)  {}
func (p *progressLog) ToolProgress(_ toolhost.Call, u toolhost.ProgressUpdate) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.updates = append(p.updates, u)
}

// sseWebhook answers with body as an event stream, flushed event by event.
func sseWebhook(t *testing.T, events ...string) *config.Tool {
	t.Helper()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range events {
			fmt.Fprint(w, ev)
			w.(http.Flusher).Flush()
		}
	})
	tool := weatherTool(srv.URL)
	return &tool
}

func runSSE(t *testing.T, tool *config.Tool) (toolhost.Result, []toolhost.ProgressUpdate) {
	t.Helper()
	h := newHost(t, []config.Tool{*tool}, toolhost.Options{})
	log := &progressLog{}
	call := weatherCall(`{"city":"Paris"}`)
	call.Progress = log
	res := execute(t, h, call)
	return res, log.updates
}

func TestWebhookEventStream(t *testing.T) {
	t.Run("progress then result", func(t *testing.T) {
		res, updates := runSSE(t, sseWebhook(t,
			"event: progress\ndata: {\"progress\":1,\"total\":3,\"message\":\"looking\"}\n\n",
			": a comment\n\nevent: progress\ndata: {\"progress\":2}\n\n",
			"event: progress\ndata: not json\n\n",
			"event: result\ndata: {\"temp_c\": 21}\n\n",
			"event: progress\ndata: {\"progress\":9}\n\n"))
		if res.Status != toolhost.StatusOK || res.Content != `{"temp_c":21}` || !res.IsJSON {
			t.Errorf("result %+v", res)
		}
		want := []toolhost.ProgressUpdate{{Progress: 1, Total: 3, Message: "looking"}, {Progress: 2}}
		if diff := cmp.Diff(want, updates); diff != "" {
			t.Errorf("progress (-want +got):\n%s", diff)
		}
	})
	t.Run("text result", func(t *testing.T) {
		res, _ := runSSE(t, sseWebhook(t, "event: result\ndata: line one\ndata: line two\n\n"))
		if res.Status != toolhost.StatusOK || res.Content != "line one\nline two" || res.IsJSON {
			t.Errorf("result %+v", res)
		}
	})
	t.Run("error event", func(t *testing.T) {
		res, _ := runSSE(t, sseWebhook(t, "event: progress\ndata: {\"progress\":1}\n\n", "event: error\ndata: {\"message\":\"the city is unknown\"}\n\n"))
		if res.Err == nil || res.Err.Code != toolhost.CodeExecutionFailed || !strings.Contains(res.Err.Message, "the city is unknown") {
			t.Errorf("result %+v", res)
		}
	})
	t.Run("no result", func(t *testing.T) {
		res, updates := runSSE(t, sseWebhook(t, "event: progress\ndata: {\"progress\":1}\n\n", "event: result\ndata: {\"cut\":"))
		if res.Err == nil || res.Err.Code != toolhost.CodeExecutionFailed || !strings.Contains(res.Err.Message, "without a result") {
			t.Errorf("result %+v", res)
		}
		if len(updates) != 1 {
			t.Errorf("progress %v", updates)
		}
	})
	t.Run("oversize result", func(t *testing.T) {
		tool := sseWebhook(t, "event: result\ndata: "+strings.Repeat("é", 100)+"\n\n")
		tool.MaxResultBytes = 51
		res, _ := runSSE(t, tool)
		if res.Status != toolhost.StatusOK || !res.Truncated || !strings.HasPrefix(res.Content, strings.Repeat("é", 25)+"\n[toolstream: result truncated at 50 bytes") {
			t.Errorf("result %+v", res)
		}
	})
}

// TestWebhookEventStreamTimeout: a stream that keeps sending progress is
// still held to the tool's timeout, and a client that leaves cancels it.
func TestWebhookEventStreamTimeout(t *testing.T) {
	stall := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; ; i++ {
			fmt.Fprintf(w, "event: progress\ndata: {\"progress\":%d}\n\n", i)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	t.Run("timeout", func(t *testing.T) {
		tool := weatherTool(serve(t, stall).URL)
		tool.Webhook.Timeout = 100 * time.Millisecond
		res, updates := runSSE(t, &tool)
		if res.Err == nil || res.Err.Code != toolhost.CodeTimeout {
			t.Errorf("result %+v", res)
		}
		if len(updates) == 0 {
			t.Error("no progress before the timeout")
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		h := newHost(t, []config.Tool{weatherTool(serve(t, stall).URL)}, toolhost.Options{})
		log := &progressLog{}
		call := weatherCall(`{"city":"Paris"}`)
		call.Progress = log
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(100*time.Millisecond, cancel)
		res, err := h.Execute(ctx, call)
		if !errors.Is(err, context.Canceled) || res.Status != toolhost.StatusCancelled {
			t.Errorf("result %+v, err %v", res, err)
		}
	})
}
