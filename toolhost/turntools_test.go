package toolhost_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// echoSecret is a request-named server's tool that repeats the token it
// was sent, as a careless server prints its request.
type echoSecret struct{ token string }

func (e echoSecret) Execute(_ context.Context, _ toolhost.Call, args json.RawMessage) toolhost.Outcome {
	return toolhost.Outcome{Content: "sent with " + e.token + ", args " + string(args)}
}

func (e echoSecret) Secrets() []string { return []string{e.token} }

// recordedTurnHost is a host without tools whose records go to an
// in-memory store.
func recordedTurnHost(t *testing.T) (*toolhost.Host, store.Store) {
	t.Helper()
	backend, err := badger.Open(config.Storage{InMemory: true}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := store.Checked(backend)
	t.Cleanup(func() { db.Close() })
	return newHost(t, nil, toolhost.Options{Records: db, Instance: "inst_now"}), db
}

// TestTurnTools: a tool a request brought runs through Execute like a
// registered one — its schema coerces the arguments, its result is masked
// against the credentials its server was sent, the audit record names the
// server's label — for the turn whose Origin holds it only.
func TestTurnTools(t *testing.T) {
	const token = "tok-REQUEST-91f3"
	h, db := recordedTurnHost(t)
	tt, err := h.TurnTools([]toolhost.Registration{{
		Tool: toolhost.Tool{Name: "lookup", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
			Source: toolhost.SourceRequestPrefix + "docs"},
		Exec: echoSecret{token},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tt.Tools(); len(got) != 1 || got[0].Name != "lookup" {
		t.Fatalf("Tools = %+v", got)
	}
	origin := &toolhost.Origin{KeyID: "key_1", Source: "responses", Tools: tt}
	tests := []struct {
		name     string
		origin   *toolhost.Origin
		args     string
		wantCode string
		want     string
	}{
		{"runs, coerced and masked", origin, `{"n":"7"}`, "", `sent with [redacted], args {"n":7}`},
		{"validated by its schema", origin, `{}`, toolhost.CodeMissingParameter, ""},
		{"not another turn's", &toolhost.Origin{KeyID: "key_1", Source: "responses"}, `{"n":1}`, toolhost.CodeToolNotFound, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := execute(t, h, toolhost.Call{ID: "call_" + tc.name[:3], Name: "lookup", Arguments: json.RawMessage(tc.args), TurnID: "turn_1", Origin: tc.origin})
			switch {
			case tc.wantCode != "" && (res.Err == nil || res.Err.Code != tc.wantCode):
				t.Fatalf("result = %+v, want %s", res, tc.wantCode)
			case tc.wantCode == "" && (res.Err != nil || res.Content != tc.want):
				t.Fatalf("result = %+v %v, want content %q", res, res.Err, tc.want)
			}
		})
	}
	recs, _, err := db.Calls(context.Background(), store.CallQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]string{}
	for _, r := range recs {
		b, _ := json.Marshal(r)
		if strings.Contains(string(b), token) {
			t.Errorf("the token reached the audit log: %s", b)
		}
		servers[r.CallID] = r.MCPServer
	}
	if servers["call_run"] != "docs" || servers["call_val"] != "docs" || servers["call_not"] != "" {
		t.Errorf("mcp_server of the records = %v, want docs for the turn's calls only", servers)
	}
}

// TestTurnToolsApproval: a request's require_approval (Origin.Require)
// holds a turn tool's call, and in a parked turn ends it awaiting.
func TestTurnToolsApproval(t *testing.T) {
	h, db := recordedTurnHost(t)
	tt, err := h.TurnTools([]toolhost.Registration{{Tool: toolhost.Tool{Name: "lookup", Source: toolhost.SourceRequestPrefix + "docs"}, Exec: echoSecret{"x-token-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	origin := &toolhost.Origin{Source: "responses", Tools: tt, Require: map[string]bool{"lookup": true}, Park: true}
	res := execute(t, h, toolhost.Call{ID: "call_1", Name: "lookup", Arguments: json.RawMessage(`{}`), TurnID: "turn_1", Origin: origin})
	if res.Status != toolhost.StatusAwaiting {
		t.Fatalf("result = %+v, want it parked awaiting a decision", res)
	}
	pending, err := db.Actions(t.Context(), store.ActionQuery{All: true, Status: store.ActionPending})
	if err != nil || len(pending) != 1 || pending[0].Tool != "lookup" {
		t.Fatalf("pending actions %+v (%v), want lookup's", pending, err)
	}
	if rec, ok, _ := db.Call(t.Context(), pending[0].AuditID); !ok || rec.MCPServer != "docs" {
		t.Errorf("audit record %+v, want mcp_server docs", rec)
	}
}

func TestTurnToolsDuplicate(t *testing.T) {
	h := newHost(t, nil, toolhost.Options{})
	reg := toolhost.Registration{Tool: toolhost.Tool{Name: "a"}, Exec: echoSecret{"t"}}
	if _, err := h.TurnTools([]toolhost.Registration{reg, reg}); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("err = %v, want the duplicate named", err)
	}
}

// TestTurnToolsApproveEdited: an approver's edit of a waiting turn tool's
// call is checked by that tool's schema, and the call runs with it.
func TestTurnToolsApproveEdited(t *testing.T) {
	h, db := recordedTurnHost(t)
	tt, err := h.TurnTools([]toolhost.Registration{{Tool: toolhost.Tool{Name: "lookup", Source: toolhost.SourceRequestPrefix + "docs",
		Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}, Exec: echoSecret{"x-token-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	origin := &toolhost.Origin{Source: "messages", Tools: tt, Require: map[string]bool{"lookup": true}}
	done := make(chan toolhost.Result, 1)
	go func() {
		res, _ := h.Execute(t.Context(), toolhost.Call{ID: "call_1", Name: "lookup", Arguments: json.RawMessage(`{"n":1}`), TurnID: "turn_1", Origin: origin})
		done <- res
	}()
	var id string
	for id == "" {
		pending, err := db.Actions(t.Context(), store.ActionQuery{All: true, Status: store.ActionPending})
		if err != nil {
			t.Fatal(err)
		}
		if len(pending) == 1 {
			id = pending[0].ID
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := h.ApproveEdited(t.Context(), id, toolhost.Decider{Admin: true}, json.RawMessage(`{"n":"two"}`)); err == nil {
		t.Fatal("an edit the schema refuses was taken")
	}
	if _, err := h.ApproveEdited(t.Context(), id, toolhost.Decider{Admin: true}, json.RawMessage(`{"n":"2"}`)); err != nil {
		t.Fatal(err)
	}
	if res := <-done; !strings.Contains(res.Content, `args {"n":2}`) {
		t.Errorf("result %+v, want the call run with the edit", res)
	}
}
