package proxy_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// responsesConfig is a text-mode upstream with a webhook server tool,
// with two client keys when keyed.
func responsesConfig(keyed bool) string {
	auth := ""
	if keyed {
		auth = "auth:\n  keys: [\"" + apClientKey + "\", \"" + otherKey + "\"]\n"
	}
	return auth + `loop:
  keepalive: 0s
` + textUpstream + `tools:
  - name: create_task
    parameters:
      type: object
      properties:
        title: {type: string}
      required: [title]
    webhook: {url: "${WEBHOOK}/create_task"}
`
}

// respAnswer is a response object as a test reads it.
type respAnswer struct {
	ID     string `json:"id"`
	Object string `json:"object"`
	Status string `json:"status"`
	Output []struct {
		ID     string `json:"id"`
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Name   string `json:"name"`
		Output string `json:"output"`
	} `json:"output"`
	PreviousResponseID *string `json:"previous_response_id"`
	Error              *struct {
		Code string `json:"code"`
	} `json:"error"`
}

// post sends a non-streaming request and decodes its respAnswer (or error).
func (e *turnEnv) post(t *testing.T, body string, headers ...string) (int, respAnswer, string) {
	t.Helper()
	resp := e.do(t, http.MethodPost, "/v1/responses", body, headers...)
	raw := readAll(t, resp)
	var a respAnswer
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		t.Fatalf("respAnswer is not JSON: %d %q", resp.StatusCode, raw)
	}
	return resp.StatusCode, a, raw
}

