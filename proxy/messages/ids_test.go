package messages_test

import (
	"testing"

	"github.com/toolstream/toolstream/proxy/messages"
)

// TestCallID gives back the call id inside every block id toolstream
// writes, and takes an id without a known prefix as a call id.
func TestCallID(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"call_AbC123", "toolu_01x", "mcptoolu_9", "chatcmpl-tool-7", ""} {
		if got := messages.CallID(messages.ToolUseID(id)); got != id {
			t.Errorf("CallID(ToolUseID(%q)) = %q", id, got)
		}
		if got := messages.CallID(messages.MCPToolUseID(id)); got != id {
			t.Errorf("CallID(MCPToolUseID(%q)) = %q", id, got)
		}
	}
	if got := messages.CallID("call_1"); got != "call_1" {
		t.Errorf("CallID(call_1) = %q", got)
	}
}
