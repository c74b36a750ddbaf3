package mcpserve

import (
	"encoding/json"
	"testing"
)

// TestStateSeal: a requestState opens only for the key, tool and
// arguments it was sealed for (arguments compared as JSON, not as
// bytes), and only in the process that sealed it.
func TestStateSeal(t *testing.T) {
	s := newStateSeal()
	st := askState{Action: "act_1", Call: "call_1", Turn: "mcp_1"}
	tok := s.seal(st, "app", "approve_task", json.RawMessage(`{"id":"7","n":[1,2.50]}`))
	for _, tc := range []struct {
		name, token, key, tool, args string
		ok                           bool
	}{
		{"as sealed", tok, "app", "approve_task", `{"id":"7","n":[1,2.50]}`, true},
		{"keys reordered, spaced", tok, "app", "approve_task", ` { "n" : [1, 2.50], "id":"7" }`, true},
		{"another value", tok, "app", "approve_task", `{"id":"8","n":[1,2.50]}`, false},
		{"another number form", tok, "app", "approve_task", `{"id":"7","n":[1,2.5]}`, false},
		{"another key", tok, "plain", "approve_task", `{"id":"7","n":[1,2.50]}`, false},
		{"another tool", tok, "app", "create_task", `{"id":"7","n":[1,2.50]}`, false},
		{"another process", newStateSeal().seal(st, "app", "approve_task", json.RawMessage(`{"id":"7","n":[1,2.50]}`)), "app", "approve_task", `{"id":"7","n":[1,2.50]}`, false},
		{"no MAC", tok[:len(tok)-44], "app", "approve_task", `{"id":"7","n":[1,2.50]}`, false},
		{"empty", "", "app", "approve_task", `{"id":"7","n":[1,2.50]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.open(tc.token, tc.key, tc.tool, json.RawMessage(tc.args))
			if (err == nil) != tc.ok {
				t.Fatalf("open: %v, want ok=%v", err, tc.ok)
			}
			if tc.ok && got != st {
				t.Errorf("opened %+v, want %+v", got, st)
			}
		})
	}
}

// FuzzStateOpen: the one token sealed opens only with its own arguments;
// no token a client makes up opens, and none panics.
func FuzzStateOpen(f *testing.F) {
	s := newStateSeal()
	sealed := s.seal(askState{Action: "a", Call: "c"}, "k", "t", json.RawMessage(`{"x":1}`))
	f.Add(sealed, `{"x":1}`)
	f.Add(sealed, `{"x":2}`)
	f.Add("e30.AAAA", `{"a":1}`)
	f.Fuzz(func(t *testing.T, token, args string) {
		_, err := s.open(token, "k", "t", json.RawMessage(args))
		if err == nil && (token != sealed || string(canonical(json.RawMessage(args))) != `{"x":1}`) {
			t.Fatalf("token %q opened with %q", token, args)
		}
	})
}
