package proxy_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// cachedUsage is the usage-only chunk of a round whose prompt the
// upstream's cache partly served.
func cachedUsage(id string, prompt, cached, completion int) string {
	return fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","created":%d,"model":"m","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}}}`,
		id, upstreamtest.Created, prompt, completion, prompt+completion, cached)
}

// withUsage adds a usage chunk to each round: round i reports 100·(i+1)
// prompt tokens, 90·i of them cached, and 10 completion tokens.
func withUsage(rounds []upstreamtest.Round) []upstreamtest.Round {
	for i := range rounds {
		rounds[i].Events = append(rounds[i].Events, cachedUsage(fmt.Sprintf("u%d", i), 100*(i+1), 90*i, 10))
	}
	return rounds
}

// nativeCallRound is a native round calling one tool after a few words,
// its arguments split in two fragments with the spacing and escaping a
// model writes.
func nativeCallRound(id, callID, name, args string) upstreamtest.Round {
	half := len(args) / 2
	frag := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return upstreamtest.Round{Events: []string{
		upstreamtest.Chunk(id, "m", `{"role":"assistant","content":""}`, ""),
		// Text before the calls, spacing as the model wrote it.
		upstreamtest.Chunk(id, "m", `{"content":" On it:  \n"}`, ""),
		upstreamtest.Chunk(id, "m", `{"tool_calls":[{"index":0,"id":"`+callID+`","type":"function","function":{"name":"`+name+`","arguments":`+frag(args[:half])+`}}]}`, ""),
		upstreamtest.Chunk(id, "m", `{"tool_calls":[{"index":0,"function":{"arguments":`+frag(args[half:])+`}}]}`, ""),
		upstreamtest.Chunk(id, "m", `{}`, "tool_calls"),
	}}
}

// xmlCall is a call in the xml text format.
func xmlCall(name, param, value string) string {
	return `<tool_use><invoke name="` + name + `"><parameter name="` + param + `">` + value + `</parameter></invoke></tool_use>`
}

// topFields is a request body's top-level fields, each as its raw JSON
// text: the bytes the upstream read.
func topFields(t *testing.T, body []byte) map[string]string {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		out[k] = string(v)
	}
	return out
}

// extendsArray says next, a JSON array's text, is prev's elements, byte
// for byte, followed by at least one more.
func extendsArray(prev, next string) bool {
	return strings.HasPrefix(next, strings.TrimSuffix(prev, "]")+",")
}

// checkByteExact fails unless each upstream request extends the one
// before it: its messages array is the previous one's, byte for byte,
// followed by new messages, its tools the previous ones followed by any
// new ones, and every other field (the taught prompt is in the messages)
// the same bytes. That is what an upstream's prefix cache needs to serve
// the earlier rounds' tokens again.
func checkByteExact(t *testing.T, reqs []upstreamtest.Request) {
	t.Helper()
	for i := 1; i < len(reqs); i++ {
		prev, next := topFields(t, reqs[i-1].Body), topFields(t, reqs[i].Body)
		if !extendsArray(prev["messages"], next["messages"]) {
			t.Errorf("request %d's messages do not extend request %d's byte for byte; they part at %s", i+1, i, parting(prev["messages"], next["messages"]))
		}
		if prev["tools"] != next["tools"] && !extendsArray(prev["tools"], next["tools"]) {
			t.Errorf("request %d's tools do not extend request %d's; they part at %s", i+1, i, parting(prev["tools"], next["tools"]))
		}
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range next {
				if !yield(k) {
					return
				}
			}
		}) {
			if k == "tool_choice" && i == len(reqs)-1 && next[k] == `"none"` {
				continue // a last round of server tools only: none can run
			}
			if k != "messages" && k != "tools" && prev[k] != next[k] {
				t.Errorf("request %d's %q is %s, request %d's was %s", i+1, k, next[k], i, prev[k])
			}
		}
	}
}

// parting shows where two texts first differ.
func parting(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	cut := func(s string) string {
		s = s[n:]
		if len(s) > 160 {
			s = s[:160] + "…"
		}
		return s
	}
	return fmt.Sprintf("byte %d:\n  was %s\n  now %s", n, cut(a), cut(b))
}

// nativeTurnConfig is turnConfig's tools on a native upstream.
func nativeTurnConfig() string {
	return strings.Replace(turnConfig(""), "tool_mode: text", "tool_mode: native", 1)
}

// TestByteExactRounds: each round of a 3-round turn sends the upstream
// its previous request's messages byte for byte, then the model's round
// as it wrote it and the results; the taught prompt and the tools do not
// move. The upstream's cached tokens show summed in the client's usage.
func TestByteExactRounds(t *testing.T) {
	const req = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"go"}]}`
	// metric_005 was called before, so it is shown from the start; the
	// tool found later comes before it in the turn's order.
	const searchReq = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"site metric?"},{"role":"assistant","content":"metric_005 says 4."},{"role":"user","content":"now invoice ACME"}]}`
	for _, tc := range []struct {
		name, yaml, req string
		rounds          []upstreamtest.Round
	}{
		{name: "text hermes", yaml: turnConfig(""), rounds: []upstreamtest.Round{
			textRound("c1", "Adding it.  \n", call("create_task", `{"title": "Gym <b>é</b>"}`), "\n"),
			textRound("c2", call("list_tasks", `{}`)),
			textRound("c3", "Done: Gym.  "),
		}},
		{name: "text xml", yaml: strings.Replace(turnConfig(""), "text_format: hermes", "text_format: xml", 1), rounds: []upstreamtest.Round{
			textRound("c1", "Adding it. ", xmlCall("create_task", "title", "Gym & co")),
			textRound("c2", xmlCall("list_tasks", "filter", "all")),
			textRound("c3", "Done."),
		}},
		{name: "native", yaml: nativeTurnConfig(), rounds: []upstreamtest.Round{
			nativeCallRound("c1", "call_a", "create_task", `{ "title" : "Gym <b>é</b>\u00e9" }`),
			nativeCallRound("c2", "call_b", "list_tasks", `{}`),
			textRound("c3", "Done."),
		}},
		{name: "text last round", yaml: turnConfig("  max_rounds: 3\n"), rounds: []upstreamtest.Round{
			textRound("c1", call("create_task", `{"title": "Gym"}`)),
			textRound("c2", call("list_tasks", `{}`)),
			textRound("c3", "Done."),
		}},
		{name: "native last round", yaml: strings.Replace(nativeTurnConfig(), "keepalive: 0s", "keepalive: 0s\n  max_rounds: 3", 1), rounds: []upstreamtest.Round{
			nativeCallRound("c1", "call_a", "create_task", `{"title":"Gym"}`),
			nativeCallRound("c2", "call_b", "list_tasks", `{}`),
			textRound("c3", "Done."),
		}},
		{name: "text find_tools", yaml: manyTools(6, "  tool_search_threshold: 2\n"), req: searchReq, rounds: []upstreamtest.Round{
			textRound("c1", call("find_tools", `{"query": "send an invoice", "limit": 1}`)),
			textRound("c2", call("send_invoice", `{"customer": "ACME"}`)),
			textRound("c3", "Sent."),
		}},
		{name: "native find_tools", yaml: nativeYAML(manyTools(6, "  tool_search_threshold: 2\n")), req: searchReq, rounds: []upstreamtest.Round{
			nativeCallRound("c1", "call_a", "find_tools", `{"query":"send an invoice","limit":1}`),
			nativeCallRound("c2", "call_b", "send_invoice", `{"customer":"ACME"}`),
			textRound("c3", "Sent."),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTurnEnv(t, tc.yaml, withUsage(tc.rounds))
			r := req
			if tc.req != "" {
				r = tc.req
			}
			body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", r))
			reqs := e.up.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d upstream requests, want 3\n%s", len(reqs), body)
			}
			checkByteExact(t, reqs)
			// 100+200+300 prompt tokens, 0+90+180 of them cached.
			if !strings.Contains(body, `"prompt_tokens":600,`) || !strings.Contains(body, `"prompt_tokens_details":{"cached_tokens":270}`) {
				t.Errorf("the client's usage does not sum the rounds' cached tokens:\n%s", body)
			}
		})
	}
}

// TestByteExactAcrossTurns: a turn of two rounds, then the client's next
// request — its history as the client kept it (stitched back), or the
// earlier response named by previous_response_id, or its output items
// sent back — makes a third request that extends the second byte for byte.
func TestByteExactAcrossTurns(t *testing.T) {
	const sys = `{"role":"system","content":"Be brief."}`
	chatNext := func(seen string) string {
		return `{"model":"m","stream":true,"messages":[` + sys + `,{"role":"user","content":"go"},{"role":"assistant","content":` + quoteJSON(seen) + `},{"role":"user","content":"and now?"}]}`
	}
	const locTool = `[{"type":"function","function":{"name":"get_location","parameters":{"type":"object","properties":{}}}}]`
	respInput := `[{"role":"user","content":"go"}]`
	respFirst := `{"model":"m","instructions":"Be brief.","input":` + respInput + `}`
	respPrevious := func(t *testing.T, answer string) string {
		return `{"model":"m","instructions":"Be brief.","previous_response_id":"` + responseID(t, answer) + `","input":"and now?"}`
	}
	for _, tc := range []struct {
		name, yaml string
		rounds     []upstreamtest.Round
		// first is the first request; next builds the second from the
		// first's answer.
		path, first string
		next        func(t *testing.T, answer string) string
	}{
		{name: "stitched text", yaml: turnConfig(""), rounds: []upstreamtest.Round{
			textRound("c1", "Adding it.  ", call("create_task", `{"title": "Gym <b>é</b>"}`), "\n"),
			textRound("c2", " Added Gym. "),
			textRound("c3", "Nothing else."),
		}, path: "/v1/chat/completions",
			first: `{"model":"m","stream":true,"messages":[` + sys + `,{"role":"user","content":"go"}]}`,
			next:  func(t *testing.T, answer string) string { return chatNext(joinedContent(t, answer)) }},
		{name: "stitched native", yaml: nativeTurnConfig(), rounds: []upstreamtest.Round{
			nativeCallRound("c1", "call_a", "create_task", `{ "title" : "Gym <b>é</b>" }`),
			textRound("c2", "Added Gym."),
			textRound("c3", "Nothing else."),
		}, path: "/v1/chat/completions",
			first: `{"model":"m","stream":true,"messages":[` + sys + `,{"role":"user","content":"go"}]}`,
			next:  func(t *testing.T, answer string) string { return chatNext(joinedContent(t, answer)) }},
		{name: "text client tool", yaml: turnConfig(""), rounds: []upstreamtest.Round{
			textRound("c1", "Where are you? ", call("get_location", `{}`)),
			textRound("c2", "Paris it is."),
		}, path: "/v1/chat/completions",
			first: `{"model":"m","stream":true,"tools":` + locTool + `,"messages":[` + sys + `,{"role":"user","content":"go"}]}`,
			next: func(t *testing.T, answer string) string {
				id := clientCallID(t, answer)
				return `{"model":"m","stream":true,"tools":` + locTool + `,"messages":[` + sys + `,{"role":"user","content":"go"},` +
					`{"role":"assistant","content":"Where are you? ","tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"get_location","arguments":"{}"}}]},` +
					`{"role":"tool","tool_call_id":"` + id + `","content":"Paris"}]}`
			}},
		{name: "messages stitched", yaml: turnConfig(""), rounds: []upstreamtest.Round{
			textRound("c1", "Adding it. ", call("create_task", `{"title": "Gym"}`)),
			textRound("c2", "Added Gym."),
			textRound("c3", "Nothing else."),
		}, path: "/v1/messages",
			first: `{"model":"m","max_tokens":100,"system":"Be brief.","messages":[{"role":"user","content":"go"}]}`,
			next: func(t *testing.T, answer string) string {
				var a struct{ Content []json.RawMessage }
				if err := json.Unmarshal([]byte(answer), &a); err != nil {
					t.Fatal(err)
				}
				var text []string
				for _, b := range a.Content {
					var blk struct{ Type, Text string }
					json.Unmarshal(b, &blk)
					if blk.Type == "text" {
						text = append(text, string(b))
					}
				}
				return `{"model":"m","max_tokens":100,"system":"Be brief.","messages":[{"role":"user","content":"go"},` +
					`{"role":"assistant","content":[` + strings.Join(text, ",") + `]},{"role":"user","content":"and now?"}]}`
			}},
		{name: "stitched find_tools", yaml: manyTools(6, "  tool_search_threshold: 2\n"), rounds: []upstreamtest.Round{
			textRound("c1", call("find_tools", `{"query": "send an invoice", "limit": 1}`)),
			textRound("c2", call("send_invoice", `{"customer": "ACME"}`)),
			textRound("c3", "Sent."),
			// The tool found in the first turn is callable in the next.
			textRound("c4", call("send_invoice", `{"customer": "ACME2"}`)),
			textRound("c5", "Sent again."),
		}, path: "/v1/chat/completions",
			first: `{"model":"m","stream":true,"messages":[` + sys + `,{"role":"user","content":"go"}]}`,
			next:  func(t *testing.T, answer string) string { return chatNext(joinedContent(t, answer)) }},
		{name: "responses previous_response_id", yaml: responsesConfig(false), rounds: []upstreamtest.Round{
			textRound("c1", "Adding it. ", call("create_task", `{"title": "Gym <b>é</b>"}`)),
			textRound("c2", "Added Gym."),
			textRound("c3", "Nothing else."),
		}, path: "/v1/responses", first: respFirst, next: respPrevious},
		{name: "responses native previous_response_id", yaml: strings.Replace(responsesConfig(false), "tool_mode: text", "tool_mode: native", 1), rounds: []upstreamtest.Round{
			nativeCallRound("c1", "call_a", "create_task", `{ "title" : "Gym <b>é</b>" }`),
			textRound("c2", "Added Gym."),
			textRound("c3", "Nothing else."),
		}, path: "/v1/responses", first: respFirst, next: respPrevious},
		{name: "responses output items sent back", yaml: responsesConfig(false), rounds: []upstreamtest.Round{
			textRound("c1", "Adding it. ", call("create_task", `{"title": "Gym <b>é</b>"}`)),
			textRound("c2", "Added Gym."),
			textRound("c3", "Nothing else."),
		}, path: "/v1/responses", first: respFirst, next: sendBack(`{"role":"user","content":"and now?"}`)},
		{name: "responses native output items sent back", yaml: strings.Replace(responsesConfig(false), "tool_mode: text", "tool_mode: native", 1), rounds: []upstreamtest.Round{
			nativeCallRound("c1", "call_a", "create_task", `{ "title" : "Gym <b>é</b>" }`),
			textRound("c2", "Added Gym."),
			textRound("c3", "Nothing else."),
		}, path: "/v1/responses", first: respFirst, next: sendBack(`{"role":"user","content":"and now?"}`)},
		{name: "responses client call sent back with its output", yaml: responsesConfig(false), rounds: []upstreamtest.Round{
			textRound("c1", "Adding it. ", call("create_task", `{"title": "Gym"}`)),
			textRound("c2", "Where are you? ", call("get_location", `{}`)),
			textRound("c3", "Gym added, in Paris."),
		}, path: "/v1/responses",
			first: `{"model":"m","instructions":"Be brief.","tools":[{"type":"function","name":"get_location","parameters":{"type":"object"}}],"input":` + respInput + `}`,
			next: func(t *testing.T, answer string) string {
				var a struct {
					Output []struct {
						CallID string `json:"call_id"`
					}
				}
				if err := json.Unmarshal([]byte(answer), &a); err != nil || len(a.Output) == 0 {
					t.Fatalf("answer %s", answer)
				}
				body := sendBack(`{"type":"function_call_output","call_id":"`+a.Output[len(a.Output)-1].CallID+`","output":"Paris"}`)(t, answer)
				return strings.Replace(body, `"input"`, `"tools":[{"type":"function","name":"get_location","parameters":{"type":"object"}}],"input"`, 1)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newResponsesEnv(t, tc.yaml, tc.rounds)
			answer := readAll(t, e.do(t, http.MethodPost, tc.path, tc.first))
			n := len(e.up.Requests())
			second := tc.next(t, answer)
			got := readAll(t, e.do(t, http.MethodPost, tc.path, second))
			if len(e.up.Requests()) != len(tc.rounds) {
				t.Fatalf("%d upstream requests, want %d:\n%s\n%s", len(e.up.Requests()), len(tc.rounds), second, got)
			}
			for _, r := range e.up.Requests() {
				if strings.Contains(string(r.Body), "not loaded yet") {
					t.Errorf("a tool found in the first turn is not callable in the next:\n%s", r.Body)
				}
			}
			checkByteExact(t, e.up.Requests()[n-1:])
		})
	}
}

