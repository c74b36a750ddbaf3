package demo

import (
	"bytes"
	"strings"
	"testing"
)

// TestPrintApproval: a call waiting for approval is printed with the
// commands that decide it, the decision on a line of its own.
func TestPrintApproval(t *testing.T) {
	stream := `data: {"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":"I'll delete it."}}]}

data: {"id":"c1","choices":[{"index":0,"delta":{}}],"toolstream":{"event":"tool.started","call_id":"call_1","name":"delete_task","arguments":{"id":1},"round":1}}

data: {"id":"c1","choices":[{"index":0,"delta":{}}],"toolstream":{"event":"approval.requested","call_id":"call_1","name":"delete_task","round":1,"action_id":"act_123","expires_at":"2026-11-24T10:05:00Z"}}

: keepalive

data: {"id":"c1","choices":[{"index":0,"delta":{}}],"toolstream":{"event":"approval.resolved","call_id":"call_1","name":"delete_task","round":1,"action_id":"act_123","decision":"denied","reason":"not now"}}

`
	var out bytes.Buffer
	p := newPrinter(&out, false, "http://127.0.0.1:8080/v1")
	if err := p.read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"assistant ▸ I'll delete it.\n  ⚙ delete_task {\"id\":1}\n  ⏸ delete_task waits for your approval until ",
		". In another terminal, approve it with\n      curl -X POST http://127.0.0.1:8080/v1/actions/act_123/approve\n" +
			"    or refuse it with\n      curl -X POST http://127.0.0.1:8080/v1/actions/act_123/deny -d '{\"reason\":\"not now\"}'\n",
		"  ▸ delete_task denied: not now\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("printed\n%s\nwant it to contain\n%s", got, want)
		}
	}
}
