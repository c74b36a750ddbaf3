package toolhost_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// replicas are two hosts on one store, as two processes on one shared
// database: what either changes reaches the other only through the
// store's change feed.
func replicas(t *testing.T, tools []config.Tool) (a, b *toolhost.Host, db store.Store) {
	t.Helper()
	dbBackend, err := badger.Open(config.Storage{InMemory: true}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db = store.Checked(dbBackend)
	t.Cleanup(func() { db.Close() })
	hosts := make([]*toolhost.Host, 2)
	for i, inst := range []string{"inst_a", "inst_b"} {
		h := newHost(t, tools, toolhost.Options{Records: db, ToolStore: db, Instance: inst, WebhookAllow: []string{"127.0.0.1"}})
		if err := h.LoadRuntimeTools(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(h.Follow(db))
		hosts[i] = h
	}
	return hosts[0], hosts[1], db
}

// eventually polls cond for up to a second, the bound runtime changes
// have to reach every replica.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within a second", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFollowRuntimeTools: a runtime tool created, replaced and deleted on
// one host is registered, replaced and removed on the other, whose
// watchers (the /mcp list_changed) hear of each.
func TestFollowRuntimeTools(t *testing.T) {
	a, b, _ := replicas(t, []config.Tool{weatherTool("http://127.0.0.1:9/")})
	var heard atomic.Int32
	t.Cleanup(b.Watch(func() { heard.Add(1) }))

	spec := lookupSpec("http://127.0.0.1:9/lookup")
	if _, err := a.CreateRuntimeTool(t.Context(), json.RawMessage(spec)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "lookup registered on b", func() bool { return slices.Contains(b.Names(), "lookup") })
	if tool, _ := b.Lookup("lookup"); tool.Source != toolhost.SourceRuntime {
		t.Errorf("b's lookup source = %q, want runtime", tool.Source)
	}

	replaced := `{"name":"lookup","description":"Looks it up, slowly.","webhook":{"url":"http://127.0.0.1:9/v2","timeout":"9s"}}`
	if _, _, err := a.PutRuntimeTool(t.Context(), "lookup", json.RawMessage(replaced)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "lookup replaced on b", func() bool {
		ct, ok := b.RuntimeTool("lookup")
		return ok && ct.Webhook.Timeout == 9*time.Second
	})

	if err := a.DeleteRuntimeTool(t.Context(), "lookup"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "lookup removed on b", func() bool { return !slices.Contains(b.Names(), "lookup") })
	if n := heard.Load(); n < 3 {
		t.Errorf("b's watchers heard %d changes, want 3 (created, replaced, deleted)", n)
	}
	if got := a.Names(); !slices.Equal(got, []string{"get_weather"}) {
		t.Errorf("a's tools = %v, want get_weather only", got)
	}
}

// TestFollowApproval: a call waiting for approval on host a is released
// by a decision made on host b, which holds no waiter for it.
func TestFollowApproval(t *testing.T) {
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"temp":21}`))
	})
	tool := weatherTool(srv.URL)
	tool.Approval = toolhost.ApprovalAlways
	a, b, db := replicas(t, []config.Tool{tool})

	done := make(chan toolhost.Result, 1)
	go func() {
		res, _ := a.Execute(t.Context(), weatherCall(`{"city":"Oslo"}`))
		done <- res
	}()
	var pending []store.Action
	eventually(t, "the action pending", func() bool {
		pending, _ = db.Actions(t.Context(), store.ActionQuery{All: true, Status: store.ActionPending})
		return len(pending) == 1
	})
	start := time.Now()
	if _, err := b.Decide(t.Context(), pending[0].ID, true, toolhost.Decider{Admin: true}, ""); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.Err != nil || hits.Load() != 1 {
			t.Fatalf("result %+v, webhook hits %d; want the call run once", res.Err, hits.Load())
		}
		t.Logf("released %v after the decision", time.Since(start))
	case <-time.After(5 * time.Second):
		t.Fatal("the decision on b did not release the call waiting on a")
	}
}
