package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// turnConfig is a text-mode config with two webhook tools; extra lines go
// under loop:.
func turnConfig(loopExtra string) string {
	return `loop:
  keepalive: 0s
` + loopExtra + textUpstream + `tools:
  - name: create_task
    parameters:
      type: object
      properties:
        title: {type: string}
      required: [title]
    webhook: {url: "${WEBHOOK}/create_task"}
  - name: list_tasks
    webhook: {url: "${WEBHOOK}/list_tasks"}
`
}

// textUpstream routes every model to the scripted upstream in text mode
// with the hermes format.
const textUpstream = `upstreams:
  - name: up
    base_url: ${UPSTREAM}
    models: ["*"]
    tool_mode: text
    text_format: hermes
`

func call(name, args string) string {
	return "<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": " + args + "}\n</tool_call>"
}

func textRound(id string, parts ...string) upstreamtest.Round {
	return upstreamtest.Round{Events: upstreamtest.Text(id, "m", parts...)}
}

const toolRequest = `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`

// TestNonStreamingToolTurn: a client without stream gets one
// chat.completion: both rounds' text joined, the final finish, usage summed
// over the rounds (toolstream asks each round for it), and the events list.
func TestNonStreamingToolTurn(t *testing.T) {
	r1 := upstreamtest.Round{Events: append(upstreamtest.Text("c1", "m", "Let me add it. ", call("create_task", `{"title":"Gym"}`)), upstreamtest.Usage("c1", "m", 10, 5))}
	r2 := upstreamtest.Round{Events: append(upstreamtest.Text("c2", "m", "Added Gym."), upstreamtest.Usage("c2", "m", 30, 3))}
	e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{r1, r2})
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"add gym"}]}`)
	body := readAll(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var got struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
			TotalTokens      int `json:"total_tokens"`
		} `json:"usage"`
		Toolstream struct {
			Events []struct {
				Event  string `json:"event"`
				Name   string `json:"name"`
				Status string `json:"status"`
			} `json:"events"`
		} `json:"toolstream"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != "c1" || got.Object != "chat.completion" || len(got.Choices) != 1 {
		t.Fatalf("envelope %+v", got)
	}
	c := got.Choices[0]
	if c.Message.Role != "assistant" || c.Message.Content != "Let me add it. Added Gym." || c.FinishReason != "stop" {
		t.Errorf("message %+v finish %q", c.Message, c.FinishReason)
	}
	if got.Usage.PromptTokens != 40 || got.Usage.CompletionTokens != 8 || got.Usage.TotalTokens != 48 {
		t.Errorf("usage %+v, want the sum of both rounds", got.Usage)
	}
	var evs []string
	for _, ev := range got.Toolstream.Events {
		evs = append(evs, ev.Event+" "+ev.Name+" "+ev.Status)
	}
	want := []string{"tool.started create_task ", "tool.finished create_task ok", "round.started  "}
	if !cmp.Equal(evs, want) {
		t.Errorf("events %q, want %q", evs, want)
	}
	// The upstream was asked to stream with usage, though the client was not.
	for i, r := range e.up.Requests() {
		if !strings.Contains(string(r.Body), `"stream":true`) || !strings.Contains(string(r.Body), `"include_usage":true`) {
			t.Errorf("round %d body does not stream with usage: %s", i+1, r.Body)
		}
	}
}

