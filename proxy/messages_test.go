package proxy_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// anthropicErr is Anthropic's error body; decodeAnthropic refuses any
// other shape, OpenAI's included.
type anthropicErr struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeAnthropic(t *testing.T, body string) anthropicErr {
	t.Helper()
	var e anthropicErr
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || e.Type != "error" || e.Error.Type == "" || e.Error.Message == "" {
		t.Fatalf("body is not Anthropic's error shape (%v):\n%s", err, body)
	}
	return e
}

const messagesBody = `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`

// TestMessagesErrors: every error of the route, whoever finds it — the key
// middleware, the body limit, the request mapping, routing, the upstream —
// has Anthropic's shape and a status Anthropic answers with.
func TestMessagesErrors(t *testing.T) {
	times := func(n int, r upstreamtest.Round) []upstreamtest.Round {
		var out []upstreamtest.Round
		for range n {
			out = append(out, r)
		}
		return out
	}
	now := http.Header{"Retry-After": {"0"}}
	keys := func(c *config.Config) { c.Auth.Keys = config.PlainKeys("sk-client") }
	tests := []struct {
		name    string
		mutate  func(*config.Config)
		rounds  []upstreamtest.Round
		body    string
		headers []string
		status  int
		typ     string
		message string
		header  string // "Name: value" the answer must have
	}{
		{name: "no key", mutate: keys, body: messagesBody, status: 401, typ: "authentication_error", message: "x-api-key"},
		{name: "wrong key", mutate: keys, body: messagesBody, headers: []string{"x-api-key: sk-other"}, status: 401, typ: "authentication_error"},
		{name: "max_tokens missing", body: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, status: 400, typ: "invalid_request_error", message: "max_tokens: Field required"},
		{name: "not JSON", body: `{"model":`, status: 400, typ: "invalid_request_error"},
		{name: "model not routed", mutate: func(c *config.Config) {
			// Two upstreams and neither serves m: no default to fall to.
			c.Upstreams[0].Models = config.Models("gpt-*")
			other := c.Upstreams[0]
			other.Name, other.Models = "other", config.Models("claude-*")
			c.Upstreams = append(c.Upstreams, other)
		}, body: messagesBody,
			status: 404, typ: "not_found_error", message: "`m`"},
		{name: "too large", mutate: func(c *config.Config) { c.MaxRequestBytes = 64 }, body: messagesBody, status: 413, typ: "request_too_large"},
		{name: "upstream rate limit", rounds: times(3, upstreamtest.Round{Status: 429, Header: now, Body: `{"error":{"message":"slow down","type":"rate_limit"}}`}),
			body: messagesBody, status: 429, typ: "rate_limit_error", message: "slow down", header: "Retry-After: 0"},
		{name: "upstream overloaded", rounds: times(3, upstreamtest.Round{Status: 503, Header: now, Body: `{"error":{"message":"busy","type":"server_error"}}`}),
			body: messagesBody, status: 529, typ: "overloaded_error", message: "busy"},
		{name: "upstream failure", rounds: times(3, upstreamtest.Round{Status: 500, Header: now, Body: `{"error":{"message":"boom","type":"server_error"}}`}),
			body: messagesBody, status: 500, typ: "api_error", message: "boom"},
		{name: "upstream not JSON", rounds: []upstreamtest.Round{{Status: 200, ContentType: "text/html", Body: "<html>"}},
			body: messagesBody, status: 500, typ: "api_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.rounds, tt.mutate)
			resp := e.do(t, http.MethodPost, "/v1/messages", tt.body, tt.headers...)
			body := readAll(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			got := decodeAnthropic(t, body)
			if got.Error.Type != tt.typ || !strings.Contains(got.Error.Message, tt.message) {
				t.Errorf("error %+v, want type %s with %q", got.Error, tt.typ, tt.message)
			}
			if k, v, ok := strings.Cut(tt.header, ": "); ok && resp.Header.Get(k) != v {
				t.Errorf("%s: %q, want %q", k, resp.Header.Get(k), v)
			}
		})
	}
}

// TestMessagesKeys: the key comes as x-api-key (Claude Code with
// ANTHROPIC_API_KEY, the Anthropic SDKs) or Authorization: Bearer (Claude
// Code with ANTHROPIC_AUTH_TOKEN); the chat route takes x-api-key too.
func TestMessagesKeys(t *testing.T) {
	ok := textRound("c1", "Hi.")
	e := newEnv(t, []upstreamtest.Round{ok, ok, ok}, func(c *config.Config) {
		c.Auth.Keys = config.PlainKeys("sk-client")
	})
	for _, h := range []string{"x-api-key: sk-client", "Authorization: Bearer sk-client"} {
		resp := e.do(t, http.MethodPost, "/v1/messages", messagesBody, h, "anthropic-version: 2023-06-01")
		if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, "event: message_stop") {
			t.Errorf("%s: %d %s", h, resp.StatusCode, body)
		}
	}
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody, "x-api-key: sk-client")
	if body := readAll(t, resp); resp.StatusCode != 200 {
		t.Errorf("chat with x-api-key: %d %s", resp.StatusCode, body)
	}
}

