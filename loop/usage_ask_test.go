package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
)

// askRecorder is an upstream that keeps every round's body and answers
// each with the next scripted round; refuse, when set, answers a body that
// carries stream_options with the error an upstream that forbids them
// sends, before any byte.
type askRecorder struct {
	mu     sync.Mutex
	rounds [][]string
	bodies []string
	refuse bool
}

// mistralRefusal is Mistral's answer to stream_options, as its API sends it.
const mistralRefusal = `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options","include_usage"],"msg":"Extra inputs are not permitted","input":true}]},"type":"invalid_request_error","param":null,"code":null}`

func (u *askRecorder) Open(_ context.Context, body []byte) (loop.Stream, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.bodies = append(u.bodies, string(body))
	if u.refuse && strings.Contains(string(body), `"stream_options"`) {
		return nil, &loop.UpstreamError{Upstream: "mem", Status: http.StatusUnprocessableEntity, Body: []byte(mistralRefusal)}
	}
	if len(u.rounds) == 0 {
		return nil, errors.New("askRecorder: no round left")
	}
	r := u.rounds[0]
	u.rounds = u.rounds[1:]
	return &scriptedStream{events: r, mark: -1}, nil
}

func (u *askRecorder) sent() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.bodies...)
}

func usageChunk(prompt, completion int) string {
	return fmt.Sprintf(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, prompt, completion, prompt+completion)
}

// asksUsage reports whether a round's body asks for usage.
func asksUsage(t *testing.T, body string) bool {
	t.Helper()
	var b struct {
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		t.Fatalf("round body is not JSON: %v\n%s", err, body)
	}
	return b.StreamOptions != nil && b.StreamOptions.IncludeUsage
}

// roundUsage records what Turn.OnRoundUsage is told.
type roundUsage struct{ calls [][2]int }

func (r *roundUsage) hook(prompt, completion int) {
	r.calls = append(r.calls, [2]int{prompt, completion})
}

