package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/mcpserve"
	"github.com/toolstream/toolstream/toolhost/store"
)

// statelessMeta is the _meta every request of the stateless revision
// carries (its protocol version, client and capabilities).
const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// rpcAnswer is one JSON-RPC answer, read from a JSON body or from the
// data line of an SSE stream.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// statelessPost sends one request of the stateless revision, as its
// transport page writes it: the body, and the MCP-Protocol-Version,
// Mcp-Method and Mcp-Name headers (given in headers, so that a test can
// leave one out or get it wrong).
func statelessPost(t *testing.T, e *env, key, body string, headers ...string) (*http.Response, rpcAnswer) {
	t.Helper()
	h := append([]string{"Authorization: Bearer " + key, "Accept: application/json, text/event-stream"}, headers...)
	// Every request here is answered at once: one that is held fails
	// the test rather than hang it.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	resp := e.doCtx(t, ctx, http.MethodPost, "/mcp", body, h...)
	raw := readAll(t, resp)
	var a rpcAnswer
	for sc := bufio.NewScanner(strings.NewReader(raw)); sc.Scan(); {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			raw = data
		}
	}
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		t.Fatalf("%d %s: %v", resp.StatusCode, raw, err)
	}
	return resp, a
}

// TestMCPServeStatelessWire: /mcp answers requests of the 2026-07-28
// revision built from its text, with no initialize: server/discover
// offers both revisions, tools/list carries its cache hints (private: the
// list is the key's), the Mcp-Method and Mcp-Name headers are checked
// against the body (HeaderMismatch, -32020), a session id is ignored and
// none is minted, and a version past the known ones is refused with the
// supported list.
func TestMCPServeStatelessWire(t *testing.T) {
	e, db := newKeysEnv(t, mcpConfig(), nil, nil)
	v := "MCP-Protocol-Version: 2026-07-28"

	resp, a := statelessPost(t, e.env, appKey, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+statelessMeta+`}}`, v, "Mcp-Method: server/discover")
	var disc struct {
		Versions []string `json:"supportedVersions"`
	}
	if json.Unmarshal(a.Result, &disc); resp.StatusCode != 200 || !slices.Contains(disc.Versions, "2026-07-28") || !slices.Contains(disc.Versions, "2025-11-25") {
		t.Errorf("server/discover: %d %s %+v", resp.StatusCode, a.Result, a.Error)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		t.Errorf("a stateless answer mints session %q", id)
	}

	_, a = statelessPost(t, e.env, appKey, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+statelessMeta+`}}`, v, "Mcp-Method: tools/list")
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		TTL        *int   `json:"ttlMs"`
		Scope      string `json:"cacheScope"`
		ResultType string `json:"resultType"`
	}
	if err := json.Unmarshal(a.Result, &list); err != nil || a.Error != nil {
		t.Fatalf("tools/list: %v %+v", err, a.Error)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"approve_task", "create_task", "slow_task"}) || list.TTL == nil ||
		*list.TTL != int(mcpserve.ListTTL/time.Millisecond) || list.Scope != "private" || list.ResultType != "complete" {
		t.Errorf("tools/list: %s", a.Result)
	}

	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_task","arguments":{"title":"milk"},` + statelessMeta + `}}`
	for _, tc := range []struct {
		name    string
		headers []string
	}{
		{"no Mcp-Name", []string{v, "Mcp-Method: tools/call"}},
		{"another Mcp-Name", []string{v, "Mcp-Method: tools/call", "Mcp-Name: delete_task"}},
		{"another Mcp-Method", []string{v, "Mcp-Method: tools/list", "Mcp-Name: create_task"}},
		{"no MCP-Protocol-Version", []string{"Mcp-Method: tools/call", "Mcp-Name: create_task"}},
	} {
		resp, a := statelessPost(t, e.env, appKey, call, tc.headers...)
		if resp.StatusCode != 400 || a.Error == nil || a.Error.Code != -32020 {
			t.Errorf("%s: %d %+v", tc.name, resp.StatusCode, a.Error)
		}
	}
	if n := len(e.hooks.received()); n != 0 {
		t.Fatalf("a refused call reached its webhook (%d)", n)
	}

	resp, a = statelessPost(t, e.env, appKey, call, v, "Mcp-Method: tools/call", "Mcp-Name: create_task", "Mcp-Session-Id: NOSUCHSESSION")
	if resp.StatusCode != 200 || a.Error != nil || !strings.Contains(string(a.Result), `\"ok\":true`) {
		t.Errorf("a call with a session id to ignore: %d %s %+v", resp.StatusCode, a.Result, a.Error)
	}
	if recs, _, err := db.Calls(t.Context(), store.CallQuery{}); err != nil || len(recs) != 1 || recs[0].Source != "mcp" || recs[0].KeyID != "app" {
		t.Errorf("audit: %v %+v", err, recs)
	}

	later := strings.ReplaceAll(call, "2026-07-28", "2099-01-01")
	resp, a = statelessPost(t, e.env, appKey, later, "MCP-Protocol-Version: 2099-01-01", "Mcp-Method: tools/call", "Mcp-Name: create_task")
	if resp.StatusCode != 400 || a.Error == nil || !strings.Contains(string(a.Error.Data), `"2026-07-28"`) {
		t.Errorf("an unknown later version: %d %+v", resp.StatusCode, a.Error)
	}
}