// TestNonStreamingFailureAfterTool: when a non-streaming turn fails after a
// tool ran, the error says x-should-retry: false so SDKs do not replay the
// turn and its side effects.
func TestNonStreamingFailureAfterTool(t *testing.T) {
	r1 := textRound("c1", call("create_task", `{"title":"Gym"}`))
	r2 := upstreamtest.Round{Status: 503, Body: `{"error":{"message":"down","type":"server_error","param":null,"code":null}}`}
	e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{r1, r2, r2, r2})
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"add gym"}]}`)
	body := readAll(t, resp)
	if resp.StatusCode != 503 || resp.Header.Get("X-Should-Retry") != "false" {
		t.Errorf("status %d x-should-retry %q: %s", resp.StatusCode, resp.Header.Get("X-Should-Retry"), body)
	}
}

// TestCallStartsWhileStreamFlows (docs/tool-calls.md): the upstream holds the
// rest of its round until the webhook has been called, so the test only
// finishes if the call starts while the stream is still open; the text
// after the block still reaches the client.
func TestCallStartsWhileStreamFlows(t *testing.T) {
	gate := make(chan struct{})
	r1 := upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "Adding. ", call("create_task", `{"title":"Gym"}`), " Meanwhile, more text."),
		Gate: gate, GateAfter: 3}
	e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{r1, textRound("c2", "Done.")})
	go func() {
		<-e.hooks.arrivals
		close(gate)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	body := readAll(t, e.doCtx(t, ctx, http.MethodPost, "/v1/chat/completions", toolRequest))
	if got := joinedContent(t, body); got != "Adding.  Meanwhile, more text.Done." {
		t.Errorf("content %q", got)
	}
}

// TestSequentialCalls: without parallel_tools the second call is sent only
// after the first answered.
func TestSequentialCalls(t *testing.T) {
	r1 := textRound("c1", call("create_task", `{"title":"A"}`)+call("list_tasks", `{}`))
	e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{r1, textRound("c2", "ok")})
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest))
	e.hooks.mu.Lock()
	defer e.hooks.mu.Unlock()
	if want := []string{"start:create_task", "end:create_task", "start:list_tasks", "end:list_tasks"}; !cmp.Equal(e.hooks.log, want) {
		t.Errorf("webhook order %v, want %v", e.hooks.log, want)
	}
}

// TestParallelCalls: with parallel_tools both calls are in flight at once
// (each webhook waits for the other to arrive, which would never happen one
// after the other), and the results still go back in call order.
func TestParallelCalls(t *testing.T) {
	r1 := textRound("c1", call("create_task", `{"title":"A"}`)+call("list_tasks", `{}`))
	// A short tool timeout: run one after the other, the first call would
	// time out waiting for the second.
	e := newTurnEnv(t, turnConfig("  parallel_tools: true\n  tool_timeout: 3s\n"), []upstreamtest.Round{r1, textRound("c2", "ok")})
	gate := make(chan struct{}) // released only once both requests are in
	for _, tool := range []string{"create_task", "list_tasks"} {
		e.hooks.answer(tool, hookAnswer{body: `{"tool":"` + tool + `"}`, wait: gate})
	}
	go func() {
		<-e.hooks.arrivals
		<-e.hooks.arrivals
		close(gate)
	}()
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest))
	if !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Fatalf("turn did not finish: %s", body)
	}
	feedback := string(e.up.Requests()[1].Body)
	if strings.Contains(feedback, "TIMEOUT") {
		t.Fatalf("a call timed out: the calls did not run at the same time: %s", feedback)
	}
	first, second := strings.Index(feedback, `\"tool\":\"create_task\"`), strings.Index(feedback, `\"tool\":\"list_tasks\"`)
	if first < 0 || second < 0 || first > second {
		t.Errorf("results not fed back in call order: %s", feedback)
	}
}

// TestDisconnectCancelsCalls: the client hangs up while a webhook is
// running; the webhook's request is cancelled and no further round starts.
func TestDisconnectCancelsCalls(t *testing.T) {
	r1 := textRound("c1", "Working. ", call("create_task", `{"title":"Slow"}`))
	e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{r1, textRound("c2", "never")})
	e.hooks.answer("create_task", hookAnswer{body: `{}`, wait: make(chan struct{})})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := e.doCtx(t, ctx, http.MethodPost, "/v1/chat/completions", toolRequest)
	select {
	case <-e.hooks.arrivals:
	case <-time.After(10 * time.Second):
		t.Fatal("the webhook was never called")
	}
	cancel()
	resp.Body.Close()
	select {
	case <-e.hooks.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the webhook request was not cancelled after the client hung up")
	}
	if n := len(e.up.Requests()); n != 1 {
		t.Errorf("upstream saw %d rounds, want 1", n)
	}
}

