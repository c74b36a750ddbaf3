package proxy_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
)

// newToolEnv is newTurnEnv with options of the test's own (a logger for
// the proxy and the tool host, a pending-approvals gauge).
func newToolEnv(t *testing.T, yaml string, rounds []upstreamtest.Round, opts proxy.Options) *turnEnv {
	t.Helper()
	p := newParts(t, yaml, rounds)
	opts.Tools = p.host(t, toolhost.Options{Logger: opts.Logger})
	return p.serve(t, opts)
}

// hermes returns a content chunk holding a hermes call without arguments.
func hermes(id, name string) string {
	b, _ := json.Marshal(call(name, "{}"))
	return upstreamtest.Chunk(id, "m", `{"content":`+string(b)+`}`, "")
}

// toolRounds is a turn of two rounds: the model calls list_tasks and a
// tool that does not exist, then answers.
func toolRounds() []upstreamtest.Round {
	return []upstreamtest.Round{
		{Events: []string{upstreamtest.Chunk("u1", "m", `{"role":"assistant","content":""}`, ""), hermes("u1", "list_tasks"), hermes("u1", "delete_everything"), upstreamtest.Chunk("u1", "m", `{}`, "stop")}},
		textRound("u2", "You have no tasks."),
	}
}

func scrape(t *testing.T, e *env, headers ...string) map[string]*dto.MetricFamily {
	t.Helper()
	resp := e.do(t, http.MethodGet, "/metrics", "", append(headers, "Accept: text/plain; version=0.0.4")...)
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v\n%s", err, body)
	}
	return fams
}

// series finds the metric of family name with exactly the given labels.
func series(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no metric %s", name)
	}
	for _, m := range f.GetMetric() {
		var got []string
		for _, l := range m.GetLabel() {
			got = append(got, l.GetName(), l.GetValue())
		}
		if slices.Equal(got, labels) {
			return m
		}
	}
	t.Fatalf("no %s%v among %v", name, labels, f.GetMetric())
	return nil
}

// TestMetrics runs a turn with a tool call and checks that /metrics
// parses and counts it under every name of docs/operations.md.
func TestMetrics(t *testing.T) {
	e := newToolEnv(t, turnConfig(""), toolRounds(), proxy.Options{
		ApprovalsPending: func() int { return 3 },
		StorageErrors:    func() uint64 { return 2 },
	})
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
	if body := readAll(t, resp); resp.StatusCode != http.StatusOK || !strings.Contains(body, "[DONE]") {
		t.Fatalf("turn: %d %s", resp.StatusCode, body)
	}
	fams := scrape(t, e.env)

	if v := series(t, fams, "toolstream_turns_total", "status", "ok", "upstream", "up").GetCounter().GetValue(); v != 1 {
		t.Errorf("turns ok = %v, want 1", v)
	}
	if v := series(t, fams, "toolstream_rounds_total", "upstream", "up").GetCounter().GetValue(); v != 2 {
		t.Errorf("rounds = %v, want 2", v)
	}
	if v := series(t, fams, "toolstream_tool_calls_total", "status", "ok", "tool", "list_tasks").GetCounter().GetValue(); v != 1 {
		t.Errorf("list_tasks ok = %v, want 1", v)
	}
	// The model's own name for a tool that does not exist is no label.
	if v := series(t, fams, "toolstream_tool_calls_total", "status", "error", "tool", "unknown").GetCounter().GetValue(); v != 1 {
		t.Errorf(`tool="unknown" error = %v, want 1`, v)
	}
	if n := series(t, fams, "toolstream_upstream_ttfb_seconds", "upstream", "up").GetHistogram().GetSampleCount(); n != 2 {
		t.Errorf("ttfb samples = %d, want one per round (2)", n)
	}
	if n := series(t, fams, "toolstream_tool_duration_seconds", "tool", "list_tasks").GetHistogram().GetSampleCount(); n != 1 {
		t.Errorf("tool duration samples = %d, want 1", n)
	}
	if _, ok := fams["toolstream_tool_duration_seconds"]; ok {
		for _, m := range fams["toolstream_tool_duration_seconds"].GetMetric() {
			if m.GetLabel()[0].GetValue() == "unknown" {
				t.Error("a call that never ran has a duration")
			}
		}
	}
	if v := series(t, fams, "toolstream_active_streams").GetGauge().GetValue(); v != 0 {
		t.Errorf("active streams = %v after the turn, want 0", v)
	}
	if v := series(t, fams, "toolstream_stream_bytes_total").GetCounter().GetValue(); v < 100 {
		t.Errorf("stream bytes = %v, want the streamed turn's size", v)
	}
	if v := series(t, fams, "toolstream_approvals_pending").GetGauge().GetValue(); v != 3 {
		t.Errorf("approvals pending = %v, want 3 from Options.ApprovalsPending", v)
	}
	if v := series(t, fams, "toolstream_storage_errors_total").GetCounter().GetValue(); v != 2 {
		t.Errorf("storage errors = %v, want 2 from Options.StorageErrors", v)
	}
	if _, ok := fams["toolstream_mcp_server_up"]; ok {
		t.Error("toolstream_mcp_server_up has series without MCP servers")
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if fams[name] == nil {
			t.Errorf("no %s: the Go and process collectors are missing", name)
		}
	}
}

