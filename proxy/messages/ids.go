package messages

import "strings"

// Block ids and call ids. A turn's calls have the ids the turn gave them
// ("call_…", or a native upstream's own), and history stitching finds a
// stored turn by them ("call:<id>"). A Messages client names blocks with
// Anthropic's prefixes instead, so each block id is the call id with a
// prefix, and a block sent back gives the call id again with the prefix
// taken off: no mapping to keep, the stored turn is found, and a native
// upstream gets its own ids back in the history.
const (
	toolUsePrefix    = "toolu_"
	mcpToolUsePrefix = "mcptoolu_"
)

// ToolUseID is the id of the tool_use block for the client's call callID:
// "toolu_" + callID.
func ToolUseID(callID string) string { return toolUsePrefix + callID }

// MCPToolUseID is the id of the mcp_tool_use block (and the tool_use_id
// of the mcp_tool_result block) for the server call callID:
// "mcptoolu_" + callID.
func MCPToolUseID(callID string) string { return mcpToolUsePrefix + callID }

// CallID is the call id a block id names: the id without its "toolu_",
// "mcptoolu_" or "srvtoolu_" prefix. An id without either is a call id already.
func CallID(blockID string) string {
	if id, ok := strings.CutPrefix(blockID, mcpToolUsePrefix); ok {
		return id
	}
	if id, ok := strings.CutPrefix(blockID, serverToolUsePrefix); ok {
		return id
	}
	return strings.TrimPrefix(blockID, toolUsePrefix)
}
