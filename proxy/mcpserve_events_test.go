package proxy_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/toolhost/store"
)

// TestMCPServeCancel: a client that cancels a slow call (the SDK sends
// notifications/cancelled) has the webhook's request cancelled.
func TestMCPServeCancel(t *testing.T) {
	for _, pv := range protocols {
		t.Run("protocol="+pv, func(t *testing.T) {
			e, db := newKeysEnv(t, mcpConfig(), nil, nil)
			hold := make(chan struct{})
			defer close(hold)
			e.hooks.answer("slow_task", hookAnswer{body: `{"done":true}`, wait: hold})
			cs := mcpConnect(t, e, appKey, pv, nil)
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow_task", Arguments: map[string]any{}})
				done <- err
			}()
			select {
			case <-e.hooks.arrivals:
			case <-time.After(10 * time.Second):
				t.Fatal("the webhook was not called")
			}
			cancel()
			select {
			case <-e.hooks.cancelled:
			case <-time.After(10 * time.Second):
				t.Fatal("the webhook's request was not cancelled")
			}
			if err := <-done; err == nil {
				t.Error("the cancelled call returned no error")
			}
			// The record is finished once the tool host has seen the cut.
			deadline := time.Now().Add(5 * time.Second)
			for {
				recs, _, _ := db.Calls(t.Context(), store.CallQuery{})
				if len(recs) == 1 && recs[0].Status != store.StatusStarted {
					if recs[0].Source != "mcp" {
						t.Errorf("audit record %+v", recs[0])
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("audit records %+v", recs)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestMCPServeListChanged: a tool registered at runtime through
// /admin/tools reaches connected sessions as list_changed, and is listed.
func TestMCPServeListChanged(t *testing.T) {
	for _, pv := range protocols {
		t.Run("protocol="+pv, func(t *testing.T) {
			e, _ := newKeysEnv(t, mcpConfig(), nil, nil)
			changed := make(chan struct{}, 10)
			cs := mcpConnect(t, e, plainKey, pv, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
					select {
					case changed <- struct{}{}:
					default:
					}
				},
			})
			scoped := mcpConnect(t, e, appKey, pv, nil)
			sessionToolNames(t, cs) // the session is in use before the change
			spec := `{"name":"rt_tool","description":"A runtime tool.","webhook":{"url":"` + e.hooks.srv.URL + `/rt_tool"}}`
			resp := e.do(t, http.MethodPost, "/admin/tools", spec, "Authorization: Bearer "+keysAdmin)
			if body := readAll(t, resp); resp.StatusCode != http.StatusCreated {
				t.Fatalf("register: %d %s", resp.StatusCode, body)
			}
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/tools/list_changed")
			}
			if names := sessionToolNames(t, cs); !slices.Contains(names, "rt_tool") {
				t.Errorf("after the registration: %v", names)
			}
			if names := sessionToolNames(t, scoped); slices.Contains(names, "rt_tool") {
				t.Errorf("a key scoped without it lists it: %v", names)
			}
			out, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "rt_tool", Arguments: map[string]any{}})
			if err != nil || out.IsError {
				t.Fatalf("calling the runtime tool: %v %+v", err, out)
			}
		})
	}
}

// TestMCPServeElicitation: a client that can answer elicitations is asked
// to approve a held call itself — in a session by an elicitation request
// of the server's, stateless in the call's input_required result, which
// the SDK's client answers and retries — and a decline denies it, on
// record as the key's decision.
func TestMCPServeElicitation(t *testing.T) {
	for _, pv := range protocols {
		t.Run("protocol="+pv, func(t *testing.T) { mcpElicitation(t, pv) })
	}
}

func mcpElicitation(t *testing.T, pv string) {
	e, db := newKeysEnv(t, mcpConfig(), nil, nil)
	asked := make(chan string, 1)
	cs := mcpConnect(t, e, appKey, pv, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- r.Params.Message
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	out, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "approve_task", Arguments: map[string]any{"id": "7"}})
	if err != nil {
		t.Fatal(err)
	}
	if msg := <-asked; !strings.Contains(msg, "approve_task") {
		t.Errorf("elicitation message %q", msg)
	}
	if !out.IsError || !strings.Contains(resultText(out), "DENIED") {
		t.Errorf("declined call: %+v %s", out, resultText(out))
	}
	if len(e.hooks.received()) != 0 {
		t.Error("a declined call ran")
	}
	list, err := db.Actions(t.Context(), store.ActionQuery{All: true})
	if err != nil || len(list) != 1 {
		t.Fatalf("actions %v %+v", err, list)
	}
	if a := list[0]; a.Status != store.ActionDenied || a.DecidedBy != "app" {
		t.Errorf("action %+v", a)
	}
}

// TestMCPServeKeys: a session belongs to the key that opened it — another
// key presenting its id gets 404 — and a PATCH of a key's scope applies
// to its open sessions, and its stateless clients, from their next
// request.
func TestMCPServeKeys(t *testing.T) {
	e, _ := newKeysEnv(t, mcpConfig(), nil, nil)
	code, created := e.jsonDo(t, http.MethodPost, "/admin/keys", `{"name":"alice","tools":["create_task","delete_task"]}`, keysAdmin)
	secret, _ := created["key"].(string)
	if code != http.StatusCreated || secret == "" {
		t.Fatalf("create: %d %v", code, created)
	}
	cs := mcpConnect(t, e, secret, "2025-11-25", nil)
	sl := mcpConnect(t, e, secret, "2026-07-28", nil)
	for _, c := range []*mcp.ClientSession{cs, sl} {
		if got := sessionToolNames(t, c); !slices.Equal(got, []string{"create_task", "delete_task"}) {
			t.Errorf("alice lists %v", got)
		}
	}

	list := `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`
	resp := e.do(t, http.MethodPost, "/mcp", list, "Authorization: Bearer "+plainKey, "Mcp-Session-Id: "+cs.ID(),
		"Accept: application/json, text/event-stream", "Mcp-Protocol-Version: 2025-11-25")
	if body := readAll(t, resp); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another key with alice's session: %d %s", resp.StatusCode, body)
	}

	if code, out := e.jsonDo(t, http.MethodPatch, "/admin/keys/alice", `{"tools":["create_task"]}`, keysAdmin); code != http.StatusOK {
		t.Fatalf("patch: %d %v", code, out)
	}
	if got := sessionToolNames(t, cs); !slices.Equal(got, []string{"create_task"}) {
		t.Errorf("after the PATCH alice lists %v", got)
	}
	// The stateless client's list is cached for its ttlMs: the call is
	// what must be refused.
	for _, c := range []*mcp.ClientSession{cs, sl} {
		if _, err := c.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete_task", Arguments: map[string]any{"id": "1"}}); err == nil || !strings.Contains(err.Error(), `unknown tool "delete_task"`) {
			t.Errorf("a tool the PATCH took away: %v", err)
		}
	}
	if n := len(e.hooks.received()); n != 0 {
		t.Errorf("the webhook was called %d times", n)
	}
}