// responsesUpstream returns the messages of the upstream's request n (from 1)
// as JSON texts.
func responsesUpstream(t *testing.T, e *turnEnv, n int) []string {
	t.Helper()
	reqs := e.up.Requests()
	if len(reqs) < n {
		t.Fatalf("the upstream got %d requests, want at least %d", len(reqs), n)
	}
	var body struct{ Messages []json.RawMessage }
	if err := json.Unmarshal(reqs[n-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range body.Messages {
		out = append(out, string(m))
	}
	return out
}

// TestResponsesContinue: a turn that ran a server call and handed the
// client a call of its own is stored; the client's next request names it
// with previous_response_id and sends only its function_call_output. The
// upstream reads the whole conversation — the question, the model's
// rounds as it wrote them, the server result, the client's result — and
// the server call does not run again.
func TestResponsesContinue(t *testing.T) {
	e := newResponsesEnv(t, responsesConfig(false), []upstreamtest.Round{
		textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym"}`)),
		textRound("c2", "Where are you? ", call("get_location", `{}`)),
		textRound("c3", "Gym added, in Paris."),
	})
	status, first, raw := e.post(t, `{"model":"m","input":"Add gym near me.","tools":[{"type":"function","name":"get_location","parameters":{"type":"object"}}]}`)
	if status != 200 || first.Status != "completed" {
		t.Fatalf("first respAnswer %d %s", status, raw)
	}
	var types []string
	callID := ""
	for _, it := range first.Output {
		types = append(types, it.Type)
		if it.Type == "function_call" {
			callID = it.CallID
		}
	}
	if strings.Join(types, ",") != "message,mcp_call,message,function_call" || callID == "" {
		t.Fatalf("first output %v (call %q)\n%s", types, callID, raw)
	}

	status, second, raw := e.post(t, `{"model":"m","previous_response_id":"`+first.ID+`","input":[{"type":"function_call_output","call_id":"`+callID+`","output":"Paris"}]}`)
	if status != 200 || second.PreviousResponseID == nil || *second.PreviousResponseID != first.ID {
		t.Fatalf("second respAnswer %d %s", status, raw)
	}
	if n := len(e.hooks.received()); n != 1 {
		t.Errorf("the webhook ran %d times, want once", n)
	}
	msgs := responsesUpstream(t, e, 3)
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{
		`"Add gym near me."`,
		`Adding it. \u003ctool_call\u003e`,                          // round 1 as written
		`\"ok\":true`,                                               // the server result, framed
		`Where are you? \u003ctool_call\u003e`,                      // round 2 as written
		`{\"name\":\"get_location\",\"call_id\":\"` + callID + `\"`, // the client's result, framed with its tool
		`Paris`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("the upstream's third request lacks %s:\n%s", want, joined)
		}
	}
	if strings.Count(joined, `\"arguments\": {\"title\":\"Gym\"}`) != 1 {
		t.Errorf("the server call is not in the history exactly once:\n%s", joined)
	}
}

// TestResponsesContinueNative: the same in native mode, where the
// stored rounds carry the server call as tool_calls: the upstream reads
// the call and its result once, then the client's result.
func TestResponsesContinueNative(t *testing.T) {
	cfg := strings.Replace(responsesConfig(false), "tool_mode: text", "tool_mode: native", 1)
	calls := func(id, name, args string) upstreamtest.Round {
		return upstreamtest.Round{Events: []string{
			upstreamtest.Chunk(id, "m", `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"`+id+`_call","type":"function","function":{"name":"`+name+`","arguments":`+quoteJSON(args)+`}}]}`, ""),
			upstreamtest.Chunk(id, "m", `{}`, "tool_calls"),
		}}
	}
	e := newResponsesEnv(t, cfg, []upstreamtest.Round{
		calls("s1", "create_task", `{"title":"Gym"}`),
		calls("c1", "get_location", `{}`),
		textRound("a1", "Gym added, in Paris."),
	})
	_, first, raw := e.post(t, `{"model":"m","input":"Add gym near me.","tools":[{"type":"function","name":"get_location","parameters":{"type":"object"}}]}`)
	if len(first.Output) != 2 || first.Output[0].Type != "mcp_call" || first.Output[1].CallID != "c1_call" {
		t.Fatalf("first answer %s", raw)
	}
	status, _, raw := e.post(t, `{"model":"m","previous_response_id":"`+first.ID+`","input":[{"type":"function_call_output","call_id":"c1_call","output":"Paris"}]}`)
	if status != 200 {
		t.Fatalf("second answer %d %s", status, raw)
	}
	msgs := responsesUpstream(t, e, 3)
	joined := strings.Join(msgs, "\n")
	alternate(t, msgs)
	if strings.Count(joined, `"s1_call"`) != 2 || strings.Count(joined, `"c1_call"`) != 2 || !strings.Contains(joined, `"Paris"`) {
		t.Errorf("the upstream's third request does not hold each call and its result once:\n%s", joined)
	}
	if n := len(e.hooks.received()); n != 1 {
		t.Errorf("the webhook ran %d times, want once", n)
	}
}

// alternate checks that no two messages of the same role but tool follow
// each other: chat templates that require alternation refuse them.
func alternate(t *testing.T, msgs []string) {
	t.Helper()
	prev := ""
	for _, m := range msgs {
		var r struct{ Role string }
		json.Unmarshal([]byte(m), &r)
		if r.Role == prev && r.Role != "tool" {
			t.Errorf("two %s messages in a row:\n%s", r.Role, strings.Join(msgs, "\n"))
		}
		prev = r.Role
	}
}

// TestResponsesStored: GET returns a stored response as it was answered,
// byte for byte, < > & as the model wrote them; DELETE removes it as
// OpenAI answers; then neither GET, DELETE nor previous_response_id find
// it. store: false keeps nothing.
func TestResponsesStored(t *testing.T) {
	e := newResponsesEnv(t, responsesConfig(false), []upstreamtest.Round{textRound("c1", "Hi <b>&</b>."), textRound("c2", "Hi again.")})
	resp := e.do(t, http.MethodPost, "/v1/responses", `{"model":"m","input":"hi"}`)
	body := readAll(t, resp)
	var a respAnswer
	json.Unmarshal([]byte(body), &a)
	got := readAll(t, e.do(t, http.MethodGet, "/v1/responses/"+a.ID, ""))
	if got != body {
		t.Errorf("GET returned\n%s\nthe respAnswer was\n%s", got, body)
	}
	resp = e.do(t, http.MethodDelete, "/v1/responses/"+a.ID, "")
	if d := readAll(t, resp); resp.StatusCode != 200 || d != `{"id":"`+a.ID+`","object":"response.deleted","deleted":true}`+"\n" {
		t.Errorf("DELETE = %d %q", resp.StatusCode, d)
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		if resp := e.do(t, m, "/v1/responses/"+a.ID, ""); resp.StatusCode != 404 {
			t.Errorf("%s after DELETE = %d %s", m, resp.StatusCode, readAll(t, resp))
		} else {
			readAll(t, resp)
		}
	}
	status, _, raw := e.post(t, `{"model":"m","previous_response_id":"`+a.ID+`","input":"more"}`)
	if status != 404 || !strings.Contains(raw, `"code":"previous_response_not_found"`) || !strings.Contains(raw, `"param":"previous_response_id"`) {
		t.Errorf("continuing a deleted response = %d %s", status, raw)
	}

	_, b, _ := e.post(t, `{"model":"m","input":"hi","store":false}`)
	if resp := e.do(t, http.MethodGet, "/v1/responses/"+b.ID, ""); resp.StatusCode != 404 {
		t.Errorf("GET of a store:false response = %d", resp.StatusCode)
	} else {
		readAll(t, resp)
	}
}

// TestResponsesPerKey: a stored response is its key's: another key can
// neither read, delete nor continue it.
func TestResponsesPerKey(t *testing.T) {
	e := newResponsesEnv(t, responsesConfig(true), []upstreamtest.Round{textRound("c1", "Hi.")})
	_, a, raw := e.post(t, `{"model":"m","input":"hi"}`, "Authorization: Bearer "+apClientKey)
	if a.ID == "" {
		t.Fatalf("no respAnswer: %s", raw)
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		resp := e.do(t, m, "/v1/responses/"+a.ID, "", "Authorization: Bearer "+otherKey)
		if body := readAll(t, resp); resp.StatusCode != 404 {
			t.Errorf("%s by another key = %d %s", m, resp.StatusCode, body)
		}
	}
	status, _, raw := e.post(t, `{"model":"m","previous_response_id":"`+a.ID+`","input":"more"}`, "Authorization: Bearer "+otherKey)
	if status != 404 || !strings.Contains(raw, "previous_response_not_found") {
		t.Errorf("continuing another key's response = %d %s", status, raw)
	}
	resp := e.do(t, http.MethodGet, "/v1/responses/"+a.ID, "", "Authorization: Bearer "+apClientKey)
	if body := readAll(t, resp); resp.StatusCode != 200 {
		t.Errorf("GET by its own key = %d %s", resp.StatusCode, body)
	}
}

// TestResponsesRestore: a client that sends the whole conversation back,
// as the Agents SDK does — its mcp_call items without their output — or
// names the output items by item_reference, as the AI SDK does, gets each
// restored from the stored response: the upstream reads the call and its
// real result, and nothing runs again. An item no stored response
// answered with is refused.
func TestResponsesRestore(t *testing.T) {
	e := newResponsesEnv(t, responsesConfig(false), []upstreamtest.Round{
		textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym"}`)),
		textRound("c2", "Added."),
		textRound("c3", "You have Gym."),
		textRound("c4", "You have Gym."),
	})
	_, first, raw := e.post(t, `{"model":"m","input":"Add gym."}`)
	mcpID := ""
	for _, it := range first.Output {
		if it.Type == "mcp_call" {
			mcpID = it.ID
		}
	}
	if mcpID == "" {
		t.Fatalf("no mcp_call in %s", raw)
	}
	input := `[{"role":"user","content":"Add gym."},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Adding it."}]},` +
		`{"type":"mcp_call","id":"` + mcpID + `","server_label":"toolstream","name":"create_task","arguments":"{\"title\":\"Gym\"}","error":null},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Added."}]},` +
		`{"role":"user","content":"What do I have?"}]`
	status, _, raw := e.post(t, `{"model":"m","store":false,"input":`+input+`}`)
	if status != 200 {
		t.Fatalf("restoring = %d %s", status, raw)
	}
	if n := len(e.hooks.received()); n != 1 {
		t.Errorf("the webhook ran %d times, want once", n)
	}
	msgs := responsesUpstream(t, e, 3)
	alternate(t, msgs)
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{`\u003ctool_call\u003e`, `create_task`, `\"ok\":true`, `What do I have?`} {
		if !strings.Contains(joined, want) {
			t.Errorf("the upstream's request lacks %s:\n%s", want, joined)
		}
	}

	// The same by reference, as the AI SDK sends it: every output item
	// of the stored response named by its id.
	var refs []string
	for _, it := range first.Output {
		refs = append(refs, `{"type":"item_reference","id":"`+it.ID+`"}`)
	}
	status, _, raw = e.post(t, `{"model":"m","store":false,"input":[{"role":"user","content":"Add gym."},`+strings.Join(refs, ",")+`,{"role":"user","content":"What do I have?"}]}`)
	if status != 200 {
		t.Fatalf("restoring by reference = %d %s", status, raw)
	}
	msgs = responsesUpstream(t, e, 4)
	alternate(t, msgs)
	joined = strings.Join(msgs, "\n")
	for _, want := range []string{`Adding it.\n\n\u003ctool_call\u003e`, `\"ok\":true`, `"Added."`, `What do I have?`} {
		if !strings.Contains(joined, want) {
			t.Errorf("the upstream's request lacks %s:\n%s", want, joined)
		}
	}

	status, _, raw = e.post(t, `{"model":"m","input":[{"type":"mcp_call","id":"mcp_forged","name":"create_task","arguments":"{}"},{"role":"user","content":"hi"}]}`)
	if status != 400 || !strings.Contains(raw, `"code":"unknown_item"`) {
		t.Errorf("a forged mcp_call = %d %s", status, raw)
	}
	status, _, raw = e.post(t, `{"model":"m","input":[{"type":"item_reference","id":"msg_forged"},{"role":"user","content":"hi"}]}`)
	if status != 400 || !strings.Contains(raw, `"code":"unknown_item"`) {
		t.Errorf("a reference to nothing = %d %s", status, raw)
	}
	if n := len(e.hooks.received()); n != 1 {
		t.Errorf("the webhook ran %d times after a forged call, want once", n)
	}
}

// TestResponsesRefusals: what the Responses reader refuses is a 400 in
// OpenAI's shape naming the field, before anything goes upstream.
func TestResponsesRefusals(t *testing.T) {
	e := newResponsesEnv(t, responsesConfig(false), nil)
	for _, tc := range []struct{ body, want string }{
		{`{"model":"m","input":"hi","tools":[{"type":"function","name":""}]}`, `"param":"tools[0].name"`},
		{`{"model":"m","input":"hi","background":true}`, `"param":"background"`},
		{`{"model":"m","input":"hi","toolstream":{"display":"loud"}}`, `"param":"toolstream.display"`},
		{`{"input":"hi"}`, `"param":"model"`},
		{`not json`, `"type":"invalid_request_error"`},
	} {
		status, _, raw := e.post(t, tc.body)
		if status != 400 || !strings.Contains(raw, tc.want) {
			t.Errorf("%s = %d %s, want 400 with %s", tc.body, status, raw, tc.want)
		}
	}
	if n := len(e.up.Requests()); n != 0 {
		t.Errorf("%d requests reached the upstream", n)
	}
}

// TestResponsesNoRetryAfterTools: a non-streamed turn that fails after a
// server call ran answers with x-should-retry: false, so the SDK does
// not replay the call's side effects.
func TestResponsesNoRetryAfterTools(t *testing.T) {
	e := newResponsesEnv(t, responsesConfig(false), []upstreamtest.Round{
		textRound("c1", call("create_task", `{"title":"Gym"}`)),
		{Status: 400, Body: `{"error":{"message":"bad","type":"invalid_request_error"}}`},
	})
	resp := e.do(t, http.MethodPost, "/v1/responses", `{"model":"m","input":"Add gym."}`)
	body := readAll(t, resp)
	if resp.StatusCode != 400 || resp.Header.Get("X-Should-Retry") != "false" {
		t.Errorf("= %d x-should-retry %q %s", resp.StatusCode, resp.Header.Get("X-Should-Retry"), body)
	}
}

// TestResponsesPlainNotStreamed: a request that wants one response object
// and runs no server tool (tool_choice none) is still read from a
// streamed round — the upstream is always asked to stream, with usage.
func TestResponsesPlainNotStreamed(t *testing.T) {
	e := newResponsesEnv(t, responsesConfig(false), []upstreamtest.Round{
		{Events: append(upstreamtest.Text("c1", "m", "Hello ", "there."), upstreamtest.Usage("c1", "m", 4, 2))},
	})
	status, resp, raw := e.post(t, `{"model":"m","input":"hi","tool_choice":"none"}`)
	if status != 200 || resp.Status != "completed" || !strings.Contains(raw, `"text":"Hello there."`) {
		t.Fatalf("%d %s", status, raw)
	}
	body := string(e.up.Requests()[0].Body)
	if !strings.Contains(body, `"stream":true`) || !strings.Contains(body, `"include_usage":true`) {
		t.Errorf("the upstream was not asked to stream with usage: %s", body)
	}
}
