package proxy_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// clientTool is the client's own tool in these tests.
const clientTool = `[{"type":"function","function":{"name":"get_location","description":"The user's location.","parameters":{"type":"object","properties":{"precise":{"type":"boolean"}}}}}]`

// TestTextClientToolRoundTrip is an agent SDK's tool loop against a
// text-mode upstream: the client's tool is taught, the model's text call
// reaches the client as a native call, and the client's next request —
// its assistant message with the call, then its result — reaches the
// upstream as the model's own text and the result in hermes' frame.
// With no store to stitch from, the call is written in the taught syntax
// from the client's tool_calls; with one, the model's text comes back as
// it was written.
func TestTextClientToolRoundTrip(t *testing.T) {
	for _, stitched := range []bool{false, true} {
		t.Run(map[bool]string{false: "unstitched", true: "stitched"}[stitched], func(t *testing.T) {
			r1 := textRound("c1", "Checking.\n\n", call("get_location", `{"precise": true}`))
			r2 := textRound("c2", "You are in Paris.")
			e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{r1, r2})
			if stitched {
				e = newTurnEnvStore(t, turnConfig(""), []upstreamtest.Round{r1, r2}, memStore(t))
			}
			first := `{"model":"m","stream":true,"tool_choice":"auto","tools":` + clientTool + `,"messages":[{"role":"user","content":"where am I?"}]}`
			body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", first))
			if strings.Contains(body, "tool_call>") || !strings.Contains(body, `"finish_reason":"tool_calls"`) {
				t.Fatalf("first turn: %s", body)
			}
			id := toolCallID(t, body)

			req := upstreamBody(t, e, 0)
			if _, ok := req["tools"]; ok {
				t.Errorf("the text-mode upstream was sent tools: %v", req["tools"])
			}
			if _, ok := req["tool_choice"]; ok {
				t.Errorf("the text-mode upstream was sent tool_choice")
			}
			prompt := upstreamMessages(t, e, 0)[0]["content"].(string)
			for _, want := range []string{"## create_task", "## get_location", "The user's location.", "- precise (boolean)"} {
				if !strings.Contains(prompt, want) {
					t.Errorf("prompt lacks %q:\n%s", want, prompt)
				}
			}

			next := `{"model":"m","stream":true,"tools":` + clientTool + `,"messages":[{"role":"user","content":"where am I?"},` +
				`{"role":"assistant","content":"Checking.","tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"get_location","arguments":"{\"precise\":true}"}}]},` +
				`{"role":"tool","tool_call_id":"` + id + `","content":"{\"city\":\"Paris\"}"}]}`
			if got := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", next)); !strings.Contains(got, "You are in Paris.") {
				t.Fatalf("second turn: %s", got)
			}
			msgs := upstreamMessages(t, e, 1)
			if got, want := roles(msgs), []string{"system", "user", "assistant", "user"}; !cmp.Equal(got, want) {
				t.Fatalf("roles %v, want %v: %v", got, want, msgs)
			}
			wantCall := "Checking.\n\n<tool_call>\n{\"name\": \"get_location\", \"arguments\": {\"precise\": true}}\n</tool_call>"
			if c := msgs[2]["content"].(string); c != wantCall {
				t.Errorf("the model's call reads\n%q\nwant\n%q", c, wantCall)
			}
			frame := msgs[3]["content"].(string)
			if want := "<tool_response>\n{\"name\":\"get_location\",\"call_id\":\"" + id + "\",\"content\":{\"city\":\"Paris\"}}\n</tool_response>"; !strings.Contains(frame, want) {
				t.Errorf("result frame\n%s\nlacks\n%s", frame, want)
			}
		})
	}
}

// TestTextClientToolChoiceNone: tool_choice "none" teaches no tool of the
// client's, and the text-mode upstream still gets no tools field.
func TestTextClientToolChoiceNone(t *testing.T) {
	e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{textRound("c1", "Hello.")})
	body := `{"model":"m","stream":true,"tool_choice":"none","tools":` + clientTool + `,"messages":[{"role":"user","content":"hi"}]}`
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", body))
	req := upstreamBody(t, e, 0)
	for _, k := range []string{"tools", "tool_choice"} {
		if _, ok := req[k]; ok {
			t.Errorf("the text-mode upstream was sent %s", k)
		}
	}
	if strings.Contains(string(e.up.Requests()[0].Body), "get_location") {
		t.Errorf("the client's tool was taught under tool_choice none: %s", e.up.Requests()[0].Body)
	}
}

func upstreamBody(t *testing.T, e *turnEnv, i int) map[string]any {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(e.up.Requests()[i].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// toolCallID is the id of the first tool call in an SSE body.
func toolCallID(t *testing.T, body string) string {
	t.Helper()
	_, rest, ok := strings.Cut(body, `"tool_calls":[{"index":0,"id":"`)
	if !ok {
		t.Fatalf("no tool call in %s", body)
	}
	id, _, _ := strings.Cut(rest, `"`)
	return id
}

// TestTextClientToolMixedStitched: in one text-mode round the model calls
// a server tool and the client's. The client's next request holds only its
// own call and result; stitching puts the round back as the model wrote
// it, and the server call's result goes in the same frame as the
// client's, first, as the calls were made.
func TestTextClientToolMixedStitched(t *testing.T) {
	r1 := textRound("c1", call("create_task", `{"title":"Gym"}`), "\n", call("get_location", `{}`))
	e := newTurnEnvStore(t, turnConfig(""), []upstreamtest.Round{r1, textRound("c2", "Added Gym, near Paris.")}, memStore(t))
	first := `{"model":"m","stream":true,"tools":` + clientTool + `,"messages":[{"role":"user","content":"add gym near me"}]}`
	id := toolCallID(t, readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", first)))
	next := `{"model":"m","stream":true,"tools":` + clientTool + `,"messages":[{"role":"user","content":"add gym near me"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"get_location","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"` + id + `","content":"{\"city\":\"Paris\"}"}]}`
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", next))
	msgs := upstreamMessages(t, e, 1)
	if got, want := roles(msgs), []string{"system", "user", "assistant", "user"}; !cmp.Equal(got, want) {
		t.Fatalf("roles %v, want %v: %v", got, want, msgs)
	}
	if got, want := msgs[2]["content"].(string), call("create_task", `{"title":"Gym"}`)+"\n"+call("get_location", `{}`); got != want {
		t.Errorf("round text %q, want it as written %q", got, want)
	}
	frame := msgs[3]["content"].(string)
	srv := strings.Index(frame, `{"name":"create_task","call_id":"call_1","content":{"arguments":{"title":"Gym"},"ok":true}}`)
	cli := strings.Index(frame, `{"name":"get_location","call_id":"`+id+`","content":{"city":"Paris"}}`)
	if srv < 0 || cli < srv {
		t.Errorf("results not framed together in call order:\n%s", frame)
	}
}
