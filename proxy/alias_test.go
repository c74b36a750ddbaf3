package proxy_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// aliasConfig routes gpt-* as it is and renames "fast" to qwen2.5:7b.
const aliasConfig = `loop:
  keepalive: 0s
upstreams:
  - name: up
    base_url: ${UPSTREAM}
    models: ["gpt-*", {name: fast, model: "qwen2.5:7b"}]
    tool_mode: text
    text_format: hermes
tools:
  - name: create_task
    webhook: {url: "${WEBHOOK}/create_task"}
`

// TestModelAliases: a client asking for an alias is served by the model it
// stands for, in every round, and reads the alias back in every chunk and
// answer — on each path a request can take through the proxy. A pattern
// entry still passes its model through unchanged.
func TestModelAliases(t *testing.T) {
	// The upstream names its real model in what it sends back.
	toolTurn := []upstreamtest.Round{
		{Events: upstreamtest.Text("c1", "qwen2.5:7b", "On it. ", call("create_task", `{"title":"Gym"}`))},
		{Events: upstreamtest.Text("c2", "qwen2.5:7b", "Added.")},
	}
	plain := []upstreamtest.Round{{Events: upstreamtest.Text("c1", "qwen2.5:7b", "Hi.")}}
	for _, tc := range []struct {
		name     string
		body     string
		rounds   []upstreamtest.Round
		upstream string // the model every upstream request must name
		client   string // the model every chunk or answer must name
	}{
		{"stream with a tool round", `{"model":"fast","stream":true,"messages":[{"role":"user","content":"add gym"}]}`, toolTurn, "qwen2.5:7b", "fast"},
		{"no stream with a tool round", `{"model":"fast","messages":[{"role":"user","content":"add gym"}]}`, toolTurn, "qwen2.5:7b", "fast"},
		{"no stream relayed", `{"model":"fast","tool_choice":"none","messages":[{"role":"user","content":"hi"}]}`, plain, "qwen2.5:7b", "fast"},
		{"stream relayed", `{"model":"fast","tool_choice":"none","stream":true,"messages":[{"role":"user","content":"hi"}]}`, plain, "qwen2.5:7b", "fast"},
		{"a pattern passes through", `{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}`, plain, "gpt-4o", "gpt-4o"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTurnEnv(t, aliasConfig, tc.rounds)
			resp := e.do(t, http.MethodPost, "/v1/chat/completions", tc.body)
			body := readAll(t, resp)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			reqs := e.up.Requests()
			if len(reqs) == 0 {
				t.Fatal("the upstream saw no request")
			}
			for i, r := range reqs {
				if got := fastjson.GetString(r.Body, "model"); got != tc.upstream {
					t.Errorf("upstream request %d asked for %q, want %q", i+1, got, tc.upstream)
				}
			}
			answers := []string{body}
			if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				answers = nil
				for _, d := range sseData(t, body) {
					if d != "[DONE]" && !strings.Contains(d, `"event"`) {
						answers = append(answers, d)
					}
				}
			}
			for _, a := range answers {
				var env struct{ Model string }
				if err := json.Unmarshal([]byte(a), &env); err != nil {
					t.Fatalf("%v: %s", err, a)
				}
				if env.Model != tc.client {
					t.Errorf("the client read model %q, want %q: %s", env.Model, tc.client, a)
				}
			}
		})
	}
}

// TestModelsListsAliases: GET /v1/models lists an alias by the name
// clients use, not the model behind it.
func TestModelsListsAliases(t *testing.T) {
	e := newTurnEnv(t, aliasConfig, nil)
	e.up.SetModels("qwen2.5:7b", "gpt-4o")
	body := readAll(t, e.do(t, http.MethodGet, "/v1/models", ""))
	var list struct{ Data []struct{ ID string } }
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, ",") != "fast,gpt-4o" {
		t.Errorf("listed %v, want [fast gpt-4o]", ids)
	}
}
