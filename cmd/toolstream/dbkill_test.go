package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// TestDatabaseKilledMidCall: PostgreSQL dies (an immediate shutdown)
// while a webhook holds a call. The call ends and the client gets its
// answer; once the database is back, the call's record says ok — not
// started for good — the webhook ran once, and the next turn of the
// conversation is stitched from the turn's record, due while the
// database was down.
func TestDatabaseKilledMidCall(t *testing.T) {
	c := pgtest.NewTestCluster(t)
	dsn := c.NewDB(t)
	var hits atomic.Int32
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		arrived <- struct{}{}
		<-release
		fmt.Fprint(w, `{"ok":true,"note":"RESULT-create_task"}`)
	}))
	t.Cleanup(hook.Close)
	up := upstreamtest.NewFunc(replicaScript())
	t.Cleanup(up.Close)
	p := startServe(t, replicaConfig(t, dsn, up.URL, hook.URL))

	s := openChat(t, p, `[{"role":"user","content":"add gym"}]`)
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the webhook never got the call")
	}
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	close(release)
	events := s.rest(t)
	if text := visibleText(t, events); !strings.Contains(text, "Done.") || !done(events) {
		t.Fatalf("client read %q (done %v); want the answer and [DONE]", text, done(events))
	}
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}

	var status string
	within(t, time.Minute, "the call's record finished once the database is back", func() bool {
		code, body := call(t, http.MethodGet, p.url+"/admin/calls", "sk-admin", "")
		var page struct {
			Data []struct {
				Status string `json:"status"`
			} `json:"data"`
		}
		if code != http.StatusOK || json.Unmarshal([]byte(body), &page) != nil || len(page.Data) != 1 {
			return false
		}
		status = page.Data[0].Status
		return status != "started"
	})
	if status != "ok" {
		t.Errorf("record status = %s, want ok", status)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("webhook requests = %d, want exactly 1", n)
	}

	// The turn's record for history stitching was due as the turn
	// ended, with the database down: the next turn still finds it.
	text := visibleText(t, events)
	history, _ := json.Marshal([]map[string]string{
		{"role": "user", "content": "add gym"},
		{"role": "assistant", "content": text},
		{"role": "user", "content": "and tomorrow?"},
	})
	var body string
	within(t, time.Minute, "the next turn stitched from the turn's record", func() bool {
		before := len(up.Requests())
		code, _ := call(t, http.MethodPost, p.url+"/v1/chat/completions", "sk-client",
			`{"model":"m","messages":`+string(history)+`}`)
		reqs := up.Requests()[before:]
		if code != http.StatusOK || len(reqs) == 0 {
			return false
		}
		body = string(reqs[0].Body)
		return strings.Contains(body, "RESULT-create_task")
	})
}