// streamedMessage rebuilds the message a client keeps from a streamed
// answer: its content blocks, as a client sends them back.
func streamedMessage(t *testing.T, body string) []map[string]any {
	t.Helper()
	var blocks []map[string]any
	inputs := map[int]string{}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e struct {
			Type         string         `json:"type"`
			Index        int            `json:"index"`
			ContentBlock map[string]any `json:"content_block"`
			Delta        map[string]any `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case "content_block_start":
			blocks = append(blocks, e.ContentBlock)
		case "content_block_delta":
			b := blocks[e.Index]
			switch e.Delta["type"] {
			case "text_delta":
				b["text"] = b["text"].(string) + e.Delta["text"].(string)
			case "input_json_delta":
				inputs[e.Index] += e.Delta["partial_json"].(string)
			}
		case "content_block_stop":
			if s, ok := inputs[e.Index]; ok {
				var in any
				json.Unmarshal([]byte(s), &in)
				blocks[e.Index]["input"] = in
			}
		case "error":
			t.Fatalf("error event: %s", data)
		}
	}
	return blocks
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// count is how many messages' content or calls mention s.
func count(msgs []map[string]any, s string) int {
	n := 0
	for _, m := range msgs {
		if strings.Contains(mustJSONString(m), s) {
			n++
		}
	}
	return n
}

func mustJSONString(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return b.String()
}

// TestMessagesHistoryTextMode: the client sends its answer back whole —
// text, the server call's mcp blocks, its own tool_use — with its
// tool_result. The upstream gets the stored rounds once, as the model
// wrote them, and the client's result in the format's frame; the server
// call is not run again.
func TestMessagesHistoryTextMode(t *testing.T) {
	r1 := textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym"}`))
	r2 := textRound("c2", "Now where are you? ", call("get_location", `{}`))
	r3 := textRound("c3", "You are in Paris.")
	e := newTurnEnvStore(t, turnConfig(""), []upstreamtest.Round{r1, r2, r3}, memStore(t))
	tools := `"tools":[{"name":"get_location","input_schema":{"type":"object"}}]`
	first := `{"model":"m","max_tokens":100,"stream":true,` + tools + `,"messages":[{"role":"user","content":"add gym, then locate me"}]}`
	body := readAll(t, e.do(t, http.MethodPost, "/v1/messages", first))
	answer := streamedMessage(t, body)
	var types []string
	for _, b := range answer {
		types = append(types, b["type"].(string))
	}
	if want := []string{"text", "mcp_tool_use", "mcp_tool_result", "text", "tool_use"}; !cmp.Equal(types, want) {
		t.Fatalf("blocks %v, want %v\n%s", types, want, body)
	}
	useID := answer[4]["id"].(string)
	if !strings.HasPrefix(useID, "toolu_call_") || !strings.Contains(body, `"stop_reason":"tool_use"`) {
		t.Fatalf("tool_use id %q\n%s", useID, body)
	}

	next := `{"model":"m","max_tokens":100,"stream":true,` + tools + `,"messages":[{"role":"user","content":"add gym, then locate me"},` +
		`{"role":"assistant","content":` + mustMarshal(t, answer) + `},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + useID + `","content":"Paris"}]}]}`
	resp := e.do(t, http.MethodPost, "/v1/messages", next)
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, "You are in Paris.") {
		t.Fatalf("second turn: %d %s", resp.StatusCode, body)
	}
	msgs := upstreamMessages(t, e, 2)
	if n := count(msgs, "Adding it."); n != 1 {
		t.Errorf("round 1's text in %d messages, want 1: %v", n, msgs)
	}
	if n := count(msgs, "Now where are you?"); n != 1 {
		t.Errorf("round 2's text in %d messages, want 1: %v", n, msgs)
	}
	if n := count(msgs, "mcp"); n != 0 {
		t.Errorf("mcp blocks reached the upstream: %v", msgs)
	}
	last := msgs[len(msgs)-1]["content"].(string)
	if !strings.Contains(last, "<tool_response>") || !strings.Contains(last, "Paris") || !strings.Contains(last, strings.TrimPrefix(useID, "toolu_")) {
		t.Errorf("the client's result is not framed for its call: %q", last)
	}
	if got := e.hooks.received(); len(got) != 1 {
		t.Errorf("webhook called %d times, want once", len(got))
	}
}

