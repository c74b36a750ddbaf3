package proxy_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// plainConfig is a text-mode upstream "up" and no server tools.
const plainConfig = "loop:\n  keepalive: 0s\n" + textUpstream

// usageRound is a plain answer ending with the usage-only chunk an
// upstream sends when asked for usage.
func usageRound(id string, prompt, completion int) upstreamtest.Round {
	return upstreamtest.Round{Events: append(upstreamtest.Text(id, "m", "Hi", " there."), upstreamtest.Usage(id, "m", prompt, completion))}
}

// tokens reads toolstream_tokens_total for upstream "up" and key, both
// kinds; missing series read as -1.
func tokens(t *testing.T, e *env, key string) (prompt, completion float64) {
	t.Helper()
	fams := scrape(t, e)
	prompt, completion = -1, -1
	for _, m := range fams["toolstream_tokens_total"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["upstream"] != "up" || labels["key"] != key {
			continue
		}
		switch labels["kind"] {
		case "prompt":
			prompt = m.GetCounter().GetValue()
		case "completion":
			completion = m.GetCounter().GetValue()
		}
	}
	return prompt, completion
}

// TestTokensCounted: every route's turns count the tokens the upstream
// reported, in the metric and the turn's log line, whether or not the
// client asked for usage; a streaming chat client reads the usage chunk
// only when it asked. The key label and log attribute are the request's
// client key.
func TestTokensCounted(t *testing.T) {
	for _, tc := range []struct {
		name, path, body string
		// usageChunk says the client reads the usage-only chunk.
		usageChunk bool
	}{
		{name: "chat not asked", path: "/v1/chat/completions", body: chatBody},
		{name: "chat asked", path: "/v1/chat/completions", body: `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`, usageChunk: true},
		{name: "chat JSON relay", path: "/v1/chat/completions", body: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`},
		{name: "responses", path: "/v1/responses", body: `{"model":"m","stream":true,"input":"hi"}`},
		{name: "messages", path: "/v1/messages", body: messagesBody},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &logRecords{}
			e := newToolEnv(t, "auth:\n  keys: [\"sk-usage\"]\n"+plainConfig, []upstreamtest.Round{usageRound("c1", 21, 4)}, proxy.Options{Logger: slog.New(logs)})
			resp := e.do(t, http.MethodPost, tc.path, tc.body, "Authorization: Bearer sk-usage", "x-api-key: sk-usage")
			body := readAll(t, resp)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			if got := strings.Contains(body, `"choices":[]`); got != tc.usageChunk {
				t.Errorf("client read the usage chunk: %v, want %v\n%s", got, tc.usageChunk, body)
			}
			reqs := e.up.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d upstream requests, want 1", len(reqs))
			}
			if stream := strings.Contains(string(reqs[0].Body), `"stream":true`); stream && !strings.Contains(string(reqs[0].Body), `"include_usage":true`) {
				t.Errorf("a streaming round does not ask for usage: %s", reqs[0].Body)
			}
			lines := logs.find("turn")
			if len(lines) != 1 {
				t.Fatalf("%d turn lines, want 1", len(lines))
			}
			l := lines[0]
			key := l["key"]
			if key == "" {
				t.Errorf("the turn line names no key: %v", l)
			}
			if l["prompt_tokens"] != "21" || l["completion_tokens"] != "4" || l["usage"] != "" {
				t.Errorf("turn line prompt_tokens=%q completion_tokens=%q usage=%q, want 21 and 4", l["prompt_tokens"], l["completion_tokens"], l["usage"])
			}
			if p, c := tokens(t, e.env, key); p != 21 || c != 4 {
				t.Errorf("toolstream_tokens_total{key=%q} prompt %v completion %v, want 21 and 4", key, p, c)
			}
		})
	}
}

// TestTokensToolTurnSums: a turn of two rounds counts both; the client,
// which did not ask, reads no usage chunk.
func TestTokensToolTurnSums(t *testing.T) {
	rounds := toolRounds()
	rounds[0].Events = append(rounds[0].Events, upstreamtest.Usage("u1", "m", 100, 12))
	rounds[1].Events = append(rounds[1].Events, upstreamtest.Usage("u2", "m", 140, 6))
	logs := &logRecords{}
	e := newToolEnv(t, turnConfig(""), rounds, proxy.Options{Logger: slog.New(logs)})
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", chatBody))
	if strings.Contains(body, `"usage"`) {
		t.Errorf("the client did not ask, yet read usage:\n%s", body)
	}
	for i, r := range e.up.Requests() {
		if !strings.Contains(string(r.Body), `"include_usage":true`) {
			t.Errorf("round %d does not ask for usage", i+1)
		}
	}
	if l := logs.find("turn"); len(l) != 1 || l[0]["prompt_tokens"] != "240" || l[0]["completion_tokens"] != "18" {
		t.Errorf("turn lines %v, want prompt_tokens=240 completion_tokens=18", l)
	}
	if p, c := tokens(t, e.env, ""); p != 240 || c != 18 {
		t.Errorf("toolstream_tokens_total prompt %v completion %v, want 240 and 18", p, c)
	}
}

// TestTokensRefusingUpstream: an upstream that refuses stream_options
// answers the first round 400; the proxy sends it once more without them,
// and asks no more in the next turn. Both turns succeed, log
// usage=unknown and count no tokens.
func TestTokensRefusingUpstream(t *testing.T) {
	refusal := upstreamtest.Round{Status: http.StatusBadRequest,
		Body: `{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error","param":null,"code":null}}`}
	logs := &logRecords{}
	e := newToolEnv(t, plainConfig, []upstreamtest.Round{refusal, textRound("c1", "Hi."), textRound("c2", "Again.")}, proxy.Options{Logger: slog.New(logs)})
	for i := range 2 {
		resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
		if body := readAll(t, resp); resp.StatusCode != http.StatusOK || !strings.Contains(body, "[DONE]") {
			t.Fatalf("turn %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
	var asked []bool
	for _, r := range e.up.Requests() {
		asked = append(asked, strings.Contains(string(r.Body), "stream_options"))
	}
	if want := []bool{true, false, false}; !slices.Equal(asked, want) {
		t.Errorf("requests carried stream_options %v, want %v (asked, resent without, not asked)", asked, want)
	}
	lines := logs.find("turn")
	if len(lines) != 2 {
		t.Fatalf("%d turn lines, want 2", len(lines))
	}
	for i, l := range lines {
		if l["usage"] != "unknown" || l["prompt_tokens"] != "" || l["status"] != "ok" {
			t.Errorf("turn %d line %v, want status ok and usage=unknown", i+1, l)
		}
	}
	if n := len(logs.find("upstream refuses stream_options; its usage is not asked for any more, and its turns' usage is unknown")); n != 1 {
		t.Errorf("%d warnings about the refusal, want 1", n)
	}
	if p, c := tokens(t, e.env, ""); p != -1 || c != -1 {
		t.Errorf("tokens counted (%v, %v) for turns whose usage is unknown", p, c)
	}
}

// TestTokensJSONRelayBody: the JSON relay counts the answer's usage and
// still relays it byte for byte.
func TestTokensJSONRelayBody(t *testing.T) {
	r := usageRound("c1", 8, 2)
	e := newToolEnv(t, plainConfig, []upstreamtest.Round{r}, proxy.Options{})
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	body := readAll(t, resp)
	if want := upstreamtest.Completion(r.Events); body != want {
		t.Errorf("client read\n%s\nwant the upstream's answer\n%s", body, want)
	}
	var sent map[string]json.RawMessage
	if err := json.Unmarshal(e.up.Requests()[0].Body, &sent); err != nil {
		t.Fatal(err)
	}
	if _, ok := sent["stream_options"]; ok {
		t.Error("a non-streaming request got stream_options, which upstreams refuse without stream")
	}
	if p, c := tokens(t, e.env, ""); p != 8 || c != 2 {
		t.Errorf("toolstream_tokens_total prompt %v completion %v, want 8 and 2", p, c)
	}
}
