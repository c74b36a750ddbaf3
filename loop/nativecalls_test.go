package loop

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/valyala/fastjson"
)

// assembled is one call as nativeCalls finished it.
type assembled struct {
	ID, Name, Args string
	Server         bool
}

// feedNative runs chunks (each a JSON array of delta.tool_calls fragments)
// through a nativeCalls whose server tools are server, and returns the
// fragments the client received joined per call (by client index) and
// the calls it assembled.
func feedNative(t *testing.T, server map[string]bool, chunks []string) (client []assembled, calls []assembled) {
	t.Helper()
	n := 0
	nc := newNativeCalls(func(name string) bool { return server[name] }, func() string { n++; return "call_m" + strconv.Itoa(n) })
	var p fastjson.Parser
	for _, ch := range chunks {
		v, err := p.Parse(ch)
		if err != nil {
			t.Fatalf("chunk %s: %v", ch, err)
		}
		for _, f := range nc.feed(v.GetArray()) {
			// What the openai SDK's stream helper does: index is the key,
			// the first id and name stick, arguments are joined.
			for len(client) <= f.Index {
				client = append(client, assembled{})
			}
			c := &client[f.Index]
			if c.ID == "" {
				c.ID = f.ID
			} else if f.ID != "" {
				t.Errorf("client index %d got a second id %q after %q", f.Index, f.ID, c.ID)
			}
			if c.Name == "" {
				c.Name = f.Function.Name
			} else if f.Function.Name != "" {
				t.Errorf("client index %d got a second name %q after %q", f.Index, f.Function.Name, c.Name)
			}
			c.Args += f.Function.Arguments
		}
	}
	for _, c := range nc.finish() {
		calls = append(calls, assembled{ID: c.id, Name: c.name, Args: c.arguments(), Server: c.server})
	}
	return client, calls
}

