package proxy_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// hostedConfig binds web_search to search_web, which the app key may
// not use; web_fetch stays unbound.
const hostedConfig = `auth:
  keys:
    - ` + plainKey + `
    - name: app
      key: ` + appKey + `
      tools: [create_task]
  admin_keys: ["` + keysAdmin + `"]
loop:
  keepalive: 0s
upstreams:
  - name: up
    base_url: ${UPSTREAM}
    models: ["*"]
    tool_mode: text
    text_format: hermes
tools:
  - name: search_web
    parameters: {type: object, properties: {query: {type: string}}, required: [query]}
    webhook: {url: "${WEBHOOK}/search_web"}
  - name: create_task
    parameters: {type: object, properties: {title: {type: string}}}
    webhook: {url: "${WEBHOOK}/create_task"}
hosted_tools:
  web_search: search_web
`

const (
	msgsWebSearch = `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"go"}],"tools":[{"type":"web_search_20250305","name":"web_search"%s},{"type":"web_fetch_20250910","name":"web_fetch","allowed_domains":["a.com"]}]}`
	respWebSearch = `{"model":"m","stream":true,"store":false,"input":"go","tools":[{"type":"web_search_preview","user_location":{"type":"approximate"}}]}`
)

// TestHostedTurns: a hosted tool runs its bound tool, once per call, under
// the key's scope and the client's max_uses; a kind that cannot run is
// left out, logged, and never refused.
func TestHostedTurns(t *testing.T) {
	search := call("web_search", `{"query": "rent"}`)
	for _, tc := range []struct {
		name, path, body, key string
		rounds                []upstreamtest.Round
		// hooks are the webhook calls made, "tool query" each.
		hooks []string
		// taught says web_search was taught to the model; search_web
		// never is beside it.
		taught bool
		// client holds, in order, what the client must read.
		client []string
		// left are the left-out log lines' "what".
		left []string
	}{
		{name: "messages", path: "/v1/messages", body: strings.Replace(msgsWebSearch, "%s", "", 1), key: plainKey,
			rounds: []upstreamtest.Round{textRound("c1", search), textRound("c2", "Found it.")},
			hooks:  []string{"search_web rent"}, taught: true,
			client: []string{`"type":"server_tool_use","id":"srvtoolu_`, `"type":"web_search_tool_result"`, `"title":"Rent"`, "Found it.", `"server_tool_use":{"web_search_requests":1}`},
			left:   []string{"hosted tool web_fetch"}},
		{name: "responses", path: "/v1/responses", body: respWebSearch, key: plainKey,
			rounds: []upstreamtest.Round{textRound("c1", search), textRound("c2", "Found it.")},
			hooks:  []string{"search_web rent"}, taught: true,
			client: []string{`"type":"web_search_call","status":"in_progress","action":{"type":"search","query":"rent"}`, "response.web_search_call.searching", `"sources":[{"type":"url","url":"https://r.example"}]`, "Found it."},
			left:   []string{"hosted tool web_search.user_location"}},
		{name: "max_uses", path: "/v1/messages", body: strings.Replace(msgsWebSearch, "%s", `,"max_uses":1`, 1), key: plainKey,
			rounds: []upstreamtest.Round{textRound("c1", search, call("web_search", `{"query": "more"}`)), textRound("c2", "Done.")},
			hooks:  []string{"search_web rent"}, taught: true,
			client: []string{`"title":"Rent"`, `"error_code":"max_uses_exceeded"`, "Done."},
			left:   []string{"hosted tool web_fetch"}},
		{name: "outside the key's tools", path: "/v1/messages", body: strings.Replace(msgsWebSearch, "%s", "", 1), key: appKey,
			rounds: []upstreamtest.Round{textRound("c1", search), textRound("c2", "No search.")},
			client: []string{"No search."},
			left:   []string{"hosted tool web_search", "hosted tool web_fetch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &logRecords{}
			e, _ := newKeysEnv(t, hostedConfig, logs, tc.rounds)
			e.hooks.answer("search_web", hookAnswer{body: `[{"url":"https://r.example","title":"Rent","snippet":"Pay by the 1st."}]`})
			resp := e.do(t, http.MethodPost, tc.path, tc.body, "Authorization: Bearer "+tc.key)
			body := readAll(t, resp)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			rest := body
			for _, want := range tc.client {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("client did not read %s (in order) in\n%s", want, body)
				}
				rest = rest[i+len(want):]
			}
			var hooks []string
			for _, c := range e.hooks.received() {
				args, _ := c.Body["arguments"].(map[string]any)
				hooks = append(hooks, c.Tool+" "+args["query"].(string))
			}
			if diff := cmp.Diff(tc.hooks, hooks); diff != "" {
				t.Errorf("webhook calls (-want +got):\n%s", diff)
			}
			reqs := e.up.Requests()
			first := string(reqs[0].Body)
			if got := strings.Contains(first, `web_search`) && strings.Contains(first, "query"); got != tc.taught {
				t.Errorf("web_search taught = %v, want %v", got, tc.taught)
			}
			if strings.Contains(first, "search_web") {
				t.Errorf("the bound tool was taught beside its hosted tool")
			}
			if tc.hooks != nil && !strings.Contains(string(reqs[1].Body), `Pay by the 1st.`) {
				t.Errorf("the model did not read the whole result: %s", reqs[1].Body)
			}
			var left []string
			for _, r := range logs.find("left out of the request") {
				left = append(left, r["left_out"])
			}
			if diff := cmp.Diff(tc.left, left); diff != "" {
				t.Errorf("left out (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHostedAudit: the audit log files a hosted call under the bound tool.
func TestHostedAudit(t *testing.T) {
	e, _ := newKeysEnv(t, hostedConfig, nil, []upstreamtest.Round{textRound("c1", call("web_search", `{"query": "rent"}`)), textRound("c2", "ok")})
	resp := e.do(t, http.MethodPost, "/v1/messages", strings.Replace(msgsWebSearch, "%s", "", 1), "Authorization: Bearer "+plainKey)
	readAll(t, resp)
	resp = e.do(t, http.MethodGet, "/admin/calls", "", "Authorization: Bearer "+keysAdmin)
	var list struct {
		Data []struct {
			Tool      string          `json:"tool"`
			Arguments json.RawMessage `json:"arguments"`
			Source    string          `json:"source"`
		} `json:"data"`
	}
	if b := readAll(t, resp); json.Unmarshal([]byte(b), &list) != nil || len(list.Data) != 1 {
		t.Fatalf("audit: %s", b)
	}
	if c := list.Data[0]; c.Tool != "search_web" || string(c.Arguments) != `{"query":"rent"}` || c.Source != "messages" {
		t.Errorf("audit record %s %s %s, want search_web {\"query\":\"rent\"} messages", c.Tool, c.Arguments, c.Source)
	}
}

// TestHostedHistory: a hosted call's blocks or items sent back are read
// as the upstream first read them — the call and its whole result, from
// the stored turn or response — and, when nothing stored holds them, left
// out without refusing the conversation.
func TestHostedHistory(t *testing.T) {
	search := call("web_search", `{"query": "rent"}`)
	for _, tc := range []struct {
		name, path, first string
		// whole is what the answer, not streamed, must hold.
		whole []string
		// next builds the second request from the first answer.
		next func(answer map[string]any) string
	}{
		{"messages", "/v1/messages", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"go"}],"tools":[{"type":"web_search_20250305","name":"web_search"}]}`,
			[]string{`{"type":"server_tool_use","id":"srvtoolu_`, `"type":"web_search_tool_result"`, `"server_tool_use":{"web_search_requests":1}`},
			func(a map[string]any) string {
				b, _ := json.Marshal(map[string]any{"model": "m", "max_tokens": 100, "tools": []any{map[string]any{"type": "web_search_20250305", "name": "web_search"}},
					"messages": []any{map[string]any{"role": "user", "content": "go"}, map[string]any{"role": "assistant", "content": a["content"]}, map[string]any{"role": "user", "content": "thanks"}}})
				return string(b)
			}},
		{"responses", "/v1/responses", `{"model":"m","input":"go","tools":[{"type":"web_search"}]}`,
			[]string{`{"id":"ws_`, `"type":"web_search_call","status":"completed","action":{"type":"search","query":"rent","sources":[{"type":"url","url":"https://r.example"}]}}`},
			func(a map[string]any) string {
				input := append([]any{map[string]any{"role": "user", "content": "go"}}, a["output"].([]any)...)
				b, _ := json.Marshal(map[string]any{"model": "m", "store": false, "tools": []any{map[string]any{"type": "web_search"}},
					"input": append(input, map[string]any{"role": "user", "content": "thanks"})})
				return string(b)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rounds := []upstreamtest.Round{textRound("c1", "Searching.\n", search), textRound("c2", "Found it."), textRound("c3", "Welcome."), textRound("c4", "Welcome.")}
			e, _ := newKeysEnv(t, hostedConfig, nil, rounds)
			e.hooks.answer("search_web", hookAnswer{body: `[{"url":"https://r.example","title":"Rent","snippet":"Pay by the 1st."}]`})
			resp := e.do(t, http.MethodPost, tc.path, tc.first, "Authorization: Bearer "+plainKey)
			first := readAll(t, resp)
			var answer map[string]any
			if err := json.Unmarshal([]byte(first), &answer); err != nil {
				t.Fatal(err)
			}
			// Not streamed, the answer holds the hosted call in its form.
			for _, want := range tc.whole {
				if !strings.Contains(first, want) {
					t.Errorf("the answer has no %s: %s", want, first)
				}
			}
			next := tc.next(answer)
			resp = e.do(t, http.MethodPost, tc.path, next, "Authorization: Bearer "+plainKey)
			if body := readAll(t, resp); resp.StatusCode != http.StatusOK {
				t.Fatalf("sent back: %d %s", resp.StatusCode, body)
			}
			third := string(e.up.Requests()[2].Body)
			for _, want := range []string{`\"name\": \"web_search\"`, `Pay by the 1st.`, `Found it.`, `thanks`} {
				if !strings.Contains(third, want) {
					t.Errorf("the upstream did not read %s again: %s", want, third)
				}
			}
			// Nothing stored holds these ids: left out, the text kept.
			unknown := regexp.MustCompile(`(srvtoolu_|"ws_)`).ReplaceAllString(next, "${1}gone_")
			resp = e.do(t, http.MethodPost, tc.path, unknown, "Authorization: Bearer "+plainKey)
			if body := readAll(t, resp); resp.StatusCode != http.StatusOK {
				t.Fatalf("sent back, not stored: %d %s", resp.StatusCode, body)
			}
			fourth := string(e.up.Requests()[3].Body)
			if strings.Contains(fourth, `Pay by the 1st.`) || !strings.Contains(fourth, "Found it.") {
				t.Errorf("not stored: the upstream read %s", fourth)
			}
		})
	}
}

// TestHostedFetch: a bound web_fetch answers Messages with a
// web_fetch_tool_result whose document is the tool's whole result, and a
// failed fetch with the kind's error object.
func TestHostedFetch(t *testing.T) {
	cfg := strings.Replace(hostedConfig, "hosted_tools:\n", `  - name: fetch_page
    parameters: {type: object, properties: {url: {type: string}}, required: [url]}
    webhook: {url: "${WEBHOOK}/fetch_page"}
hosted_tools:
  web_fetch: fetch_page
`, 1)
	fetch := call("web_fetch", `{"url": "https://r.example/rent"}`)
	e, _ := newKeysEnv(t, cfg, nil, []upstreamtest.Round{textRound("c1", fetch), textRound("c2", fetch), textRound("c3", "Read it.")})
	e.hooks.answer("fetch_page", hookAnswer{body: `"Rent\nPay by the 1st."`})
	e.hooks.answer("fetch_page", hookAnswer{status: http.StatusServiceUnavailable, body: `{"error":"down"}`})
	resp := e.do(t, http.MethodPost, "/v1/messages", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"go"}],"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]}`, "Authorization: Bearer "+plainKey)
	body := readAll(t, resp)
	for _, want := range []string{
		`{"type":"server_tool_use","id":"srvtoolu_`,
		`{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_`,
		`"content":{"type":"web_fetch_result","url":"https://r.example/rent","content":{"type":"document","source":{"type":"text","media_type":"text/plain","data":"Rent\nPay by the 1st."},"title":"Rent"},"retrieved_at":null}}`,
		`"content":{"type":"web_fetch_tool_error","error_code":"unavailable"}`,
		`"server_tool_use":{"web_search_requests":0,"web_fetch_requests":2}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the answer has no %s:\n%s", want, body)
		}
	}
}

// TestHostedReload: hosted_tools follows a reload — a request after it
// that offers web_search gets the new binding, a request after a reload
// without it has web_search left out.
func TestHostedReload(t *testing.T) {
	rounds := []upstreamtest.Round{textRound("c1", "no search"), textRound("c2", "no search")}
	p := newParts(t, hostedConfig, rounds)
	w := wired(t, openStore(t, config.Storage{InMemory: true}, badger.Options{}))
	e := p.serve(t, w.Proxy(proxy.Options{}, p.host(t, w.Host(toolhost.Options{})), nil))
	body := strings.Replace(msgsWebSearch, "%s", "", 1)
	unbound := *p.cfg
	unbound.HostedTools = nil
	if err := e.proxy.Reload(&unbound); err != nil {
		t.Fatal(err)
	}
	readAll(t, e.do(t, http.MethodPost, "/v1/messages", body, "Authorization: Bearer "+plainKey))
	if err := e.proxy.Reload(p.cfg); err != nil {
		t.Fatal(err)
	}
	readAll(t, e.do(t, http.MethodPost, "/v1/messages", body, "Authorization: Bearer "+plainKey))
	reqs := e.up.Requests()
	for i, want := range []bool{false, true} {
		if got := strings.Contains(string(reqs[i].Body), "## web_search"); got != want {
			t.Errorf("request %d: web_search taught = %v, want %v", i+1, got, want)
		}
	}
}
