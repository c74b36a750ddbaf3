package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/loop/textmode"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost/store"
)

// manyTools is a text-mode config with n webhook tools: send_invoice, the
// one the model is after, and n-1 others that share none of its words.
func manyTools(n int, loopExtra string) string {
	var b strings.Builder
	b.WriteString("loop:\n  keepalive: 0s\n" + loopExtra + textUpstream + "tools:\n")
	b.WriteString(`  - name: send_invoice
    description: Send an invoice to a customer by email.
    parameters:
      type: object
      properties:
        customer: {type: string, description: Who pays.}
        amount: {type: number}
      required: [customer]
    webhook: {url: "${WEBHOOK}/send_invoice"}
`)
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, `  - name: metric_%03d
    description: Reports warehouse metric number %d for a site and a day, with its trend over the last week.
    parameters:
      type: object
      properties:
        site: {type: string, description: The warehouse site code.}
        day: {type: string, description: ISO date.}
    webhook: {url: "${WEBHOOK}/metric_%03d"}
`, i, i, i)
	}
	return b.String()
}

func nativeYAML(yaml string) string {
	return strings.Replace(yaml, "tool_mode: text", "tool_mode: native", 1)
}

// nativeCall is a round whose model makes one native call.
func nativeCall(id, callID, name, args string) upstreamtest.Round {
	a, _ := json.Marshal(args)
	return upstreamtest.Round{Events: []string{
		upstreamtest.Chunk(id, "m", `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"`+callID+`","type":"function","function":{"name":"`+name+`","arguments":""}}]}`, ""),
		upstreamtest.Chunk(id, "m", `{"tool_calls":[{"index":0,"function":{"arguments":`+string(a)+`}}]}`, ""),
		upstreamtest.Chunk(id, "m", `{}`, "tool_calls"),
	}}
}

// toolNames lists the names in a request body's tools.
func toolNames(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range req.Tools {
		out = append(out, tl.Function.Name)
	}
	return out
}

// TestFindToolsTurn: 40 tools past a threshold of 32. Round 1 offers
// find_tools and no other schema; the model searches, the result names
// send_invoice, round 2 offers it, the model calls it and its webhook
// runs. find_tools shows as a call on the stream and leaves no audit
// record. In text mode and in native mode.
func TestFindToolsTurn(t *testing.T) {
	for _, mode := range []string{"text", "native"} {
		t.Run(mode, func(t *testing.T) {
			yaml := manyTools(40, "")
			var rounds []upstreamtest.Round
			if mode == "text" {
				rounds = []upstreamtest.Round{
					textRound("c1", call("find_tools", `{"query": "send an invoice", "limit": "3"}`)),
					textRound("c2", call("send_invoice", `{"customer": "ACME", "amount": 12}`)),
					textRound("c3", "Sent."),
				}
			} else {
				yaml = nativeYAML(yaml)
				rounds = []upstreamtest.Round{
					nativeCall("c1", "call_a", "find_tools", `{"query":"send an invoice","limit":3}`),
					nativeCall("c2", "call_b", "send_invoice", `{"customer":"ACME","amount":12}`),
					textRound("c3", "Sent."),
				}
			}
			e, db := newStoredEnv(t, yaml, rounds)
			resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest)
			body := readAll(t, resp)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			mustContain(t, "the client stream", body, `"event":"tool.started"`, `"name":"find_tools"`, `"name":"send_invoice"`, "Sent.")
			reqs := e.up.Requests()
			if len(reqs) != 3 {
				t.Fatalf("upstream rounds = %d, want 3", len(reqs))
			}
			r1, r2 := string(reqs[0].Body), string(reqs[1].Body)
			if mode == "text" {
				mustContain(t, "round 1's prompt", r1, "## find_tools", "Search the 40 tools")
				for _, hidden := range []string{"## send_invoice", "## metric_001", "## metric_039"} {
					if strings.Contains(r1, hidden) {
						t.Errorf("round 1 teaches %s", hidden)
					}
				}
				mustContain(t, "round 2's prompt", r2, "## find_tools", "## send_invoice")
				if strings.Contains(r2, "## metric_001") {
					t.Error("round 2 teaches a tool nobody found")
				}
			} else {
				if got := toolNames(t, reqs[0].Body); strings.Join(got, ",") != "find_tools" {
					t.Errorf("round 1 tools = %q, want only find_tools", got)
				}
				if got := toolNames(t, reqs[1].Body); strings.Join(got, ",") != "find_tools,send_invoice" {
					t.Errorf("round 2 tools = %q, want find_tools,send_invoice", got)
				}
			}
			// The search result the model read in round 2: the tool, its
			// description and its parameters.
			mustContain(t, "round 2's request", r2, `send_invoice`, `Send an invoice to a customer by email.`, `customer`)
			if hooks := e.hooks.received(); len(hooks) != 1 || hooks[0].Tool != "send_invoice" {
				t.Errorf("webhooks called: %+v, want send_invoice once", hooks)
			}
			recs, _, err := db.Calls(context.Background(), store.CallQuery{})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 || recs[0].Tool != "send_invoice" {
				var got []string
				for _, r := range recs {
					got = append(got, r.Tool)
				}
				t.Errorf("audit records %q, want send_invoice only", got)
			}
		})
	}
}

