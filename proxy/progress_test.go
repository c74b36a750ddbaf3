package proxy_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// progressHook is a webhook answering with an event stream: progress 1..4
// of 4, 150ms apart (more than the 100ms between two events of a call, so
// each shows), then the result.
func progressHook(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 1; i <= 4; i++ {
			fmt.Fprintf(w, "event: progress\ndata: {\"progress\":%d,\"total\":4,\"message\":\"step %d\"}\n\n", i, i)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(150 * time.Millisecond):
			}
		}
		fmt.Fprint(w, "event: result\ndata: {\"built\":true}\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func progressEnv(t *testing.T) *turnEnv {
	t.Helper()
	yaml := "loop:\n  keepalive: 0s\n" + textUpstream + `tools:
  - name: build
    webhook: {url: "` + progressHook(t) + `"}
`
	return newTurnEnv(t, yaml, []upstreamtest.Round{
		textRound("p1", "Building. ", call("build", `{}`)),
		textRound("p2", "Built."),
	})
}

// progressValues lists the progress values of the tool.progress events in
// body, in order, and checks they all come before tool.finished.
func progressValues(t *testing.T, body, event string) []int {
	t.Helper()
	finished := strings.Index(body, `"tool.finished"`)
	var got []int
	for _, m := range regexp.MustCompile(event+`[^\n]*?"progress":(\d+)`).FindAllStringSubmatchIndex(body, -1) {
		if finished >= 0 && m[0] > finished {
			t.Errorf("a progress event after tool.finished:\n%s", body)
		}
		n, _ := strconv.Atoi(body[m[2]:m[3]])
		got = append(got, n)
	}
	return got
}

// TestWebhookProgressEvents: a webhook that streams progress shows as
// tool.progress events in a chat stream, each carrying call_id, name and
// round, before tool.finished.
func TestWebhookProgressEvents(t *testing.T) {
	e := progressEnv(t)
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest)
	body := readAll(t, resp)
	if got := progressValues(t, body, `"event":"tool.progress"`); fmt.Sprint(got) != "[1 2 3 4]" {
		t.Errorf("progress %v, want [1 2 3 4]:\n%s", got, body)
	}
	mustContain(t, "the client stream", body,
		`"toolstream":{"event":"tool.progress","call_id":"call_1","name":"build","round":1,"progress":1,"total":4,"message":"step 1"}`,
		`"event":"tool.finished","call_id":"call_1","name":"build","round":1,"status":"ok","result":{"built":true}`, "Built.")
	if strings.Index(body, `"event":"tool.started"`) > strings.Index(body, `"event":"tool.progress"`) {
		t.Errorf("progress before tool.started:\n%s", body)
	}
}

// TestWebhookProgressResponses: on /v1/responses a client that asked for
// toolstream's events gets toolstream.tool.progress; one that did not gets
// keepalive comments in their place, never an event type its SDK does not
// know.
func TestWebhookProgressResponses(t *testing.T) {
	t.Run("asked", func(t *testing.T) {
		e := progressEnv(t)
		body := readAll(t, e.do(t, http.MethodPost, "/v1/responses", `{"model":"m","stream":true,"input":"go","toolstream":{"events":true}}`))
		if got := progressValues(t, body, `"type":"toolstream.tool.progress"`); fmt.Sprint(got) != "[1 2 3 4]" {
			t.Errorf("progress %v, want [1 2 3 4]:\n%s", got, body)
		}
		mustContain(t, "the response stream", body, "event: toolstream.tool.progress\n", `"response.completed"`)
	})
	t.Run("not asked", func(t *testing.T) {
		e := progressEnv(t)
		body := readAll(t, e.do(t, http.MethodPost, "/v1/responses", `{"model":"m","stream":true,"input":"go"}`))
		if strings.Contains(body, "tool.progress") {
			t.Errorf("progress shown unasked:\n%s", body)
		}
		mustContain(t, "the response stream", body, ": keepalive\n", `"response.completed"`)
	})
}

// TestWebhookProgressMessages: /v1/messages has no event for progress
// (Anthropic's SDKs throw on unknown types): the stream gets pings.
func TestWebhookProgressMessages(t *testing.T) {
	e := progressEnv(t)
	body := readAll(t, e.do(t, http.MethodPost, "/v1/messages", `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"go"}]}`))
	if strings.Contains(body, "progress") {
		t.Errorf("progress shown on Messages:\n%s", body)
	}
	use, result := strings.Index(body, `"type":"mcp_tool_use"`), strings.Index(body, `"type":"mcp_tool_result"`)
	if pings := strings.Count(body[max(use, 0):max(result, 0)], "event: ping\n"); use < 0 || result < 0 || pings < 4 {
		t.Errorf("%d pings between the tool's use and its result, want one per update:\n%s", pings, body)
	}
	mustContain(t, "the message stream", body, "event: message_stop")
}

// TestMCPEverythingProgressTurn: a text-mode turn calls the reference MCP
// server's long-running operation (installed by .ci/run), which reports a
// step every half second; the client sees tool.progress events with
// growing progress before tool.finished. The server's last notification
// may lose its race with the result (see toolhost/mcp's progress), so the
// test asks for most steps, not all.
func TestMCPEverythingProgressTurn(t *testing.T) {
	script := everythingScript(t)
	e := mcpTurnEnv(t, textUpstream, config.MCPServer{
		Name: "everything", Command: "node", Args: []string{script, "stdio"},
		Tools: []string{"trigger-long-running-operation"}, Prefix: "ev_", Approval: "never",
	},
		textRound("l1", "Starting. ", call("ev_trigger-long-running-operation", `{"duration": "2", "steps": "4"}`)),
		textRound("l2", "It finished."))
	body, _ := mcpTurn(t, e)
	got := progressValues(t, body, `"event":"tool.progress"`)
	if len(got) < 3 {
		t.Errorf("progress %v, want at least 3 of the 4 steps:\n%s", got, body)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Errorf("progress %v does not grow", got)
		}
	}
	mustContain(t, "the client stream", body, `"name":"ev_trigger-long-running-operation","round":1,"progress":1,"total":4`,
		`"status":"ok","result":"Long running operation completed. Duration: 2 seconds, Steps: 4."`, "It finished.")
	t.Logf("progress seen: %v", got)
}
