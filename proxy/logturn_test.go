package proxy

import (
	"fmt"
	"testing"

	"github.com/toolstream/toolstream/loop"
)

// TestCallCounts pins the call attributes of the turn's log line: every
// status that occurred, in a fixed order, client calls included.
func TestCallCounts(t *testing.T) {
	calls := []loop.CallSummary{
		{Name: "a", Status: "ok"}, {Name: "b", Status: "error"}, {Name: "a", Status: "ok"},
		{Name: "mine", Status: loop.StatusClient, Client: true}, {Name: "c", Status: "strange"},
	}
	got := fmt.Sprint(callCounts(calls))
	if want := "[calls_ok=2 calls_error=2 calls_client=1]"; got != want {
		t.Errorf("callCounts = %s, want %s", got, want)
	}
	if callCounts(nil) != nil {
		t.Error("a turn without calls has call attributes")
	}
}