// TestFindToolsHiddenCall: a call of a tool the model has not found is
// TOOL_NOT_FOUND saying it exists and to search first; no webhook runs.
func TestFindToolsHiddenCall(t *testing.T) {
	e := newTurnEnv(t, manyTools(40, ""), []upstreamtest.Round{
		textRound("c1", call("send_invoice", `{"customer": "ACME"}`)),
		textRound("c2", "I could not."),
	})
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest))
	mustContain(t, "the client stream", body, `"code":"TOOL_NOT_FOUND"`)
	reqs := e.up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("upstream rounds = %d, want 2", len(reqs))
	}
	mustContain(t, "round 2's results", string(reqs[1].Body), `TOOL_NOT_FOUND`, `exists but is not loaded yet: call find_tools first`)
	if hooks := e.hooks.received(); len(hooks) != 0 {
		t.Errorf("webhooks called: %+v", hooks)
	}
}

// TestFindToolsShownFromRoundOne: tools called earlier in the conversation
// — a native tool_calls entry, and a call in the taught text syntax — are
// taught in round 1 beside find_tools; a request that picks its tools
// with toolstream.tools sees every one it picked, and no find_tools.
func TestFindToolsShownFromRoundOne(t *testing.T) {
	t.Run("called before", func(t *testing.T) {
		e := newTurnEnv(t, manyTools(40, ""), []upstreamtest.Round{textRound("c1", "Done.")})
		req := `{"model":"m","stream":true,"messages":[
			{"role":"user","content":"metrics please"},
			{"role":"assistant","content":null,"tool_calls":[{"id":"call_x","type":"function","function":{"name":"metric_007","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"call_x","content":"{\"v\":1}"},
			{"role":"assistant","content":"<tool_call>\n{\"name\": \"metric_009\", \"arguments\": {}}\n</tool_call>"},
			{"role":"user","content":"and again"}]}`
		readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", req))
		r1 := string(e.up.Requests()[0].Body)
		mustContain(t, "round 1's prompt", r1, "## find_tools", "## metric_007", "## metric_009")
		for _, hidden := range []string{"## metric_008", "## send_invoice", "## metric_010"} {
			if strings.Contains(r1, hidden) {
				t.Errorf("round 1 teaches %s", hidden)
			}
		}
	})
	t.Run("tool_choice", func(t *testing.T) {
		e := newTurnEnv(t, nativeYAML(manyTools(40, "")), []upstreamtest.Round{textRound("c1", "Done.")})
		req := `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}],"tool_choice":{"type":"function","function":{"name":"metric_012"}}}`
		readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", req))
		if got := toolNames(t, e.up.Requests()[0].Body); strings.Join(got, ",") != "find_tools,metric_012" {
			t.Errorf("round 1 tools = %q, want find_tools and the tool tool_choice names", got)
		}
	})
	t.Run("picked", func(t *testing.T) {
		e := newTurnEnv(t, manyTools(40, ""), []upstreamtest.Round{textRound("c1", "Done.")})
		var picked []string
		for i := 1; i <= 35; i++ {
			picked = append(picked, fmt.Sprintf("%q", fmt.Sprintf("metric_%03d", i)))
		}
		req := `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}],"toolstream":{"tools":[` + strings.Join(picked, ",") + `]}}`
		resp := e.do(t, http.MethodPost, "/v1/chat/completions", req)
		if body := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		r1 := string(e.up.Requests()[0].Body)
		mustContain(t, "round 1's prompt", r1, "## metric_001", "## metric_035")
		if strings.Contains(r1, "find_tools") || strings.Contains(r1, "## send_invoice") {
			t.Error("a request that picked its tools got find_tools or a tool it did not pick")
		}
	})
	t.Run("a tool named find_tools", func(t *testing.T) {
		yaml := manyTools(40, "") + "  - name: find_tools\n    webhook: {url: \"${WEBHOOK}/find_tools\"}\n"
		e := newTurnEnv(t, yaml, []upstreamtest.Round{textRound("c1", "Done.")})
		readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest))
		// Two tools of one name would be one the model cannot tell
		// apart: the search stays off.
		mustContain(t, "round 1's prompt", systemPrompt(t, e.up.Requests()[0].Body), "## send_invoice", "## metric_039")
	})
	t.Run("threshold 0", func(t *testing.T) {
		e := newTurnEnv(t, manyTools(40, "  tool_search_threshold: 0\n"), []upstreamtest.Round{textRound("c1", "Done.")})
		readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest))
		r1 := string(e.up.Requests()[0].Body)
		mustContain(t, "round 1's prompt", r1, "## send_invoice", "## metric_039")
		if strings.Contains(r1, "find_tools") {
			t.Error("tool search off, yet find_tools is taught")
		}
	})
}