// TestMessagesHistoryNative: in native mode the stored rounds hold the
// server call as a tool call the turn's key names too; restored for the
// mcp blocks sent back, it is expanded once, and every call in the
// upstream's history has its one result.
func TestMessagesHistoryNative(t *testing.T) {
	native := strings.Replace(turnConfig(""), "tool_mode: text", "tool_mode: native", 1)
	r1 := upstreamtest.Round{Events: []string{
		upstreamtest.Chunk("c1", "m", `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_srv","type":"function","function":{"name":"create_task","arguments":"{\"title\":\"Gym\"}"}}]}`, ""),
		upstreamtest.Chunk("c1", "m", `{}`, "tool_calls")}}
	r2 := textRound("c2", "Added Gym.")
	r3 := textRound("c3", "You asked for Gym.")
	e := newTurnEnvStore(t, native, []upstreamtest.Round{r1, r2, r3}, memStore(t))
	first := `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"add gym"}]}`
	answer := streamedMessage(t, readAll(t, e.do(t, http.MethodPost, "/v1/messages", first)))
	if len(answer) != 3 || answer[0]["id"] != "mcptoolu_call_srv" {
		t.Fatalf("answer %v", answer)
	}
	next := `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"add gym"},` +
		`{"role":"assistant","content":` + mustMarshal(t, answer) + `},{"role":"user","content":"what did you add?"}]}`
	resp := e.do(t, http.MethodPost, "/v1/messages", next)
	if body := readAll(t, resp); resp.StatusCode != 200 {
		t.Fatalf("second turn: %d %s", resp.StatusCode, body)
	}
	msgs := upstreamMessages(t, e, 2)
	want := []string{"user", "assistant", "tool", "assistant", "user"}
	if got := roles(msgs); !cmp.Equal(got, want) {
		t.Fatalf("roles %v, want %v: %v", got, want, msgs)
	}
	checkToolHistory(t, msgs)
	if c, _ := msgs[3]["content"].(string); c != "Added Gym." {
		t.Errorf("final text %q", c)
	}
	if got := e.hooks.received(); len(got) != 1 {
		t.Errorf("webhook called %d times, want once", len(got))
	}
}

// TestMessagesRestoreWithoutStorage: a proxy that keeps no turns cannot
// restore an earlier server call: 400, nothing sent upstream.
func TestMessagesRestoreWithoutStorage(t *testing.T) {
	e := newEnv(t, nil, nil)
	body := `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[` +
		`{"type":"mcp_tool_use","id":"mcptoolu_call_1","name":"x","server_name":"toolstream","input":{}}]},{"role":"user","content":"b"}]}`
	resp := e.do(t, http.MethodPost, "/v1/messages", body)
	raw := readAll(t, resp)
	if resp.StatusCode != 400 || !strings.Contains(decodeAnthropic(t, raw).Error.Message, "without storage") {
		t.Errorf("%d %s", resp.StatusCode, raw)
	}
	if n := len(e.up.Requests()); n != 0 {
		t.Errorf("%d upstream requests", n)
	}
}

// TestMessagesFailedAfterTool: a non-streamed answer that fails after a
// server tool ran says x-should-retry: false, so the SDK does not replay
// the turn and its side effects; the error is still Anthropic's.
func TestMessagesFailedAfterTool(t *testing.T) {
	r1 := textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym"}`))
	r2 := upstreamtest.Round{Status: 400, Body: `{"error":{"message":"context too long","type":"invalid_request_error"}}`}
	e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{r1, r2})
	resp := e.do(t, http.MethodPost, "/v1/messages", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"add gym"}]}`)
	body := readAll(t, resp)
	if resp.StatusCode != 400 || resp.Header.Get("X-Should-Retry") != "false" {
		t.Fatalf("%d, x-should-retry %q: %s", resp.StatusCode, resp.Header.Get("X-Should-Retry"), body)
	}
	if got := decodeAnthropic(t, body); got.Error.Message != "context too long" {
		t.Errorf("error %+v", got.Error)
	}
	if got := e.hooks.received(); len(got) != 1 {
		t.Errorf("webhook called %d times, want once", len(got))
	}
}

// TestMessagesDisplayModes: with display: markdown a server call is a card
// in the text, with none nothing of it shows; neither sends mcp blocks.
func TestMessagesDisplayModes(t *testing.T) {
	for _, tt := range []struct{ display, want string }{
		{"markdown", `<details type="tool_calls"`},
		{"none", ""},
	} {
		t.Run(tt.display, func(t *testing.T) {
			r1 := textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym"}`))
			e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{r1, textRound("c2", "Added.")})
			resp := e.do(t, http.MethodPost, "/v1/messages", messagesBody, "X-Toolstream-Display: "+tt.display)
			answer := streamedMessage(t, readAll(t, resp))
			var text strings.Builder
			for _, b := range answer {
				if b["type"] != "text" {
					t.Errorf("a %s block with display: %s", b["type"], tt.display)
					continue
				}
				text.WriteString(b["text"].(string))
			}
			if got := text.String(); !strings.HasPrefix(got, "Adding it.") || !strings.HasSuffix(got, "Added.") ||
				tt.want != "" && !strings.Contains(got, tt.want) || tt.want == "" && strings.Contains(got, "<details") {
				t.Errorf("text %q", got)
			}
		})
	}
}