// sendBack is the next Responses request of a client that keeps the
// conversation itself: the first input, every output item of the answer
// as it came, then then.
func sendBack(then string) func(t *testing.T, answer string) string {
	return func(t *testing.T, answer string) string {
		var a struct{ Output []json.RawMessage }
		if err := json.Unmarshal([]byte(answer), &a); err != nil {
			t.Fatal(err)
		}
		items := `{"role":"user","content":"go"}`
		for _, it := range a.Output {
			items += "," + string(it)
		}
		return `{"model":"m","instructions":"Be brief.","input":[` + items + `,` + then + `]}`
	}
}

// clientCallID is the id of the client tool call a chat stream handed
// out.
func clientCallID(t *testing.T, answer string) string {
	t.Helper()
	for _, d := range sseData(t, answer) {
		var c struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct{ ID string } `json:"tool_calls"`
				}
			}
		}
		json.Unmarshal([]byte(d), &c)
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				if tc.ID != "" {
					return tc.ID
				}
			}
		}
	}
	t.Fatalf("no client call in %s", answer)
	return ""
}

// responseID is the id of a Responses answer.
func responseID(t *testing.T, answer string) string {
	t.Helper()
	var a struct{ ID string }
	if err := json.Unmarshal([]byte(answer), &a); err != nil || a.ID == "" {
		t.Fatalf("no response id in %s", answer)
	}
	return a.ID
}