// TestMCPServeStatelessAsk: a held call of a stateless client that
// declares the elicitation capability is answered input_required, as the
// revision's multi round-trip requests have it: the approval question,
// and a requestState. The retry carries the answer; one with other
// arguments, or from another key, is refused and runs nothing; the right
// one approves the action on the key's behalf and runs the call, on
// record once.
func TestMCPServeStatelessAsk(t *testing.T) {
	e, db := newKeysEnv(t, mcpConfig(), nil, nil)
	withElicitation := strings.Replace(statelessMeta, `clientCapabilities":{}`, `clientCapabilities":{"elicitation":{}}`, 1)
	headers := []string{"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call", "Mcp-Name: approve_task"}
	call := func(key, args, retry string) (*http.Response, rpcAnswer) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"approve_task","arguments":` + args + retry + `,` + withElicitation + `}}`
		return statelessPost(t, e.env, key, body, headers...)
	}
	resp, a := call(appKey, `{"id":"7"}`, "")
	var asked struct {
		ResultType    string `json:"resultType"`
		RequestState  string `json:"requestState"`
		InputRequests map[string]struct {
			Method string `json:"method"`
			Params struct {
				Message string `json:"message"`
			} `json:"params"`
		} `json:"inputRequests"`
		Content []any `json:"content"`
	}
	if err := json.Unmarshal(a.Result, &asked); err != nil || resp.StatusCode != 200 {
		t.Fatalf("first call: %d %s %v", resp.StatusCode, a.Result, err)
	}
	q := asked.InputRequests["approval"]
	if asked.ResultType != "input_required" || asked.RequestState == "" || q.Method != "elicitation/create" ||
		!strings.Contains(q.Params.Message, "approve_task") || len(asked.Content) != 0 {
		t.Fatalf("first call: %s", a.Result)
	}
	if actions := pendingActions(t, e, db); len(actions) != 1 || actions[0].Tool != "approve_task" {
		t.Fatalf("pending %+v", actions)
	}

	accept := `,"inputResponses":{"approval":{"action":"accept"}},"requestState":"` + asked.RequestState + `"`
	for _, tc := range []struct{ name, key, args, retry string }{
		{"other arguments", appKey, `{"id":"8"}`, accept},
		{"another key", plainKey, `{"id":"7"}`, accept},
		{"a forged state", appKey, `{"id":"7"}`, strings.Replace(accept, asked.RequestState, asked.RequestState+"x", 1)},
	} {
		resp, a := call(tc.key, tc.args, tc.retry)
		if a.Error == nil || a.Error.Code != -32602 || !strings.Contains(a.Error.Message, "requestState") {
			t.Errorf("%s: %d %s %+v", tc.name, resp.StatusCode, a.Result, a.Error)
		}
	}
	if n := len(e.hooks.received()); n != 0 {
		t.Fatalf("a refused retry ran the tool (%d)", n)
	}

	// The same arguments, written another way, match.
	resp, a = call(appKey, `{ "id" : "7" }`, accept)
	if resp.StatusCode != 200 || a.Error != nil || !strings.Contains(string(a.Result), `\"ok\":true`) {
		t.Fatalf("the answered retry: %d %s %+v", resp.StatusCode, a.Result, a.Error)
	}
	if hooks := e.hooks.received(); len(hooks) != 1 || hooks[0].Tool != "approve_task" {
		t.Errorf("webhook got %+v", hooks)
	}
	list, err := db.Actions(t.Context(), store.ActionQuery{All: true})
	if err != nil || len(list) != 1 || list[0].Status != store.ActionApproved || list[0].DecidedBy != "app" {
		t.Errorf("actions %v %+v", err, list)
	}
	recs, _, err := db.Calls(t.Context(), store.CallQuery{})
	if err != nil || len(recs) != 1 || recs[0].Status != store.StatusOK || recs[0].Source != "mcp" {
		t.Errorf("audit %v %+v", err, recs)
	}
	resp, a = call(appKey, `{"id":"7"}`, accept)
	if a.Error != nil || !strings.Contains(string(a.Result), "isError") || len(e.hooks.received()) != 1 {
		t.Errorf("the same retry again: %d %s %+v (webhook calls %d)", resp.StatusCode, a.Result, a.Error, len(e.hooks.received()))
	}
}

