package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// outageStore fails every write while down, as a database that died
// does; reads still answer, for the test to look.
type outageStore struct {
	*badger.DB
	down atomic.Bool
	// turns counts the turn records written.
	turns atomic.Int32
}

func (o *outageStore) fail(op string) error {
	if o.down.Load() {
		return fmt.Errorf("%s: %w: connection refused", op, store.ErrUnavailable)
	}
	return nil
}

func (o *outageStore) FinishCall(ctx context.Context, rec store.CallRecord, ref *store.AttemptRef) error {
	if err := o.fail("finishing call"); err != nil {
		return err
	}
	return o.DB.FinishCall(ctx, rec, ref)
}

func (o *outageStore) RecordCall(ctx context.Context, rec store.CallRecord) error {
	if err := o.fail("recording call"); err != nil {
		return err
	}
	return o.DB.RecordCall(ctx, rec)
}

func (o *outageStore) SaveTurn(ctx context.Context, rec store.TurnRecord) error {
	if err := o.fail("saving turn"); err != nil {
		return err
	}
	err := o.DB.SaveTurn(ctx, rec)
	if err == nil {
		o.turns.Add(1)
	}
	return err
}

// outageEnv is a proxy whose storage dies while the webhook of its one
// tool (create_task) runs; the model calls it in text mode, answers
// "Done." once it has the result, and "Noted." to anything after.
func outageEnv(t *testing.T) (*env, *outageStore, *atomic.Int32) {
	t.Helper()
	db, err := badger.Open(config.Storage{InMemory: true}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	o := &outageStore{DB: db}
	var hits atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		o.down.Store(true) // the database dies while the tool runs
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"note":"RESULT-1"}`)
	}))
	t.Cleanup(hook.Close)
	call := "<tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym\"}}\n</tool_call>"
	up := upstreamtest.New(
		upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "Adding it. ", call)},
		upstreamtest.Round{Events: upstreamtest.Text("c2", "m", "Done.")},
		upstreamtest.Round{Events: upstreamtest.Text("c3", "m", "Noted.")},
	)
	cfg := config.Default()
	u := config.DefaultUpstreamEntry()
	u.Name, u.BaseURL, u.Models, u.ToolMode = "up", up.URL, config.Models("*"), "text"
	cfg.Upstreams = []config.Upstream{u}
	cfg.Tools = []config.Tool{{Name: "create_task", Webhook: &config.Webhook{URL: hook.URL}}}
	host, err := toolhost.New(cfg.Tools, toolhost.Options{Records: o, Instance: "inst_a"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	convs := store.NewConversations(o, time.Hour, nil)
	t.Cleanup(convs.Close)
	return serve(t, &cfg, up, proxy.Options{Tools: host, History: convs}), o, &hits
}

// TestProbeStorageOutageMidCall: the database dies while a call runs.
// The client still gets its answer and [DONE]; once the database is
// back, what was due meanwhile is written — the call's record is not
// left started, and the next turn is stitched from the turn's record —
// and the webhook ran once.
func TestProbeStorageOutageMidCall(t *testing.T) {
	for _, tc := range []struct {
		name string
		// after checks the store once it answers again; it may be
		// asked again until it holds.
		after func(t *testing.T, e *env, o *outageStore, text string) bool
	}{
		{"the call's record finishes", func(t *testing.T, e *env, o *outageStore, _ string) bool {
			recs, _, err := o.Calls(context.Background(), store.CallQuery{})
			return err == nil && len(recs) == 1 && recs[0].Status == store.StatusOK
		}},
		{"the next turn is stitched", func(t *testing.T, e *env, o *outageStore, text string) bool {
			if o.turns.Load() == 0 {
				return false
			}
			history, _ := json.Marshal([]map[string]string{
				{"role": "user", "content": "add gym"},
				{"role": "assistant", "content": text},
				{"role": "user", "content": "and tomorrow?"},
			})
			readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":`+string(history)+`}`))
			reqs := e.up.Requests()
			return len(reqs) == 3 && strings.Contains(string(reqs[2].Body), "RESULT-1")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, o, hits := outageEnv(t)
			body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions",
				`{"model":"m","stream":true,"messages":[{"role":"user","content":"add gym"}]}`))
			data := sseData(t, body)
			if len(data) == 0 || data[len(data)-1] != "[DONE]" || !strings.Contains(body, "Done.") {
				t.Fatalf("client read:\n%s\nwant the answer and [DONE]", body)
			}
			text := ""
			for _, d := range data {
				var c struct {
					Choices []struct {
						Delta struct{ Content string } `json:"delta"`
					} `json:"choices"`
				}
				if json.Unmarshal([]byte(d), &c) == nil && len(c.Choices) > 0 {
					text += c.Choices[0].Delta.Content
				}
			}
			o.down.Store(false)
			deadline := time.Now().Add(20 * time.Second)
			for !tc.after(t, e, o, text) {
				if time.Now().After(deadline) {
					t.Fatal("not within 20s of the database coming back")
				}
				time.Sleep(50 * time.Millisecond)
			}
			if n := hits.Load(); n != 1 {
				t.Errorf("webhook requests = %d, want 1", n)
			}
		})
	}
}
