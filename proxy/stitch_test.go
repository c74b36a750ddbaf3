package proxy_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/proxy/wiring"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// openStore opens a badger store behind store.Checked, as the wiring
// does, and closes it when the test ends.
func openStore(t *testing.T, cfg config.Storage, opts badger.Options) store.Store {
	t.Helper()
	db, err := badger.Open(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	st := store.Checked(db)
	t.Cleanup(func() { st.Close() })
	return st
}

// wired is st wired as serve wires it, for the process "inst_test";
// its write retries stop when the test ends.
func wired(t *testing.T, st store.Store) *wiring.Storage {
	t.Helper()
	w := wiring.New(st, "inst_test", config.Storage{}, nil)
	t.Cleanup(func() { w.Close() })
	return w
}

func memStore(t *testing.T) store.Store {
	return openStore(t, config.Storage{InMemory: true, TurnRetention: time.Hour, AuditRetention: time.Hour}, badger.Options{})
}

// upstreamMessages returns the messages of the upstream's request i.
func upstreamMessages(t *testing.T, e *turnEnv, i int) []map[string]any {
	t.Helper()
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(e.up.Requests()[i].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Messages
}

func roles(msgs []map[string]any) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m["role"].(string))
	}
	return out
}

// checkToolHistory fails unless every tool_call of an assistant message is
// answered by exactly one following role "tool" message before the next
// assistant or user message, and every tool message answers a call: what
// OpenAI-compatible servers require of a history.
func checkToolHistory(t *testing.T, msgs []map[string]any) {
	t.Helper()
	open := map[string]bool{}
	for i, m := range msgs {
		switch m["role"] {
		case "assistant", "user", "system":
			if len(open) > 0 {
				t.Errorf("message %d (%s) comes before results for %v", i, m["role"], open)
			}
			open = map[string]bool{}
			if calls, ok := m["tool_calls"].([]any); ok {
				for _, c := range calls {
					open[c.(map[string]any)["id"].(string)] = true
				}
			}
		case "tool":
			id := m["tool_call_id"].(string)
			if !open[id] {
				t.Errorf("message %d answers %s, which no open call has", i, id)
			}
			delete(open, id)
		}
	}
	if len(open) > 0 {
		t.Errorf("calls without results at the end: %v", open)
	}
}

// TestStitchTextTurn (docs/operations.md): after a text-mode turn the client
// sends back only the text it saw; the upstream's next round gets the earlier
// calls and results in place.
func TestStitchTextTurn(t *testing.T) {
	r1 := textRound("c1", "Adding it. ", call("create_task", `{"title":"Gym"}`))
	r2 := textRound("c2", "Added Gym.")
	r3 := textRound("c3", "You asked for Gym.")
	e := newTurnEnvStore(t, turnConfig(""), []upstreamtest.Round{r1, r2, r3}, memStore(t))
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest))
	seen := joinedContent(t, body)
	if seen != "Adding it. Added Gym." {
		t.Fatalf("first turn read %q", seen)
	}
	next := `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":` + quoteJSON(seen) + `},{"role":"user","content":"what did you add?"}]}`
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", next))

	msgs := upstreamMessages(t, e, 2)
	want := []string{"system", "user", "assistant", "user", "assistant", "user"}
	if got := roles(msgs); !cmp.Equal(got, want) {
		t.Fatalf("roles %v, want %v", got, want)
	}
	if c := msgs[2]["content"].(string); !strings.Contains(c, "<tool_call>") || !strings.HasPrefix(c, "Adding it. ") {
		t.Errorf("round 1 text not restored as written: %q", c)
	}
	if c := msgs[3]["content"].(string); !strings.Contains(c, `"title":"Gym"`) || !strings.Contains(c, "<tool_response>") {
		t.Errorf("results not restored: %q", c)
	}
	if c := msgs[4]["content"].(string); c != "Added Gym." {
		t.Errorf("final text %q", c)
	}
	if c := msgs[5]["content"].(string); c != "what did you add?" {
		t.Errorf("the new question moved: %q", c)
	}
}

// TestStitchUnknownMessage: an assistant message toolstream never sent is
// forwarded as it is, and the body stays byte for byte the client's, but
// for the usage ask at its end.
func TestStitchUnknownMessage(t *testing.T) {
	e := newTurnEnvStore(t, turnConfig(""), []upstreamtest.Round{textRound("c1", "ok")}, memStore(t))
	body := `{"model":"m","stream":true,"tool_choice":"none","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"Hello from elsewhere"},{"role":"user","content":"again"}]}`
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", body))
	if got, want := string(e.up.Requests()[0].Body), strings.TrimSuffix(body, "}")+`,"stream_options":{"include_usage":true}}`; got != want {
		t.Errorf("upstream got\n%s\nwant the client's body and the usage ask\n%s", got, want)
	}
}