// TestCachedTokensSummed: the prompt tokens each round's upstream cache
// served are summed over the turn, in each protocol's own usage field,
// the turn's log line and toolstream_tokens_total{kind="cached"}.
func TestCachedTokensSummed(t *testing.T) {
	for _, tc := range []struct {
		name, path, body string
		want             []string
	}{
		{name: "chat", path: "/v1/chat/completions", body: `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"go"}]}`,
			want: []string{`"prompt_tokens":300,`, `"prompt_tokens_details":{"cached_tokens":90}`}},
		{name: "chat not streamed", path: "/v1/chat/completions", body: `{"model":"m","messages":[{"role":"user","content":"go"}]}`,
			want: []string{`"prompt_tokens":300,`, `"cached_tokens":90`}},
		{name: "responses", path: "/v1/responses", body: `{"model":"m","stream":true,"input":"go"}`,
			want: []string{`"input_tokens":300,"input_tokens_details":{"cached_tokens":90}`}},
		{name: "messages", path: "/v1/messages", body: `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"go"}]}`,
			want: []string{`"input_tokens":210`, `"cache_read_input_tokens":90`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &logRecords{}
			rounds := withUsage([]upstreamtest.Round{textRound("c1", call("list_tasks", `{}`)), textRound("c2", "Done.")})
			e := newToolEnv(t, turnConfig(""), rounds, proxy.Options{Logger: slog.New(logs)})
			body := readAll(t, e.do(t, http.MethodPost, tc.path, tc.body))
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("the client's usage lacks %s:\n%s", w, body)
				}
			}
			if l := logs.find("turn"); len(l) != 1 || l[0]["prompt_tokens"] != "300" || l[0]["cached_tokens"] != "90" {
				t.Errorf("turn lines %v, want prompt_tokens=300 cached_tokens=90", l)
			}
			if got := tokenKind(t, e.env, "cached"); got != 90 {
				t.Errorf(`toolstream_tokens_total{kind="cached"} = %v, want 90`, got)
			}
		})
	}
}

// tokenKind reads toolstream_tokens_total of one kind, summed over its
// series; -1 when there is none.
func tokenKind(t *testing.T, e *env, kind string) float64 {
	t.Helper()
	total, seen := 0.0, false
	for _, m := range scrape(t, e)["toolstream_tokens_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "kind" && l.GetValue() == kind {
				total, seen = total+m.GetCounter().GetValue(), true
			}
		}
	}
	if !seen {
		return -1
	}
	return total
}