// TestMessagesHistoryTextOnly: a client that keeps only the text blocks of
// an answer (no mcp blocks) still gets the turn stitched back: the text
// blocks joined are the text the turn stored, line breaks between tool
// calls included.
func TestMessagesHistoryTextOnly(t *testing.T) {
	r1 := textRound("c1", "Adding both.\n", call("create_task", `{"title":"Gym"}`), "\n", call("create_task", `{"title":"Run"}`), "\n")
	r2 := textRound("c2", "Added them.")
	r3 := textRound("c3", "Gym and Run.")
	e := newTurnEnvStore(t, turnConfig(""), []upstreamtest.Round{r1, r2, r3}, memStore(t))
	first := `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"add gym and run"}]}`
	answer := streamedMessage(t, readAll(t, e.do(t, http.MethodPost, "/v1/messages", first)))
	var texts []any
	for _, b := range answer {
		if b["type"] == "text" {
			texts = append(texts, map[string]any{"type": "text", "text": b["text"]})
			if strings.TrimSpace(b["text"].(string)) == "" {
				t.Errorf("a text block of white space: %v", b)
			}
		}
	}
	if len(texts) != 2 {
		t.Fatalf("text blocks %v, want 2: %v", texts, answer)
	}
	next := `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"add gym and run"},` +
		`{"role":"assistant","content":` + mustMarshal(t, texts) + `},{"role":"user","content":"which?"}]}`
	readAll(t, e.do(t, http.MethodPost, "/v1/messages", next))
	msgs := upstreamMessages(t, e, 2)
	if n := count(msgs[1:], "<tool_call>"); n != 1 { // the first teaches the syntax
		t.Errorf("the stored round with its calls in %d messages, want 1: %v", n, msgs)
	}
	if n := count(msgs, "Adding both."); n != 1 {
		t.Errorf("round 1's text in %d messages, want 1", n)
	}
}

// TestMessagesStructuredOutput: Claude Code asks for a session title with
// output_config.format (and ?beta=true, its beta header, no tools, effort
// beside the format). The upstream is asked for the same JSON schema as
// response_format, and the answer streams back as text.
func TestMessagesStructuredOutput(t *testing.T) {
	e := newEnv(t, []upstreamtest.Round{textRound("c1", `{"title":"Read the note's first line"}`)}, nil)
	body := `{"model":"claude-opus-4-8","max_tokens":64000,"stream":true,` +
		`"system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=2.1.197; cc_entrypoint=sdk-cli;"},{"type":"text","text":"Return JSON with a single \"title\" field."}],` +
		`"messages":[{"role":"user","content":[{"type":"text","text":"<session>\nRead notes/note.txt\n</session>"}]}],"tools":[],` +
		`"metadata":{"user_id":"{\"device_id\":\"ed7d\",\"session_id\":\"90e3\"}"},` +
		`"output_config":{"effort":"high","format":{"type":"json_schema","schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"],"additionalProperties":false}}}}`
	resp := e.do(t, http.MethodPost, "/v1/messages?beta=true", body,
		"anthropic-version: 2023-06-01", "anthropic-beta: claude-code-20250219,context-management-2025-06-27")
	got := readAll(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(got, `"text":"{\"title\":\"Read the note's first line\"}"`) || !strings.Contains(got, "event: message_stop") {
		t.Fatalf("%d %s", resp.StatusCode, got)
	}
	reqs := e.up.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d upstream requests, want 1", len(reqs))
	}
	var up struct {
		ResponseFormat  json.RawMessage `json:"response_format"`
		ReasoningEffort *string         `json:"reasoning_effort"`
	}
	if err := json.Unmarshal(reqs[0].Body, &up); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"json_schema","json_schema":{"name":"output","schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"],"additionalProperties":false}}}`
	if string(up.ResponseFormat) != want {
		t.Errorf("upstream response_format %s, want %s", up.ResponseFormat, want)
	}
	if up.ReasoningEffort != nil {
		t.Errorf("effort went upstream as reasoning_effort %q", *up.ReasoningEffort)
	}
}