// TestStitchMarkdownCard: with display: markdown the client may keep only
// its own rendering of the message; the card's call id still finds the
// turn, and the card is never forwarded as prose.
func TestStitchMarkdownCard(t *testing.T) {
	r1 := textRound("c1", call("create_task", `{"title":"Gym"}`))
	r2 := textRound("c2", "Added.")
	e := newTurnEnvStore(t, strings.Replace(turnConfig(""), "keepalive: 0s", "keepalive: 0s\n  display: markdown", 1),
		[]upstreamtest.Round{r1, r2, textRound("c3", "ok")}, memStore(t))
	seen := joinedContent(t, readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest)))
	if !strings.Contains(seen, `id="call_1"`) {
		t.Fatalf("no card in %q", seen)
	}
	edited := strings.Replace(seen, "Added.", "Added (edited by the app).", 1)
	next := `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":` + quoteJSON(edited) + `},{"role":"user","content":"thanks"}]}`
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", next))
	for _, m := range upstreamMessages(t, e, 2) {
		if c, _ := m["content"].(string); strings.Contains(c, "<details") {
			t.Errorf("a card reached the upstream as prose: %q", c)
		}
	}
}

// TestStitchNativeMixed is the SDK tool-runner case: the upstream calls a
// server tool and a client tool in one round; the client runs its own and
// sends back what it saw; the upstream's next round must see the server
// call and its result back in place, in a valid history.
func TestStitchNativeMixed(t *testing.T) {
	cfg := strings.Replace(turnConfig(""), "tool_mode: text", "tool_mode: native", 1)
	msgs := stitchNativeMixed(t, cfg, []string{"user", "assistant", "tool", "tool"})
	msgs = msgs[len(msgs)-3:] // the assistant's round and its results
	var ids []string
	for _, c := range msgs[0]["tool_calls"].([]any) {
		ids = append(ids, c.(map[string]any)["id"].(string))
	}
	if want := []string{"call_srv", "call_cli"}; !cmp.Equal(ids, want) {
		t.Errorf("assistant tool_calls %v, want %v", ids, want)
	}
	if msgs[1]["tool_call_id"] != "call_srv" || !strings.Contains(msgs[1]["content"].(string), `"ok":true`) {
		t.Errorf("server result not in place: %v", msgs[1])
	}
	checkToolHistory(t, msgs)
}

// TestStitchNativeMixedTextUpstream: the same round from a text-mode
// upstream that parses calls itself. The model reads it back as a
// text-mode model reads its history: both calls in the taught syntax, and
// both results, the server's and the client's, in one frame, in order.
func TestStitchNativeMixedTextUpstream(t *testing.T) {
	msgs := stitchNativeMixed(t, turnConfig(""), []string{"system", "user", "assistant", "user"})
	calls := msgs[2]["content"].(string)
	if a, b := strings.Index(calls, `{"name": "create_task", "arguments": {"title": "Gym"}}`), strings.Index(calls, `{"name": "get_location", "arguments": {}}`); a < 0 || b < a || strings.Count(calls, "<tool_call>") != 2 {
		t.Errorf("calls not in the taught syntax, in order: %q", calls)
	}
	frame := msgs[3]["content"].(string)
	if a, b := strings.Index(frame, `"call_id":"call_srv","content":{"arguments":{"title":"Gym"},"ok":true}`), strings.Index(frame, `"call_id":"call_cli","content":{"city":"Paris"}`); a < 0 || b < a || strings.Count(frame, "<tool_response>") != 2 {
		t.Errorf("results not framed together, in order: %q", frame)
	}
}

func stitchNativeMixed(t *testing.T, cfg string, wantRoles []string) []map[string]any {
	t.Helper()
	r1 := upstreamtest.Round{Events: []string{
		upstreamtest.Chunk("m1", "m", `{"role":"assistant","content":null}`, ""),
		upstreamtest.Chunk("m1", "m", `{"tool_calls":[{"index":0,"id":"call_srv","type":"function","function":{"name":"create_task","arguments":"{\"title\":\"Gym\"}"}}]}`, ""),
		upstreamtest.Chunk("m1", "m", `{"tool_calls":[{"index":1,"id":"call_cli","type":"function","function":{"name":"get_location","arguments":"{}"}}]}`, ""),
		upstreamtest.Chunk("m1", "m", `{}`, "tool_calls"),
	}}
	e := newTurnEnvStore(t, cfg, []upstreamtest.Round{r1, textRound("m2", "Gym added near you.")}, memStore(t))
	tools := `[{"type":"function","function":{"name":"get_location","parameters":{"type":"object","properties":{}}}}]`
	first := `{"model":"m","stream":true,"tools":` + tools + `,"messages":[{"role":"user","content":"add gym near me"}]}`
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", first))
	if !strings.Contains(body, `"finish_reason":"tool_calls"`) || strings.Contains(body, "call_srv\",\"type") {
		t.Fatalf("first turn: %s", body)
	}
	// What the SDK sends next: its assistant message with its own call,
	// and its result.
	next := `{"model":"m","stream":true,"tools":` + tools + `,"messages":[{"role":"user","content":"add gym near me"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_cli","type":"function","function":{"name":"get_location","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_cli","content":"{\"city\":\"Paris\"}"}]}`
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", next))
	msgs := upstreamMessages(t, e, 1)
	if got := roles(msgs); !cmp.Equal(got, wantRoles) {
		t.Fatalf("roles %v, want %v: %v", got, wantRoles, msgs)
	}
	return msgs
}