// TestKeepaliveWhileToolRuns: a slow tool keeps the stream alive with
// ": keepalive" comments; the webhook is released only once the client has
// seen one.
func TestKeepaliveWhileToolRuns(t *testing.T) {
	r1 := textRound("c1", "Working. ", call("create_task", `{"title":"Slow"}`))
	e := newTurnEnv(t, strings.Replace(turnConfig(""), "keepalive: 0s", "keepalive: 10ms", 1), []upstreamtest.Round{r1, textRound("c2", "Done.")})
	release := make(chan struct{})
	e.hooks.answer("create_task", hookAnswer{body: `{}`, wait: release})
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var rest strings.Builder
	released := false
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			break
		}
		if line == ": keepalive\n" && !released {
			released = true
			close(release)
		}
		rest.WriteString(line)
	}
	if !released {
		t.Fatal("no keepalive while the tool ran")
	}
	if !strings.HasSuffix(rest.String(), "data: [DONE]\n\n") || joinedContent(t, rest.String()) != "Working. Done." {
		t.Errorf("stream after keepalives: %s", rest.String())
	}
}

// joinedContent concatenates delta.content over a stream's chunks.
func joinedContent(t *testing.T, body string) string {
	t.Helper()
	var b strings.Builder
	for _, d := range sseData(t, body) {
		if d == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("bad chunk %s: %v", d, err)
		}
		for _, ch := range c.Choices {
			b.WriteString(ch.Delta.Content)
		}
	}
	return b.String()
}

// TestTextModeLengthMidBlock: a text-mode reply cut by max_tokens inside a
// tool block leaves it unclosed: a PARSE_ERROR the next round reads
// (docs/tool-calls.md), not a silent drop.
func TestTextModeLengthMidBlock(t *testing.T) {
	r1 := upstreamtest.Round{Events: []string{
		upstreamtest.Chunk("c1", "m", `{"role":"assistant","content":"Adding. <tool_call>\n{\"name\": \"create_task\", \"argu"}`, ""),
		upstreamtest.Chunk("c1", "m", `{}`, "length"),
	}}
	e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{r1, textRound("c2", "Sorry, I ran out of room.")})
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest))
	if got := joinedContent(t, body); got != "Adding. Sorry, I ran out of room." {
		t.Errorf("client read %q", got)
	}
	if !strings.Contains(body, `"code":"PARSE_ERROR"`) || !strings.Contains(body, `"finish_reason":"stop"`) {
		t.Errorf("want a PARSE_ERROR event and the last round's finish: %s", body)
	}
	if fb := string(e.up.Requests()[1].Body); !strings.Contains(fb, "PARSE_ERROR") || !strings.Contains(fb, "not closed") {
		t.Errorf("round 2 does not tell the model: %s", fb)
	}
}

// TestMarkupOnFinishChunk: a model whose last chunk carries the close of
// its tool block together with the finish (llama.cpp sends its last tokens
// with the finish_reason) shows none of that markup. A call to the
// client's own tool written as text becomes a native tool call, and the
// round's held finish chunk goes out as the turn's last — without the
// markup it carried.
func TestMarkupOnFinishChunk(t *testing.T) {
	cfg := strings.Replace(turnConfig(""), "tool_mode: text", "tool_mode: native", 1)
	r1 := upstreamtest.Round{Events: []string{
		upstreamtest.Chunk("c1", "m", `{"role":"assistant","content":"Checking. <tool_call>\n{\"name\": \"get_location\", \"arguments\": {}}\n"}`, ""),
		upstreamtest.Chunk("c1", "m", `{"content":"</tool_call>"}`, "stop"),
	}}
	e := newTurnEnv(t, cfg, []upstreamtest.Round{r1})
	tools := `[{"type":"function","function":{"name":"get_location","parameters":{"type":"object","properties":{}}}}]`
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"m","stream":true,"tools":`+tools+`,"messages":[{"role":"user","content":"where am I"}]}`))
	if strings.Contains(body, "tool_call>") {
		t.Errorf("markup reached the client: %s", body)
	}
	if got := joinedContent(t, body); got != "Checking. " {
		t.Errorf("client read %q", got)
	}
	if !strings.Contains(body, `"name":"get_location"`) || !strings.Contains(body, `"finish_reason":"tool_calls"`) {
		t.Errorf("want the call as a native tool call and finish_reason tool_calls: %s", body)
	}
}