// TestFindToolsEveryTextFormat: the search and the call of the tool found
// work in every text format, each call written as a model taught that
// format writes it.
func TestFindToolsEveryTextFormat(t *testing.T) {
	formats := []detect.Format{detect.XML, detect.ToolRequest, detect.Hermes, detect.JSON, detect.Qwen3Coder, detect.Llama3JSON,
		detect.Pythonic, detect.Mistral, detect.DeepSeek, detect.KimiK2, detect.GLM, detect.Auto,
		detect.Harmony, detect.DSML, detect.KimiK3, detect.MiniMaxM3}
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			yaml := strings.Replace(manyTools(40, ""), "text_format: hermes", "text_format: "+string(f), 1)
			search := textmode.CallsText(f, []textmode.Call{{Name: "find_tools", Arguments: []byte(`{"query":"send an invoice"}`)}})
			use := textmode.CallsText(f, []textmode.Call{{Name: "send_invoice", Arguments: []byte(`{"customer":"ACME"}`)}})
			e := newTurnEnv(t, yaml, []upstreamtest.Round{textRound("c1", search), textRound("c2", use), textRound("c3", "Sent.")})
			body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest))
			mustContain(t, "the client stream", body, `"name":"find_tools"`, `"name":"send_invoice"`, "Sent.")
			reqs := e.up.Requests()
			if len(reqs) != 3 {
				t.Fatalf("upstream rounds = %d, want 3", len(reqs))
			}
			if sys := systemPrompt(t, reqs[0].Body); !strings.Contains(sys, "find_tools") || strings.Contains(sys, "send_invoice") {
				t.Errorf("round 1's prompt should teach find_tools and not send_invoice:\n%s", sys)
			}
			// The prompt stays as it was (the upstream's prompt cache keeps
			// it); the tool found is taught after the results.
			if sys := systemPrompt(t, reqs[1].Body); sys != systemPrompt(t, reqs[0].Body) {
				t.Errorf("round 2's prompt changed:\n%s", sys)
			}
			if last := lastContent(t, reqs[1].Body); !strings.Contains(last, "# Tools found") || !strings.Contains(last, "## send_invoice") {
				t.Errorf("round 2's results do not teach send_invoice:\n%s", last)
			}
			if hooks := e.hooks.received(); len(hooks) != 1 || hooks[0].Tool != "send_invoice" || hooks[0].Body["arguments"] == nil {
				t.Errorf("webhooks called: %+v, want send_invoice once", hooks)
			}
		})
	}
}

// lastContent is the last message's text in a request body.
func lastContent(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		t.Fatalf("no messages in %s", body)
	}
	return req.Messages[len(req.Messages)-1].Content
}

// systemPrompt is the first message's text in a request body.
func systemPrompt(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) == 0 || req.Messages[0].Role != "system" {
		t.Fatalf("no system message in %s", body)
	}
	return req.Messages[0].Content
}

// TestFindToolsStitchedHistory: a tool found and called in one turn is
// callable from round 1 of the next, whose client sent back only the text
// it saw, and stays taught where it was: the stitched history holds the
// call and, in text mode, the section that taught it (the prompt does not
// change); native tools list it after the others, as before.
func TestFindToolsStitchedHistory(t *testing.T) {
	for _, mode := range []string{"text", "native"} {
		t.Run(mode, func(t *testing.T) {
			yaml := manyTools(40, "")
			rounds := []upstreamtest.Round{
				textRound("c1", call("find_tools", `{"query": "invoice"}`)),
				textRound("c2", call("send_invoice", `{"customer": "ACME"}`)),
			}
			if mode == "native" {
				yaml = nativeYAML(yaml)
				rounds = []upstreamtest.Round{
					nativeCall("c1", "call_a", "find_tools", `{"query":"invoice"}`),
					nativeCall("c2", "call_b", "send_invoice", `{"customer":"ACME"}`),
				}
			}
			rounds = append(rounds, textRound("c3", "Sent."), textRound("c4", "Again."))
			e := newTurnEnvStore(t, yaml, rounds, memStore(t))
			seen := joinedContent(t, readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest)))
			next := `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":` + quoteJSON(seen) + `},{"role":"user","content":"send another"}]}`
			readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", next))
			reqs := e.up.Requests()
			if len(reqs) != 4 {
				t.Fatalf("upstream rounds = %d, want 4", len(reqs))
			}
			if mode == "text" {
				sys := systemPrompt(t, reqs[3].Body)
				if sys != systemPrompt(t, reqs[0].Body) {
					t.Errorf("the next turn's prompt changed:\n%s", sys)
				}
				mustContain(t, "the next turn's round 1", string(reqs[3].Body), `# Tools found`, `## send_invoice`)
			} else if got := toolNames(t, reqs[3].Body); strings.Join(got, ",") != "find_tools,send_invoice" {
				t.Errorf("the next turn's round-1 tools = %q, want find_tools,send_invoice", got)
			}
		})
	}
}