// TestMCPServeListenCap: an open subscriptions/listen stream of the
// stateless revision holds one of the key's session places; past the
// cap, with every place busy, the next stream is refused with 429, and
// a place is given back when a stream closes.
func TestMCPServeListenCap(t *testing.T) {
	e := newTurnEnvWith(t, mcpConfig(), nil, func(o *proxy.Options) {
		o.MCPMaxSessions, o.MCPMaxSessionsPerKey = 10, 2
	})
	listen := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + statelessMeta + `}}`
	open := func() (*http.Response, context.CancelFunc) {
		t.Helper()
		ctx, cancel := context.WithCancel(t.Context())
		resp := e.doCtx(t, ctx, http.MethodPost, "/mcp", listen, "Authorization: Bearer "+appKey,
			"Accept: application/json, text/event-stream", "MCP-Protocol-Version: 2026-07-28", "Mcp-Method: subscriptions/listen")
		return resp, func() { cancel(); resp.Body.Close() }
	}
	r1, close1 := open()
	defer close1()
	r2, close2 := open()
	defer close2()
	if r1.StatusCode != 200 || r2.StatusCode != 200 {
		t.Fatalf("listen streams: %d %d", r1.StatusCode, r2.StatusCode)
	}
	r3, close3 := open()
	if r3.StatusCode != 429 {
		close3() // an open stream: its body never ends
		t.Fatalf("a third stream past the key's cap of 2: %d", r3.StatusCode)
	}
	if body := readAll(t, r3); !strings.Contains(body, "too many MCP sessions for this API key") {
		t.Errorf("the refusal: %s", body)
	}
	close3()
	close1()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r4, close4 := open()
		ok := r4.StatusCode == 200
		close4()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no place after a stream closed: %d", r4.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMCPServeStatelessAdminApproval: a call only an admin key may decide
// is never put to the client, stateless either: it is held with progress
// until an admin decides through /v1/actions.
func TestMCPServeStatelessAdminApproval(t *testing.T) {
	yaml := strings.Replace(mcpConfig(), "    approval: always\n", "    approval: admin\n", 1)
	e, db := newKeysEnv(t, yaml, nil, nil)
	progress := make(chan struct{}, 10)
	cs := mcpConnect(t, e, appKey, "2026-07-28", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the client was asked about an approval: admin call")
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- struct{}{}:
			default:
			}
		},
	})
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "approve_task", Arguments: map[string]any{"id": "7"}}
		p.SetProgressToken("tok")
		res, err := cs.CallTool(t.Context(), p)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case <-progress:
	case <-time.After(10 * time.Second):
		t.Fatal("no progress while the call waits")
	}
	actions := pendingActions(t, e, db)
	if len(actions) != 1 || actions[0].Approval != "admin" {
		t.Fatalf("pending %+v", actions)
	}
	resp := e.do(t, http.MethodPost, "/v1/actions/"+actions[0].ID+"/approve", "", "Authorization: Bearer "+keysAdmin)
	if body := readAll(t, resp); resp.StatusCode != 200 {
		t.Fatalf("approve: %d %s", resp.StatusCode, body)
	}
	select {
	case res := <-done:
		if res == nil || res.IsError {
			t.Errorf("approved call: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the approved call did not end")
	}
	if n := len(e.hooks.received()); n != 1 {
		t.Errorf("webhook called %d times", n)
	}
}