func TestNativeCalls(t *testing.T) {
	server := map[string]bool{"create_task": true, "list_tasks": true}
	tests := []struct {
		name   string
		chunks []string
		client []assembled
		calls  []assembled
	}{{
		name: "openai: id and name first, then arguments",
		chunks: []string{
			`[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]`,
			`[{"index":0,"function":{"arguments":"{\"city\":"}}]`,
			`[{"index":0,"function":{"arguments":"\"Paris\"}"}}]`,
		},
		client: []assembled{{ID: "call_a", Name: "get_weather", Args: `{"city":"Paris"}`}},
		calls:  []assembled{{ID: "call_a", Name: "get_weather", Args: `{"city":"Paris"}`}},
	}, {
		name: "lm studio: a new id on every fragment, name empty on continuations",
		chunks: []string{
			`[{"index":0,"id":"100","type":"function","function":{"name":"get_weather","arguments":""}}]`,
			`[{"index":0,"id":"101","type":"function","function":{"name":"","arguments":"{\"city\":"}}]`,
			`[{"index":0,"id":"102","type":"function","function":{"name":"","arguments":"\"Paris\"}"}}]`,
		},
		client: []assembled{{ID: "100", Name: "get_weather", Args: `{"city":"Paris"}`}},
		calls:  []assembled{{ID: "100", Name: "get_weather", Args: `{"city":"Paris"}`}},
	}, {
		name: "lm studio, server tool: one call, not three",
		chunks: []string{
			`[{"index":0,"id":"100","type":"function","function":{"name":"create_task","arguments":""}}]`,
			`[{"index":0,"id":"101","type":"function","function":{"arguments":"{\"title\":"}}]`,
			`[{"index":0,"id":"102","type":"function","function":{"arguments":"\"Gym\"}"}}]`,
		},
		calls: []assembled{{ID: "100", Name: "create_task", Args: `{"title":"Gym"}`, Server: true}},
	}, {
		name: "name only ever arrives empty after the first fragment, no ids",
		chunks: []string{
			`[{"index":0,"type":"function","function":{"name":"get_weather","arguments":"{"}}]`,
			`[{"index":0,"type":"function","function":{"name":"","arguments":"\"city\":\"Oslo\"}"}}]`,
		},
		client: []assembled{{ID: "call_m1", Name: "get_weather", Args: `{"city":"Oslo"}`}},
		calls:  []assembled{{ID: "call_m1", Name: "get_weather", Args: `{"city":"Oslo"}`}},
	}, {
		name: "the same name repeated on every fragment while the arguments are open",
		chunks: []string{
			`[{"index":0,"id":"a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]`,
			`[{"index":0,"id":"a","type":"function","function":{"name":"get_weather","arguments":"\"Rome\"}"}}]`,
			`[{"index":0,"id":"a","type":"function","function":{"name":"get_weather","arguments":""}}]`,
		},
		client: []assembled{{ID: "a", Name: "get_weather", Args: `{"city":"Rome"}`}},
		calls:  []assembled{{ID: "a", Name: "get_weather", Args: `{"city":"Rome"}`}},
	}, {
		name: "ollama: whole calls of different tools all on index 0",
		chunks: []string{
			`[{"index":0,"id":"o1","type":"function","function":{"name":"create_task","arguments":"{\"title\":\"Gym\"}"}}]`,
			`[{"index":0,"id":"o2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]`,
		},
		client: []assembled{{ID: "o2", Name: "get_weather", Args: `{"city":"Oslo"}`}},
		calls: []assembled{
			{ID: "o1", Name: "create_task", Args: `{"title":"Gym"}`, Server: true},
			{ID: "o2", Name: "get_weather", Args: `{"city":"Oslo"}`},
		},
	}, {
		name: "ollama: whole calls of the same tool on index 0",
		chunks: []string{
			`[{"index":0,"id":"o1","type":"function","function":{"name":"list_tasks","arguments":"{}"}}]`,
			`[{"index":0,"id":"o2","type":"function","function":{"name":"list_tasks","arguments":"{}"}}]`,
		},
		calls: []assembled{
			{ID: "o1", Name: "list_tasks", Args: `{}`, Server: true},
			{ID: "o2", Name: "list_tasks", Args: `{}`, Server: true},
		},
	}, {
		name: "a new name on the same index while the arguments are open starts a new call",
		chunks: []string{
			`[{"index":0,"id":"a","type":"function","function":{"name":"create_task","arguments":"{\"title\":"}}]`,
			`[{"index":0,"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]`,
		},
		client: []assembled{{ID: "call_m1", Name: "get_weather", Args: `{"city":"Oslo"}`}},
		calls: []assembled{
			{ID: "a", Name: "create_task", Args: `{"title":`, Server: true},
			{ID: "call_m1", Name: "get_weather", Args: `{"city":"Oslo"}`},
		},
	}, {
		name: "arguments before the name are held, then sent with it",
		chunks: []string{
			`[{"index":0,"id":"x","type":"function","function":{"arguments":"{\"city\":"}}]`,
			`[{"index":0,"id":"y","type":"function","function":{"name":"get_weather","arguments":"\"Paris\"}"}}]`,
		},
		client: []assembled{{ID: "x", Name: "get_weather", Args: `{"city":"Paris"}`}},
		calls:  []assembled{{ID: "x", Name: "get_weather", Args: `{"city":"Paris"}`}},
	}, {
		name: "two indexes interleaved, each with changing ids",
		chunks: []string{
			`[{"index":0,"id":"a1","type":"function","function":{"name":"get_weather","arguments":""}},{"index":1,"id":"b1","type":"function","function":{"name":"create_task","arguments":""}}]`,
			`[{"index":1,"id":"b2","function":{"arguments":"{\"title\":\"X\"}"}},{"index":0,"id":"a2","function":{"arguments":"{\"city\":\"Rome\"}"}}]`,
		},
		client: []assembled{{ID: "a1", Name: "get_weather", Args: `{"city":"Rome"}`}},
		calls: []assembled{
			{ID: "a1", Name: "get_weather", Args: `{"city":"Rome"}`},
			{ID: "b1", Name: "create_task", Args: `{"title":"X"}`, Server: true},
		},
	}, {
		name: "arguments written back to back on one index: two calls of the tool",
		chunks: []string{
			`[{"index":0,"type":"function","function":{"name":"create_task","arguments":"{\"title\":\"A\"}"}}]`,
			`[{"index":0,"id":"z","type":"function","function":{"arguments":" {\"title\":\"B\"}"}}]`,
		},
		calls: []assembled{
			{ID: "call_m1", Name: "create_task", Args: `{"title":"A"}`, Server: true},
			{ID: "z", Name: "create_task", Args: `{"title":"B"}`, Server: true},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, calls := feedNative(t, server, tt.chunks)
			if diff := cmp.Diff(tt.client, client); diff != "" {
				t.Errorf("client saw (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.calls, calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNativeCallsSplitAnywhere feeds one LM Studio-style call with its
// arguments cut into fragments at every byte: always one call.
func TestNativeCallsSplitAnywhere(t *testing.T) {
	args := `{"city":"Paris","note":"a \"quoted\" {brace}"}`
	for cut := 0; cut <= len(args); cut++ {
		first, _ := json.Marshal(args[:cut])
		second, _ := json.Marshal(args[cut:])
		chunks := []string{
			`[{"index":0,"id":"1","type":"function","function":{"name":"get_weather","arguments":""}}]`,
			`[{"index":0,"id":"2","type":"function","function":{"name":"","arguments":` + string(first) + `}}]`,
			`[{"index":0,"id":"3","type":"function","function":{"name":"","arguments":` + string(second) + `}}]`,
		}
		client, calls := feedNative(t, nil, chunks)
		want := []assembled{{ID: "1", Name: "get_weather", Args: args}}
		if diff := cmp.Diff(want, client); diff != "" {
			t.Errorf("cut %d: client saw (-want +got):\n%s", cut, diff)
		}
		if diff := cmp.Diff(want, calls); diff != "" {
			t.Errorf("cut %d: calls (-want +got):\n%s", cut, diff)
		}
	}
}
