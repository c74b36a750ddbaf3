package history

import (
	"context"
	"encoding/json"

	"github.com/sashabaranov/go-openai"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Restoring an earlier answer by its calls. A client of another protocol
// sends back blocks that stand for server calls (the Messages API's
// mcp_tool_use and mcp_tool_result): its route checks that the stored turn
// is there ([FindCall]) and puts a [Placeholder] where the answer was,
// which [Stitch] replaces with the stored rounds before every upstream
// request. Stitch stays the one place that expands a turn, so the stored
// rounds of a native turn, whose calls are keys of that turn too, are not
// expanded a second time.

// FindCall looks up the stored turn that made the call callID, within
// scope: the client key's, after the messages that come before the answer
// holding the call ([Anchor.Scope]).
func FindCall(ctx context.Context, history Store, scope Scope, callID string) (store.TurnRecord, bool, error) {
	return history.FindTurn(ctx, scope.callKey(callID))
}

// Placeholder is an assistant message that [Stitch] replaces with the
// stored turn that made the call callID (name is the tool's):
//
//	{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"create_task","arguments":"{}"}}]}
func Placeholder(callID, name string) json.RawMessage {
	b, _ := json.Marshal(Message{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: callID, Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: name, Arguments: "{}"}}}})
	return b
}
