package loop

import (
	"encoding/json"
	"testing"
)

// TestEventFields: tool events always carry call_id and name (docs/stream.md),
// even for a block too malformed to name its tool; other events do not.
func TestEventFields(t *testing.T) {
	tests := []struct {
		ev   Event
		want string
	}{
		{Event{Event: "tool.started", CallID: "call_1", Round: 1},
			`{"event":"tool.started","call_id":"call_1","name":"","round":1}`},
		{Event{Event: "tool.finished", CallID: "call_1", Name: "t", Round: 2, Status: "ok", Result: json.RawMessage(`{"a":1}`)},
			`{"event":"tool.finished","call_id":"call_1","name":"t","round":2,"status":"ok","result":{"a":1}}`},
		{Event{Event: "round.started", Round: 2}, `{"event":"round.started","round":2}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.ev)
		if err != nil || string(got) != tt.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.ev, got, err, tt.want)
		}
	}
}