// TestMetricsTurnStatuses counts a failed turn under status="error".
func TestMetricsTurnStatuses(t *testing.T) {
	e := newEnv(t, []upstreamtest.Round{{Status: 500, Body: `{"error":{"message":"boom","type":"server_error","param":null,"code":null}}`}}, nil)
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", chatBody))
	fams := scrape(t, e)
	if v := series(t, fams, "toolstream_turns_total", "status", "error", "upstream", "up").GetCounter().GetValue(); v != 1 {
		t.Errorf("turns error = %v, want 1", v)
	}
}

// TestMetricsAdmin checks auth.metrics: admin: no key or a client key gets
// 401 in OpenAI's shape, an admin key (plain or sha256) gets the metrics.
func TestMetricsAdmin(t *testing.T) {
	e := newEnv(t, nil, func(c *config.Config) {
		c.Auth.Keys = config.PlainKeys("client-1")
		c.Auth.AdminKeys = []config.Secret{"admin-1", config.Secret("sha256:" + sha256hex("admin-2"))}
		c.Auth.Metrics = "admin"
	})
	for _, h := range [][]string{nil, {"Authorization: Bearer client-1"}, {"Authorization: Bearer nope"}} {
		resp := e.do(t, http.MethodGet, "/metrics", "", h...)
		body := readAll(t, resp)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%v: status %d, want 401", h, resp.StatusCode)
			continue
		}
		if got := decodeError(t, body); got.Error.Code != "invalid_api_key" {
			t.Errorf("%v: code %v, want invalid_api_key", h, got.Error.Code)
		}
	}
	scrape(t, e, "Authorization: Bearer admin-1")
	scrape(t, e, "api-key: admin-2")

	open := newEnv(t, nil, withKeys("client-1"))
	scrape(t, open) // auth.metrics: open (the default) needs no key
}

// TestToolDurationOnlyCallsThatRan: a call refused by validation and a
// call a person denied are counted, but toolstream_tool_duration_seconds
// observes neither — the denied one waited for a person, the tool never
// ran.
func TestToolDurationOnlyCallsThatRan(t *testing.T) {
	rounds := []upstreamtest.Round{
		textRound("c1", "Adding it. ", call("create_task", `{}`), call("create_task", `{"title":"Gym"}`)),
		textRound("c2", "Not added."),
	}
	e, _ := newStoredEnv(t, approvalConfig("always"), rounds)
	st := openStream(t, e, context.Background(), toolRequest, "Authorization: Bearer "+apClientKey)
	id := event(t, st.until(t, `"approval.requested"`))["action_id"].(string)
	if code, a := e.jsonDo(t, "POST", "/v1/actions/"+id+"/deny", `{}`, apClientKey); code != 200 {
		t.Fatalf("deny: %d %v", code, a)
	}
	st.until(t, "[DONE]")
	// The turn is counted once its handler returns, after [DONE]: the
	// body's end is when it has.
	io.Copy(io.Discard, st.resp.Body)
	fams := scrape(t, e.env, "Authorization: Bearer "+apAdminKey)
	for _, status := range []string{"denied", "error"} {
		if v := series(t, fams, "toolstream_tool_calls_total", "status", status, "tool", "create_task").GetCounter().GetValue(); v != 1 {
			t.Errorf("create_task %s = %v, want 1", status, v)
		}
	}
	for _, m := range fams["toolstream_tool_duration_seconds"].GetMetric() {
		t.Errorf("a call that never ran has a duration: %v", m)
	}
}
