package proxy_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestLeftOutLogged: a Responses tool the proxy cannot honour is left
// out of the round, not refused, and logged once for the key and kind
// (the proxy's clock is pinned: the second request is within the hour).
func TestLeftOutLogged(t *testing.T) {
	var logs lockedBuffer
	e := newLoggedEnv(t, &logs, []upstreamtest.Round{
		{Events: upstreamtest.Text("c1", "m", "Hi.")},
		{Events: upstreamtest.Text("c2", "m", "Hi.")},
	})
	body := `{"model":"m","input":"hi","tools":[{"type":"web_search"},{"type":"image_generation"},{"type":"function","name":"f"}]}`
	for range 2 {
		resp := e.do(t, http.MethodPost, "/v1/responses", body)
		if got := readAll(t, resp); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, got)
		}
	}
	reqs := e.up.Requests()
	if len(reqs) != 2 || strings.Contains(string(reqs[0].Body), "web_search") || !strings.Contains(string(reqs[0].Body), `"name":"f"`) {
		t.Errorf("upstream requests %d, first %s: want the function tool alone", len(reqs), reqs[0].Body)
	}
	e.srv.Close()
	lines := linesWith(logs.String(), "left out of the request")
	want := []string{`route=/v1/responses key="" left_out="tool image_generation"`, `route=/v1/responses key="" left_out="hosted tool web_search" why="not bound by hosted_tools"`}
	if len(lines) != len(want) {
		t.Fatalf("left-out lines %q, want %d", lines, len(want))
	}
	for i, w := range want {
		if !strings.Contains(lines[i], "level=INFO") || !strings.Contains(lines[i], w) {
			t.Errorf("line %q, want an info line with %s", lines[i], w)
		}
	}
}
