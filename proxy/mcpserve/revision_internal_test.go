package mcpserve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStatelessRouting: a POST goes to the stateless handler by its
// MCP-Protocol-Version header when it has one, else by the version its
// _meta carries; initialize, a session's requests and older clients keep
// to sessions.
func TestStatelessRouting(t *testing.T) {
	const meta = `"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`
	for _, tc := range []struct {
		name, header, body string
		want               bool
	}{
		{"2026 header and meta", "2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"tools/list",` + meta + `}`, true},
		{"2026 header, no meta", "2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, true},
		{"a later version", "2099-01-01", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, true},
		{"meta without the header", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list",` + meta + `}`, true},
		{"meta in a batch", "", `[{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":1,"method":"tools/list",` + meta + `}]`, true},
		{"a session's header wins over meta", "2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"tools/list",` + meta + `}`, false},
		{"initialize", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, false},
		{"a session's request", "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, false},
		{"meta version not a string", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}}`, false},
		{"params not an object", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`, false},
		{"not JSON", "", `{`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(tc.body))
			if tc.header != "" {
				r.Header.Set("MCP-Protocol-Version", tc.header)
			}
			m, ok := readMessages(httptest.NewRecorder(), r)
			if !ok {
				t.Fatal("the body was not read")
			}
			if got := stateless(r, m); got != tc.want {
				t.Errorf("stateless = %v, want %v (messages %+v)", got, tc.want, m)
			}
		})
	}
}

// FuzzReadMessages: whatever the body, readMessages neither panics nor
// loses a byte of it (the SDK reads it next), and counts no more
// requests than there are messages.
func FuzzReadMessages(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	f.Add(`[{"jsonrpc":"2.0","id":1,"method":"initialize"},{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{}}]`)
	f.Add(`{"id":null,"method":"tools/call","params":"x"}`)
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		m, ok := readMessages(httptest.NewRecorder(), r)
		if !ok {
			t.Fatal("an in-memory body was not read")
		}
		left, _ := io.ReadAll(r.Body)
		if string(left) != body {
			t.Fatalf("the SDK would read %q, not %q", left, body)
		}
		if n := m.initialize + m.calls + m.listens; n > strings.Count(body, "{") {
			t.Fatalf("%d requests counted in %q", n, body)
		}
	})
}