// TestStitchAfterRestart: turn records and the auto-mode memory live in
// badger on disk; a new process on the same directory stitches the earlier
// turn and goes straight to text mode.
func TestStitchAfterRestart(t *testing.T) {
	dir := t.TempDir()
	storage := config.Storage{Path: dir, TurnRetention: time.Hour, AuditRetention: time.Hour}
	cfg := strings.Replace(turnConfig(""), "tool_mode: text", "tool_mode: auto", 1)
	refuse := upstreamtest.Round{Status: 400, Body: `{"error":{"message":"model does not support tools","type":"api_error","param":null,"code":null}}`}

	st := openStore(t, storage, badger.Options{})
	e := newTurnEnvStore(t, cfg, []upstreamtest.Round{refuse, textRound("c1", call("create_task", `{"title":"Gym"}`)), textRound("c2", "Added Gym.")}, st)
	seen := joinedContent(t, readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest)))
	if n := len(e.up.Requests()); n != 3 || seen != "Added Gym." {
		t.Fatalf("first process: %d upstream requests, read %q", n, seen)
	}
	st.Close()

	st2 := openStore(t, storage, badger.Options{})
	e2 := newTurnEnvStore(t, cfg, []upstreamtest.Round{textRound("c3", "It was Gym.")}, st2)
	next := `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":` + quoteJSON(seen) + `},{"role":"user","content":"which?"}]}`
	body := readAll(t, e2.do(t, http.MethodPost, "/v1/chat/completions", next))
	if strings.Contains(body, "mode.fallback") {
		t.Errorf("the remembered fallback was tried again: %s", body)
	}
	reqs := e2.up.Requests()
	if len(reqs) != 1 || strings.Contains(string(reqs[0].Body), `"tools"`) {
		t.Fatalf("after restart the upstream got %d requests; first: %s", len(reqs), reqs[0].Body)
	}
	msgs := upstreamMessages(t, e2, 0)
	if got, want := roles(msgs), []string{"system", "user", "assistant", "user", "assistant", "user"}; !cmp.Equal(got, want) {
		t.Errorf("roles %v, want %v", got, want)
	}
}

// TestStitchExpired: a record past turn_retention is not used.
func TestStitchExpired(t *testing.T) {
	old := func() time.Time { return time.Now().Add(-2 * time.Hour) }
	st := openStore(t, config.Storage{InMemory: true, TurnRetention: time.Hour, AuditRetention: time.Hour}, badger.Options{Now: old})
	e := newTurnEnvStore(t, turnConfig(""), []upstreamtest.Round{textRound("c1", call("list_tasks", `{}`)), textRound("c2", "Empty."), textRound("c3", "ok")}, st)
	seen := joinedContent(t, readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest)))
	next := `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":` + quoteJSON(seen) + `},{"role":"user","content":"and?"}]}`
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", next))
	if got := roles(upstreamMessages(t, e, 2)); !cmp.Equal(got, []string{"system", "user", "assistant", "user"}) {
		t.Errorf("an expired record was stitched: roles %v", got)
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestStitchCollidingUpstreamIDs: Ollama numbers its completions
// "chatcmpl-0" to "chatcmpl-998", so two turns often share the id their
// client reads. Each turn's stored rounds must still be its own: a later
// request quoting the first turn gets the first turn's calls back, not
// the second's.
func TestStitchCollidingUpstreamIDs(t *testing.T) {
	const id = "chatcmpl-7"
	rounds := []upstreamtest.Round{
		textRound(id, "Adding Gym. ", call("create_task", `{"title":"Gym"}`)), textRound(id, "Added Gym."),
		textRound(id, "Adding Swim. ", call("create_task", `{"title":"Swim"}`)), textRound(id, "Added Swim."),
		textRound(id, "ok"),
	}
	e := newTurnEnvStore(t, turnConfig(""), rounds, memStore(t))
	first := joinedContent(t, readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest)))
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", strings.Replace(toolRequest, `"go"`, `"swim"`, 1)))
	next := `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":` + quoteJSON(first) + `},{"role":"user","content":"what did you add?"}]}`
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", next))
	msgs := upstreamMessages(t, e, 4)
	if len(msgs) < 4 {
		t.Fatalf("the history was not restored: %v", msgs)
	}
	if c, _ := msgs[3]["content"].(string); !strings.Contains(c, `"title":"Gym"`) || strings.Contains(c, "Swim") {
		t.Errorf("the first turn's history came back as %q", c)
	}
}