// TestUsageCountedNotRelayed: a streaming client that did not ask for usage
// gets its answer without the usage chunk, while the upstream was asked for
// it and the turn counts it. The "usage": null an upstream adds to every
// chunk once asked passes as it came.
func TestUsageCountedNotRelayed(t *testing.T) {
	withNull := func(c string) string { return strings.TrimSuffix(c, "}") + `,"usage":null}` }
	events := []string{
		withNull(chunk(`{"role":"assistant","content":"Hel"}`, "")),
		withNull(chunk(`{"content":"lo."}`, "")),
		withNull(chunk(`{}`, "stop")),
		usageChunk(12, 3),
		"[DONE]",
	}
	up := &askRecorder{rounds: [][]string{events}}
	req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var out chunks
	var hook roundUsage
	var r loop.Runner
	rep, err := r.Run(context.Background(), &loop.Turn{Request: req, Upstream: up, UpstreamName: "mem", OnRoundUsage: hook.hook}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(events[:3:3], "[DONE]"); !cmp.Equal(out.sent, want) {
		t.Errorf("client read\n%s\nwant the upstream's chunks as they came, without the usage chunk\n%s", strings.Join(out.sent, "\n"), strings.Join(want, "\n"))
	}
	if b := up.sent(); len(b) != 1 || !asksUsage(t, b[0]) {
		t.Errorf("upstream bodies %q, want one that asks for usage", b)
	}
	if !rep.UsageKnown || rep.PromptTokens != 12 || rep.CompletionTokens != 3 {
		t.Errorf("report usage %d/%d known %v, want 12/3 known", rep.PromptTokens, rep.CompletionTokens, rep.UsageKnown)
	}
	if want := [][2]int{{12, 3}}; !cmp.Equal(hook.calls, want) {
		t.Errorf("OnRoundUsage got %v, want %v", hook.calls, want)
	}
}

// TestUsageRelayedWhenAsked: a client that asked for usage sends its body
// as it wrote it (no rewrite) and reads the usage chunk byte for byte,
// last before [DONE].
func TestUsageRelayedWhenAsked(t *testing.T) {
	events := []string{chunk(`{"role":"assistant","content":"Hi."}`, ""), chunk(`{}`, "stop"), usageChunk(7, 2), "[DONE]"}
	up := &askRecorder{rounds: [][]string{events}}
	body := `{"model":"m", "stream":true, "stream_options":{"include_usage":true}, "messages":[{"role":"user","content":"hi"}]}`
	req, err := loop.ParseRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var out chunks
	var r loop.Runner
	rep, err := r.Run(context.Background(), &loop.Turn{Request: req, Upstream: up, UpstreamName: "mem"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(out.sent, events) {
		t.Errorf("client read\n%s\nwant\n%s", strings.Join(out.sent, "\n"), strings.Join(events, "\n"))
	}
	if b := up.sent(); len(b) != 1 || b[0] != body {
		t.Errorf("upstream bodies %q, want the client's bytes", b)
	}
	if !rep.UsageKnown || rep.PromptTokens != 7 || rep.CompletionTokens != 2 {
		t.Errorf("report usage %d/%d known %v, want 7/2 known", rep.PromptTokens, rep.CompletionTokens, rep.UsageKnown)
	}
}

// TestUsageToolTurnSums: a turn of two rounds asks both for usage, counts
// each as it ends, and reports the sum; the client, which did not ask,
// reads no usage chunk. A client that asked reads the sum.
func TestUsageToolTurnSums(t *testing.T) {
	tools := []toolhost.Tool{{Name: "create_task", Parameters: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`)}}
	rounds := func() [][]string {
		return [][]string{
			{chunk(`{"role":"assistant","content":"<tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym\"}}\n</tool_call>"}`, ""),
				chunk(`{}`, "stop"), usageChunk(100, 20), "[DONE]"},
			{chunk(`{"role":"assistant","content":"Done."}`, ""), chunk(`{}`, "stop"), usageChunk(150, 5), "[DONE]"},
		}
	}
	for _, asked := range []bool{false, true} {
		t.Run(fmt.Sprintf("asked=%v", asked), func(t *testing.T) {
			so := ""
			if asked {
				so = `"stream_options":{"include_usage":true},`
			}
			req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,` + so + `"messages":[{"role":"user","content":"go"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			lc := config.Default().Loop
			lc.Keepalive = 0
			up := &askRecorder{rounds: rounds()}
			var out chunks
			var hook roundUsage
			r := loop.Runner{NewID: func(p string) string { return p + "1" }}
			rep, err := r.Run(context.Background(), &loop.Turn{Request: req, Upstream: up, UpstreamName: "mem", Format: "hermes",
				Tools: tools, Executor: fixedExec{}, Loop: lc, Mode: config.ToolModeText, OnRoundUsage: hook.hook}, &out)
			if err != nil {
				t.Fatal(err)
			}
			bodies := up.sent()
			if len(bodies) != 2 {
				t.Fatalf("%d rounds, want 2", len(bodies))
			}
			for i, b := range bodies {
				if !asksUsage(t, b) {
					t.Errorf("round %d does not ask for usage: %s", i+1, b)
				}
			}
			if !rep.UsageKnown || rep.PromptTokens != 250 || rep.CompletionTokens != 25 {
				t.Errorf("report usage %d/%d known %v, want 250/25 known", rep.PromptTokens, rep.CompletionTokens, rep.UsageKnown)
			}
			if want := [][2]int{{100, 20}, {150, 5}}; !cmp.Equal(hook.calls, want) {
				t.Errorf("OnRoundUsage got %v, want one call per round %v", hook.calls, want)
			}
			var usage []string
			for _, c := range out.sent {
				if strings.Contains(c, `"usage"`) {
					usage = append(usage, c)
				}
			}
			switch {
			case !asked && len(usage) > 0:
				t.Errorf("the client did not ask, yet read usage: %q", usage)
			case asked && (len(usage) != 1 || !strings.Contains(usage[0], `"prompt_tokens":250`) || !strings.Contains(usage[0], `"completion_tokens":25`)):
				t.Errorf("the client asked and read %q, want one usage chunk with the sum", usage)
			}
		})
	}
}

// TestUsageRefused: an upstream that refuses stream_options gets the same
// round once more without them, and the runner asks it no more: the next
// turn's first request carries none. Usage is unknown for both turns. In a
// turn with tools, every round after the refusal goes without too.
func TestUsageRefused(t *testing.T) {
	text := func() []string {
		return []string{chunk(`{"role":"assistant","content":"Hi."}`, ""), chunk(`{}`, "stop"), "[DONE]"}
	}
	tools := []toolhost.Tool{{Name: "create_task", Parameters: json.RawMessage(`{"type":"object"}`)}}
	call := []string{chunk(`{"role":"assistant","content":"<tool_call>\n{\"name\": \"create_task\", \"arguments\": {}}\n</tool_call>"}`, ""), chunk(`{}`, "stop"), "[DONE]"}
	for _, tc := range []struct {
		name  string
		tools []toolhost.Tool
		// rounds answered per turn; want lists, per turn, whether each
		// request carried stream_options.
		rounds [][]string
		want   [][]bool
	}{
		{"plain", nil, [][]string{text(), text()}, [][]bool{{true, false}, {false}}},
		{"tools", tools, [][]string{call, text(), text()}, [][]bool{{true, false, false}, {false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lc := config.Default().Loop
			lc.Keepalive = 0
			up := &askRecorder{rounds: tc.rounds, refuse: true}
			r := loop.Runner{NewID: func(p string) string { return p + "1" }}
			seen := 0
			for turn, want := range tc.want {
				req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
				if err != nil {
					t.Fatal(err)
				}
				var tools []toolhost.Tool
				if turn == 0 {
					tools = tc.tools
				}
				var hook roundUsage
				var out chunks
				rep, err := r.Run(context.Background(), &loop.Turn{Request: req, Upstream: up, UpstreamName: "mem", Format: "hermes",
					Tools: tools, Executor: fixedExec{}, Loop: lc, Mode: config.ToolModeText, OnRoundUsage: hook.hook}, &out)
				if err != nil {
					t.Fatalf("turn %d: %v", turn+1, err)
				}
				bodies := up.sent()[seen:]
				seen += len(bodies)
				var got []bool
				for _, b := range bodies {
					got = append(got, strings.Contains(b, `"stream_options"`))
				}
				if !cmp.Equal(got, want) {
					t.Errorf("turn %d: requests carried stream_options %v, want %v", turn+1, got, want)
				}
				if rep.UsageKnown || len(hook.calls) > 0 {
					t.Errorf("turn %d: usage known %v, hook %v; want unknown", turn+1, rep.UsageKnown, hook.calls)
				}
				if last := out.sent[len(out.sent)-1]; last != "[DONE]" {
					t.Errorf("turn %d ended with %s", turn+1, last)
				}
			}
		})
	}
}

// TestUsageRefusedClientAsked: when the client asked for usage itself, the
// refusal is its to read: nothing is sent again.
func TestUsageRefusedClientAsked(t *testing.T) {
	up := &askRecorder{refuse: true}
	req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var r loop.Runner
	_, err = r.Run(context.Background(), &loop.Turn{Request: req, Upstream: up, UpstreamName: "mem"}, &chunks{})
	var ue *loop.UpstreamError
	if !errors.As(err, &ue) || ue.Status != http.StatusUnprocessableEntity {
		t.Errorf("error %v, want the upstream's 422", err)
	}
	if n := len(up.sent()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
